#!/usr/bin/env bash
# make deploy-check: docs/server.md's steps on this machine, for real. The image is
# built from the Dockerfile (its base from Debian's packages: deploy/base-image.sh); PostgreSQL,
# Redis and Caddy are Debian's, run as compose.yaml runs theirs, with the repository's Caddyfile and an
# .env made from .env.example as docs/server.md says; two app containers on two loopback ports.
# Real Chromium drives phones through Caddy's HTTPS (deploy/check_browser.py).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
began=$(date +%s)
PODMAN=(podman --runtime runc)  # crun refuses these machines' cgroup layout
# Nor may a container raise its limits past this shell's (podman's defaults are higher).
LIMITS=(--ulimit "nofile=$(ulimit -n):$(ulimit -Hn)" --ulimit nproc=4096:4096)
# A port free now, asked of the system: a fixed one in the ephemeral range (32768-60999) may be held by one of
# the test run's connections (Redis once failed to start on 55442 after a full run; its log is shown now).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PG_PORT=${DEPLOY_PG_PORT:-$(free_port)}
REDIS_PORT=${DEPLOY_REDIS_PORT:-$(free_port)}
while [ "$REDIS_PORT" = "$PG_PORT" ]; do REDIS_PORT=$(free_port); done
export CADDY_HTTP_PORT=${DEPLOY_HTTP_PORT:-18080} CADDY_HTTPS_PORT=${DEPLOY_HTTPS_PORT:-18443}
APP_PORTS=(18001 18002)
IMAGE=table-companion:check
SITE=scores.lan

missing=()
for tool in podman runc debootstrap caddy certutil redis-server; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  packages=(podman runc debootstrap caddy libnss3-tools redis-server)
  [ "$(id -u)" = 0 ] || { echo "missing: ${missing[*]} (apt-get install ${packages[*]})" >&2; exit 1; }
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)

