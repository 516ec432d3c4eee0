#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server in a temporary folder on a free port and prints
# `export` lines for PGTMP, PGPORT_CI and TEST_DATABASE_URL. Stop it with: .ci/pg-server.sh stop <dir>
# Installs Debian's postgresql package first when the server binaries are missing.
set -euo pipefail

find_bindir() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v pg_ctl)")"; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

as_pg_user() {
  # initdb and postgres refuse to run as root: use the postgres system user then.
  if [ "$(id -u)" = "0" ]; then
    id -u postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ "${1:-}" = "stop" ]; then
  dir="$2"; bindir="$(find_bindir)"
  as_pg_user "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi

bindir="$(find_bindir)"
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "installing Debian's postgresql package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
  bindir="$(find_bindir)"
fi

dir="$(mktemp -d /tmp/aerie-pg.XXXXXX)"
chmod 755 "$dir"
[ "$(id -u)" = "0" ] && chown postgres "$dir"
port="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
as_pg_user "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
as_pg_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
echo "export PGTMP=$dir"
echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
