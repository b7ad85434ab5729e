#!/usr/bin/env bash
# Refresh the vendored front-end files from the npm registry at the pinned versions.
set -euo pipefail
HTMX=2.0.11
PICO=2.1.1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "htmx.org@$HTMX" "@picocss/pico@$PICO" >/dev/null
mkdir htmx pico
tar xzf "htmx.org-$HTMX.tgz" -C htmx
tar xzf "picocss-pico-$PICO.tgz" -C pico
cp htmx/package/dist/htmx.min.js htmx/package/LICENSE "$root/static/vendor/htmx/"
cp pico/package/css/pico.min.css pico/package/LICENSE.md "$root/static/vendor/pico/"
echo "htmx $HTMX and Pico CSS $PICO copied to static/vendor/"