work=$(mktemp -d /tmp/companion-deploy.XXXXXX)
chmod 755 "$work"
caddy_pid=""
redis_pid=""
cleanup() {
  set +e
  "${PODMAN[@]}" rm -f -t 5 app1 app2 >/dev/null 2>&1
  [ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null && wait "$caddy_pid" 2>/dev/null
  [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null
  runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo; echo "== $* ($(( $(date +%s) - began )) s)"; }

step "Base image from Debian's packages"
deploy/base-image.sh

step "Build the image from the Dockerfile"
build_start=$(date +%s)
# pip in the build trusts what this machine trusts (a proxy in the way may sign PyPI's TLS itself).
"${PODMAN[@]}" build --format docker --network host --quiet -t "$IMAGE" \
  -v /etc/ssl/certs/ca-certificates.crt:/run/ca.crt:ro --build-arg CA_BUNDLE=/run/ca.crt . >/dev/null
build_seconds=$(( $(date +%s) - build_start ))
echo "built $IMAGE in $build_seconds s"
"${PODMAN[@]}" image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE" | grep -q healthz \
  || { echo "the image lost its HEALTHCHECK" >&2; exit 1; }

step "docs/server.md's steps: .env from .env.example"
# As docs/server.md says: the address, Caddy's local authority on a LAN, two secrets of your own.
cp .env.example "$work/.env"
sed -i -e "s/^SITE_ADDRESS=.*/SITE_ADDRESS=$SITE/" -e "s/^CADDY_TLS=.*/CADDY_TLS=internal/" \
  -e "s/^SECRET_KEY=.*/SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')/" \
  -e "s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')/" "$work/.env"
set -a; . "$work/.env"; set +a

step "PostgreSQL (as compose.yaml's db: user and database companion, a password)"
id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
mkdir "$work/pg" && chown postgres "$work/pg"
runuser -u postgres -- "$pg_bin/initdb" -D "$work/pg/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 >/dev/null
runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
  -o "-p $PG_PORT -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
psql_admin() { runuser -u postgres -- psql -h "$work/pg" -p "$PG_PORT" -U postgres -qAt "$@"; }
psql_admin -c "CREATE ROLE companion LOGIN PASSWORD '$POSTGRES_PASSWORD'" -c "CREATE DATABASE companion OWNER companion"
database_url() { echo "postgresql://companion:$POSTGRES_PASSWORD@127.0.0.1:$PG_PORT/$1"; }

step "Redis for the limits (as compose.yaml's redis: counts only, nothing on disk)"
# A daemon, not a child of this shell: the `wait`s below wait for the app containers alone.
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log"
for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
redis-cli -p "$REDIS_PORT" ping || { tail -20 "$work/redis.log" >&2; exit 1; }
redis_pid=$(cat "$work/redis.pid")

mkdir "$work/instance" && chown 10001 "$work/instance"
run_app() {  # name port: as compose.yaml's app1/app2, on the host's network
  "${PODMAN[@]}" run -d --name "$1" --network host "${LIMITS[@]}" --health-interval disable --env-file "$work/.env" \
    -e DATABASE_URL="$(database_url companion)" -e LIMITS_STORAGE_URL="redis://127.0.0.1:$REDIS_PORT/0" \
    -e COMPANION_HOSTS="$SITE_ADDRESS" \
    -e LISTEN=127.0.0.1 -e PORT="$2" -e SERVED_BY="$1" -v "$work/instance:/data" "$IMAGE" >/dev/null
}
wait_healthy() {
  for _ in $(seq 120); do
    "${PODMAN[@]}" healthcheck run "$1" >/dev/null 2>&1 && return 0
    [ "$("${PODMAN[@]}" inspect --format '{{.State.Status}}' "$1")" = running ] || break
    sleep 1
  done
  "${PODMAN[@]}" logs "$1" | tail -20; echo "$1 never became healthy" >&2; return 1
}

step "Two app containers started together on a new database"
run_app app1 "${APP_PORTS[0]}" & run_app app2 "${APP_PORTS[1]}" & wait
wait_healthy app1 && wait_healthy app2
migrated=$("${PODMAN[@]}" logs app1 2>&1; "${PODMAN[@]}" logs app2 2>&1)
migrations=$(grep -c "in database: Database migrated from empty" <<<"$migrated" || true)
nothing=$(grep -c "in database: Database at .*: nothing to migrate" <<<"$migrated" || true)
echo "migrated by one container: $migrations; found nothing to do: $nothing"
if [ "$migrations" != 1 ] || [ "$nothing" != 1 ]; then echo "expected one container to migrate, the other to find nothing to do" >&2; exit 1; fi
"${PODMAN[@]}" exec app1 table-companion --version
"${PODMAN[@]}" exec app1 table-companion seed --matches 10 --seed 11 >/dev/null

start_caddy() {
  # A server that failed is doubted 5 s, not 30: each new phone the check sends to app1 after a restart waits it out.
  XDG_DATA_HOME="$work/caddy-data" XDG_CONFIG_HOME="$work/caddy-config" CADDY_BIND=127.0.0.1 CADDY_ADMIN=127.0.0.1:12019 \
    CADDY_FAIL_DURATION=5s \
    APP_UPSTREAMS="127.0.0.1:${APP_PORTS[0]} 127.0.0.1:${APP_PORTS[1]}" \
    caddy run --config "$repo/Caddyfile" --adapter caddyfile >>"$work/caddy.log" 2>&1 &
  caddy_pid=$!
  root="$work/caddy-data/caddy/pki/authorities/local/root.crt"
  for _ in $(seq 60); do
    [ -f "$root" ] && curl -sf --cacert "$root" --resolve "$SITE:$CADDY_HTTPS_PORT:127.0.0.1" \
      "https://$SITE:$CADDY_HTTPS_PORT/healthz" >/dev/null && return 0
    sleep 1
  done
  tail -20 "$work/caddy.log"; echo "Caddy never answered over HTTPS" >&2; return 1
}
step "Caddy with its local certificate authority, its root in the test browser's store"
start_caddy
export HOME="$work/home"
mkdir -p "$HOME/.pki/nssdb"
certutil -d "sql:$HOME/.pki/nssdb" -N --empty-password
certutil -d "sql:$HOME/.pki/nssdb" -A -t "C,," -n "Caddy local root" -i "$root"
url="https://$SITE:$CADDY_HTTPS_PORT"
browse() { "$repo/.venv/bin/python" "$repo/deploy/check_browser.py" "$@"; }

step "A group started and a phone invited; two phones on two app servers; the service worker"
browse live "$url" "$work/rounds.json"

step "A club evening across both app servers (4 tables, 2 turns); kill -9 of app1 as its last turn confirms"
browse evening "$url" app1
"${PODMAN[@]}" start app1 >/dev/null && wait_healthy app1

step "One limit for both app servers: a client's eleventh export in a minute is refused, whichever answers"
# A phone of the group (its credential and group cookies, joined by the invite link) without Caddy's cookie:
# Caddy picks either server for each request; their counts are Redis's.
jar="$work/curl-phone"
site_curl() { curl -s --cacert "$root" --resolve "$SITE:$CADDY_HTTPS_PORT:127.0.0.1" -b "$jar" -c "$jar" "$@"; }
invite="$url$(cat "$work/invite.txt")"
csrf=$(site_curl "$invite" | sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p' | head -1)
site_curl -o /dev/null -H "Origin: $url" -H "Referer: $invite" --data-urlencode "csrf_token=$csrf" "$invite"
# Over HTTPS the app's cookies are __Host- prefixed (web/cookies.py).
phone=$(awk '$6 ~ /^(__Host-)?(phone|group)$/ {printf "%s=%s; ", $6, $7}' "$jar")
[ "$(grep -o '; ' <<<"$phone" | wc -l)" = 2 ] || { echo "the invite link did not make the phone a member: $phone" >&2; exit 1; }
answers=$(for _ in $(seq 11); do
  curl -s -o /dev/null -w '%{http_code} %header{x-served-by}\n' --cacert "$root" -b "$phone" \
    --resolve "$SITE:$CADDY_HTTPS_PORT:127.0.0.1" "$url/history/export.csv"
done)
echo "$answers" | sort | uniq -c
# An `if`, not `a && b`: under `set -e` a failing first test of a list stops nothing.
if [ "$(head -10 <<<"$answers" | grep -c '^200 ')" != 10 ] || [ "$(tail -1 <<<"$answers" | cut -d' ' -f1)" != 429 ]; then
  echo "expected ten exports (200) and the eleventh refused (429)" >&2; exit 1
fi
echo "counts in Redis: $(redis-cli -p "$REDIS_PORT" --scan --pattern '*exports*' | wc -l) keys"
step "kill -9 of one app container while three phones save"
browse kill "$url" app1 "$work/rounds.json"
echo "saves answered by app2: $("${PODMAN[@]}" logs app2 2>/dev/null | grep -c '"POST /matches/[0-9A-Za-z]*/rounds' || true)"

step "SIGTERM to an app container while three phones save: the saves under way are answered"
"${PODMAN[@]}" start app1 >/dev/null && wait_healthy app1
browse stop "$url" app1 "$work/rounds.json"
after_term=$("${PODMAN[@]}" logs app1 2>&1 | sed -n '/Handling signal: term/,$p')
echo "app1 after its SIGTERM: $(grep -c '"POST /matches/[0-9A-Za-z]*/rounds" 200' <<<"$after_term" || true) saves answered," \
  "$(grep -c 'Handling signal: term' <<<"$after_term" || true) signal handled, then it stopped"
"${PODMAN[@]}" start app1 >/dev/null && wait_healthy app1

step "Everything stopped (SIGTERM), then started again"
"${PODMAN[@]}" stop -t 40 app2 >/dev/null
"${PODMAN[@]}" rm -f app1 app2 >/dev/null
kill "$caddy_pid"; wait "$caddy_pid" 2>/dev/null || true
runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/pg/data" -m fast stop >/dev/null
runuser -u postgres -- "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
  -o "-p $PG_PORT -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
run_app app1 "${APP_PORTS[0]}" & run_app app2 "${APP_PORTS[1]}" & wait
wait_healthy app1 && wait_healthy app2
start_caddy
browse verify "$url" "$work/rounds.json"

step "Backup, restored into an empty database: the same history export"
"${PODMAN[@]}" exec app1 table-companion backup /data/companion.dump
psql_admin -c "CREATE DATABASE restored OWNER companion"
"${PODMAN[@]}" run --rm --network host "${LIMITS[@]}" -e DATABASE_URL="$(database_url restored)" -v "$work/instance:/data" "$IMAGE" \
  table-companion restore /data/companion.dump
# The group's export: its id from the administrator's list of groups.
group=$("${PODMAN[@]}" exec app1 table-companion groups | awk '/Deploy check$/ {print $1}')
"${PODMAN[@]}" exec app1 table-companion export --group "$group" --out /data/before.json
"${PODMAN[@]}" run --rm --network host "${LIMITS[@]}" -e DATABASE_URL="$(database_url restored)" -v "$work/instance:/data" "$IMAGE" \
  table-companion export --group "$group" --out /data/after.json
cmp "$work/instance/before.json" "$work/instance/after.json"
echo "history export: $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$work/instance/before.json") matches, identical after the restore"

step "deploy-check passed: image built in $build_seconds s, $(( $(date +%s) - began )) s in all"
