#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the tests and the benchmark (the Pulumi CLI's postgres:// DIY
# backend, docs/backends.md). The one place a test server is started and stopped: .ci/run calls it, and so does
# test/support/postgres.ts (the tests when BACKUP_PORTAL_TEST_POSTGRES_URL is not set, and bench/backend.ts).
#
#   bash scripts/postgres-test-server.sh start      prints `dir=<folder>` and `url=<postgres://...>`, exits 0
#   bash scripts/postgres-test-server.sh stop DIR   stops that server and removes its folder
#   bash scripts/postgres-test-server.sh bin        prints the folder of PostgreSQL's programs (psql among them)
#
# The server: initdb into a fresh temporary folder, listening on 127.0.0.1 only (no Unix socket), on a free port,
# password (SCRAM) authentication for TCP from 127.0.0.1 and nothing else. The superuser is `pulumi`, with a
# random password that goes into a pgpass file of the folder (mode 0600) and is never on a command line: the URL
# names that file (`passfile=`), which both the CLI's driver (lib/pq) and psql read. Run as root, the server runs
# as the `postgres` user (initdb and postgres refuse root) and its data folder is that user's.
# On failure: one line on stderr saying what is missing or what the server logged, exit 3.
set -uo pipefail

NOT_INSTALLED="PostgreSQL's server programs (initdb, pg_ctl) are not installed: install PostgreSQL 12 or later (Debian/Ubuntu: apt-get install postgresql)"

fail() {
  echo "postgres-test-server.sh: $*" >&2
  exit 3
}

# The server's programs: on PATH, else Debian's /usr/lib/postgresql/<version>/bin (the newest), which is not on PATH.
pg_bin() {
  local d
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    # Through symlinks (a distribution's /usr/local/bin/initdb): psql and the rest are in the real folder.
    dirname "$(readlink -f "$(command -v initdb)")"
    return 0
  fi
  for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  return 1
}

# Runs a command as the server's user: ourselves, or `postgres` when we are root.
as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local bin dir password port tries url
  bin=$(pg_bin) || fail "$NOT_INSTALLED"
  [ -x "$bin/psql" ] || fail "psql is not installed: install PostgreSQL's client (Debian/Ubuntu: apt-get install postgresql-client)"
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    fail "run as root, the server needs the \`postgres\` user (initdb refuses root), which does not exist: install PostgreSQL from the distribution's package, or run as another user"
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/postgres-test-XXXXXX") || fail "could not make a temporary folder"
  # Marks the folder as this script's: `stop` removes only such a folder.
  : >"$dir/.postgres-test-server"
  password=$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)
  mkdir "$dir/data"
  if [ "$(id -u)" = 0 ]; then
    # The server's user reaches its folder through ours (traverse only) and owns its data folder.
    chmod 711 "$dir"
    chown postgres: "$dir/data"
  fi
  # initdb reads the superuser's password from a file, which it may read and nobody else, removed right after.
  (umask 077 && printf '%s\n' "$password" >"$dir/data/pwfile")
  [ "$(id -u)" = 0 ] && chown postgres: "$dir/data/pwfile"
  if ! as_server_user "$bin/initdb" -D "$dir/data/cluster" -U pulumi --pwfile="$dir/data/pwfile" \
    --auth-host=scram-sha-256 --auth-local=scram-sha-256 -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    local why
    why=$(grep -v '^$' "$dir/initdb.log" | tail -1)
    rm -rf "$dir"
    fail "initdb failed: $why"
  fi
  rm -f "$dir/data/pwfile"
  # TCP from 127.0.0.1 with the password, nothing else (no Unix socket is opened at all).
  printf '%s\n' "host all pulumi 127.0.0.1/32 scram-sha-256" | as_server_user tee "$dir/data/cluster/pg_hba.conf" >/dev/null
  (umask 077 && printf '127.0.0.1:*:*:pulumi:%s\n' "$password" >"$dir/pgpass")

  # A free port: a random one not answering now; if the server still cannot bind it (taken meanwhile), another.
  # Bounded: 5 tries, each start bounded by pg_ctl's own wait (-t).
  for tries in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    if as_server_user "$bin/pg_ctl" -D "$dir/data/cluster" -l "$dir/data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=" start >"$dir/pg_ctl.log" 2>&1; then
      url="postgres://pulumi@127.0.0.1:$port/postgres?sslmode=disable&passfile=$dir/pgpass"
      echo "$port" >"$dir/port"
      echo "dir=$dir"
      echo "url=$url"
      return 0
    fi
    grep -q "could not bind\|Address already in use" "$dir/data/server.log" 2>/dev/null || break
  done
  local why
  why=$(grep -v '^$' "$dir/data/server.log" 2>/dev/null | tail -1)
  stop "$dir" >/dev/null 2>&1
  fail "the server did not start (after $tries tries): ${why:-$(tail -1 "$dir/pg_ctl.log" 2>/dev/null)}"
}

stop() {
  local dir="${1:-}" bin pid
  if [ -z "$dir" ] || [ ! -f "$dir/.postgres-test-server" ]; then fail "stop: $dir is not a folder this script made"; fi
  bin=$(pg_bin) || true
  if [ -f "$dir/data/cluster/postmaster.pid" ]; then
    if [ -z "$bin" ] || ! as_server_user "$bin/pg_ctl" -D "$dir/data/cluster" -m fast -w -t 30 stop >/dev/null 2>&1; then
      # The postmaster's pid is the file's first line; it ends its backends when it goes.
      pid=$(head -1 "$dir/data/cluster/postmaster.pid" 2>/dev/null)
      [[ "$pid" =~ ^[0-9]+$ ]] && kill -KILL "$pid" 2>/dev/null
    fi
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  bin) pg_bin || fail "$NOT_INSTALLED" ;;
  stop) stop "${2:-}" ;;
  *) fail "usage: postgres-test-server.sh start | stop DIR | bin" ;;
esac
