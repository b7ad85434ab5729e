#!/usr/bin/env bash
# Refresh the vendored front-end files from the npm registry at the pinned versions.
#
# htmx and Cally are copied as published. Pico is built from its Sass sources with only the modules
# the pages use, then without the selectors of elements the pages never draw (scripts/trim_pico.py;
# static/vendor/README.md says what is left out and why): every page downloads it before it can
# be drawn, on a phone line that is slow. The result is committed, so neither CI nor `make run`
# needs Node.
set -euo pipefail
HTMX=2.0.11
PICO=2.1.1
# The history's calendar, loaded by that page alone (its form's data-page-scripts).
CALLY=0.9.2
# The fonts the server draws a finished match's result card with (companion/web/card_image.py).
DEJAVU=2.37.3
# Pico 2.1.1's own build chain (its package.json scripts: sass, autoprefixer on
# browserslist "defaults", clean-css -O1) at versions that rebuild the published
# pico.min.css byte for byte; checked below before the trimmed build is trusted.
SASS=1.85.1
POSTCSS=8.5.3
POSTCSS_CLI=11.0.1
AUTOPREFIXER=10.4.21
BROWSERSLIST=4.24.4
CANIUSE_LITE=1.0.30001704
CLEAN_CSS_CLI=5.6.3
# The Pico modules the app does not use: no .grid or .overflow-auto class, no colour, range or
# date input, no details.dropdown, no aria-busy="true", no <dialog>, no data-tooltip, no <code>,
# <kbd>, <pre> or <samp>.
LEFT_OUT='"layout/grid": false, "layout/overflow-auto": false, "forms/input-color": false, "forms/input-range": false, "forms/input-date": false, "components/dropdown": false, "components/loading": false, "components/modal": false, "components/tooltip": false, "content/code": false'

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "htmx.org@$HTMX" "@picocss/pico@$PICO" "cally@$CALLY" "dejavu-fonts-ttf@$DEJAVU" >/dev/null
mkdir htmx pico cally dejavu
tar xzf "htmx.org-$HTMX.tgz" -C htmx
tar xzf "picocss-pico-$PICO.tgz" -C pico
tar xzf "cally-$CALLY.tgz" -C cally
tar xzf "dejavu-fonts-ttf-$DEJAVU.tgz" -C dejavu
cp htmx/package/dist/htmx.min.js htmx/package/LICENSE "$root/static/vendor/htmx/"
mkdir -p "$root/static/vendor/cally"
cp cally/package/dist/cally.js cally/package/LICENSE "$root/static/vendor/cally/"
# Only the two faces the card draws with, regular and bold.
mkdir -p "$root/static/vendor/dejavu"
cp dejavu/package/ttf/DejaVuSans.ttf dejavu/package/ttf/DejaVuSans-Bold.ttf dejavu/package/LICENSE "$root/static/vendor/dejavu/"

# The overrides hold every copy of caniuse-lite and browserslist at the pinned version:
# the vendor prefixes autoprefixer adds depend on that data.
mkdir build
cat > build/package.json <<JSON
{
  "private": true,
  "dependencies": {
    "sass": "$SASS", "postcss": "$POSTCSS", "postcss-cli": "$POSTCSS_CLI", "autoprefixer": "$AUTOPREFIXER",
    "browserslist": "$BROWSERSLIST", "caniuse-lite": "$CANIUSE_LITE", "clean-css-cli": "$CLEAN_CSS_CLI"
  },
  "overrides": {"caniuse-lite": "\$caniuse-lite", "browserslist": "\$browserslist"}
}
JSON
(cd build && npm install --silent --no-audit --no-fund >/dev/null)
bin=build/node_modules/.bin
export BROWSERSLIST=defaults BROWSERSLIST_IGNORE_OLD_DATA=1

# build_pico OUT MODULES: Pico compiled with a $modules map, as its own build does it.
build_pico() {
  # Sass looks beside the entry file first, so nothing there may be called pico.*.
  printf '@use "pico" with ($modules: (%s));\n' "$2" > build/entry.scss
  "$bin/sass" --no-source-map --style expanded --no-error-css --load-path=pico/package/scss build/entry.scss build/out.css
  "$bin/postcss" build/out.css --use autoprefixer --no-map -o build/out.prefixed.css
  "$bin/cleancss" -O1 --with-rebase -o "$1" build/out.prefixed.css
}

build_pico build/full.min.css '"themes/default": true'
if ! cmp -s build/full.min.css pico/package/css/pico.min.css; then
  echo "the pinned build chain no longer rebuilds Pico's own pico.min.css: not trusting it" >&2
  exit 1
fi
build_pico build/trimmed.min.css "$LEFT_OUT"
python3 "$root/scripts/trim_pico.py" build/trimmed.min.css "$root/static/vendor/pico/pico.min.css"
cp pico/package/LICENSE.md "$root/static/vendor/pico/"
echo "htmx $HTMX, Cally $CALLY and DejaVu $DEJAVU copied, and Pico CSS $PICO built (without ${LEFT_OUT//: false/}, nor what scripts/trim_pico.py names) into static/vendor/"
