#!/usr/bin/env bash
# Run a command against a throw-away PostgreSQL server: initdb and pg_ctl into a temporary
# folder as an unprivileged user, DATABASE_URL pointing at it, everything removed after.
set -euo pipefail

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return; }
  done
  command -v initdb >/dev/null && dirname "$(command -v initdb)"
}

bin=$(find_bin || true)
if [ -z "$bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  bin=$(find_bin)
fi
[ -n "$bin" ] || { echo "PostgreSQL (initdb, pg_ctl) is not installed" >&2; exit 1; }

dir=$(mktemp -d /tmp/companion-pg.XXXXXX)
as_user=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$dir"
  as_user=(runuser -u postgres --)
fi

"${as_user[@]}" "$bin/initdb" -D "$dir/data" -U companion --auth=trust -E UTF8 >/dev/null
# Ports below the kernel's range for outgoing connections (32768 and up on Linux): one there may be held,
# for a while, by any connection of a run before (a fresh CI run once found 55432 taken so). Another
# server may still listen on one: the next is tried.
started=
for port in ${PGTEST_PORT:-25432 25433 25434 25435 25436}; do
  if "${as_user[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null; then
    started=1
    break
  fi
done
[ -n "$started" ] || { tail -5 "$dir/log" >&2; rm -rf "$dir"; exit 1; }
cleanup() {
  "${as_user[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

export DATABASE_URL="postgresql://companion@127.0.0.1:$port/postgres"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on port $port for: $*"
"$@"
