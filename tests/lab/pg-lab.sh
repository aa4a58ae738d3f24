#!/bin/sh
# A private PostgreSQL server for tests and demos: Debian's server package,
# a cluster made with initdb in DIR/data by an unprivileged user, listening
# on HOST:PORT (loopback) and on a unix socket in DIR/sock (when that path
# is short enough), with one database made for the caller. Nothing outside
# DIR is touched but the system user below.
#
#   pg-lab.sh up     [--dir DIR] [--host 127.0.140.1] [--port 55430] [--db orch]
#   pg-lab.sh createdb [--dir DIR] NAME     another database in the running lab
#   pg-lab.sh url    [--dir DIR] [--db NAME]
#   pg-lab.sh restart [--dir DIR]                a fast stop (sessions end), then start
#   pg-lab.sh down   [--dir DIR]
#   pg-lab.sh status [--dir DIR]
#
# `up` prints the database URL on stdout (postgresql://orch@HOST:PORT/DB) and
# writes it, with the rest of the lab's settings, to DIR/pg.env.
# As root the server runs as the system user `orchpg` (made when missing);
# otherwise as the current user. The database user is `orch`, a superuser
# that logs in without a password (trust) from loopback and the socket
# only: a lab for tests, never for data that matters.
# The postmaster is left to the caller's nearest subreaper
# (tests/support/pg.c makes the test process one and reaps it); `down` stops
# it fast, kills what is left after 10 s, and waits until it is gone.
set -eu
PATH=$PATH:/usr/sbin:/sbin

PG_USER_ROOT=orchpg
DB_USER=orch

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "pg-lab: $*" >&2; exit 1; }
say() { echo "pg-lab: $*" >&2; }

usage() {
	sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
dir=$repo/.pglab
host=127.0.140.1
port=55430
db=orch
name=
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--host) host=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--db) db=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) die "unknown option '$1'" ;;
	*) [ -z "$name" ] || die "unexpected argument '$1'"; name=$1; shift ;;
	esac
done
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac

# The newest installed server's programs (Debian keeps them out of PATH).
pg_bindir() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
		[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	done
	command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
	die "no PostgreSQL server found (scripts/install-deps.sh lab installs postgresql)"
}

is_root() { [ "$(id -u)" = 0 ]; }

# Runs a command as the server's user.
as_pg() {
	if is_root; then
		runuser -u "$PG_USER_ROOT" -- "$@"
	else
		"$@"
	fi
}

ensure_user() {
	is_root || return 0
	id "$PG_USER_ROOT" >/dev/null 2>&1 && return 0
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
		"$PG_USER_ROOT" 2>/dev/null || id "$PG_USER_ROOT" >/dev/null 2>&1 ||
		die "cannot create the system user '$PG_USER_ROOT'"
}

# The socket directory, or nothing when DIR is too deep for a socket path
# (108 bytes with ".s.PGSQL.PORT" appended).
sock_dir() {
	s=$dir/sock
	[ ${#s} -le 80 ] && echo "$s"
	return 0
}

url_for() { echo "postgresql://$DB_USER@$host:$port/$1"; }

postmaster_pid() {
	[ -f "$dir/data/postmaster.pid" ] && head -n 1 "$dir/data/postmaster.pid"
	return 0
}

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

load_env() {
	[ -f "$dir/pg.env" ] || die "no lab in $dir (pg-lab.sh up first)"
	host=$(sed -n 's/^PG_HOST=//p' "$dir/pg.env")
	port=$(sed -n 's/^PG_PORT=//p' "$dir/pg.env")
}

psql_lab() {
	"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U "$DB_USER" "$@"
}

lab_createdb() {
	out=$(psql_lab -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'") ||
		die "cannot reach the server on $host:$port"
	[ "$out" = 1 ] || psql_lab -d postgres -c "CREATE DATABASE \"$1\"" >/dev/null ||
		die "cannot create database '$1'"
}

lab_down() {
	[ -d "$dir/data" ] || return 0
	pid=$(postmaster_pid)
	if alive "$pid"; then
		as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 10 stop >/dev/null 2>&1 || true
		if alive "$pid"; then
			say "postmaster $pid did not stop in 10 s: killing it"
			kill -KILL "$pid" 2>/dev/null || true
			pkill -KILL -P "$pid" 2>/dev/null || true
		fi
		n=0
		while alive "$pid" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		alive "$pid" && die "postmaster $pid is still running"
	fi
	return 0
}

lab_up() {
	case $port in ''|*[!0-9]*) die "bad port '$port'" ;; esac
	case $db in ''|*[!A-Za-z0-9_]*) die "bad database name '$db' (letters, digits, _)" ;; esac
	if [ -f "$dir/data/postmaster.pid" ] && alive "$(postmaster_pid)"; then
		die "a server is already running in $dir (pg-lab.sh down first)"
	fi
	ensure_user
	rm -rf "$dir/data" "$dir/sock"
	mkdir -p "$dir/data"
	chmod 0711 "$dir"
	sock=$(sock_dir)
	[ -z "$sock" ] || mkdir -p "$sock"
	if is_root; then
		chown "$PG_USER_ROOT" "$dir/data" ${sock:+"$sock"}
		as_pg test -x "$dir" ||
			die "user '$PG_USER_ROOT' cannot reach $dir: make its parent folders searchable (chmod o+x)"
	fi
	chmod 0700 "$dir/data"
	: >"$dir/server.log"
	[ -z "$sock" ] || chmod 0755 "$sock"
	is_root && chown "$PG_USER_ROOT" "$dir/server.log"
	as_pg "$bindir/initdb" -D "$dir/data" -U "$DB_USER" --auth=trust --no-sync \
		--no-instructions -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; die "initdb failed"; }
	cat >"$dir/data/pg_hba.conf" <<-EOF
	# pg-lab.sh: the lab's user, from the socket and loopback only
	local all $DB_USER trust
	host  all $DB_USER 127.0.0.0/8 trust
	host  all $DB_USER ::1/128 trust
	EOF
	cat >>"$dir/data/postgresql.conf" <<-EOF
	# pg-lab.sh
	listen_addresses = '$host'
	port = $port
	unix_socket_directories = '${sock}'
	fsync = off
	synchronous_commit = off
	full_page_writes = off
	shared_buffers = 16MB
	max_connections = 60
	logging_collector = off
	EOF
	trap 'lab_down' EXIT
	as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null 2>&1 ||
		{ tail -n 20 "$dir/server.log" >&2; die "the server did not start on $host:$port"; }
	lab_createdb "$db"
	trap - EXIT
	cat >"$dir/pg.env" <<-EOF
	PG_HOST=$host
	PG_PORT=$port
	PG_SOCKET_DIR=$sock
	PG_USER=$DB_USER
	PG_DB=$db
	PG_URL=$(url_for "$db")
	PG_PID=$(postmaster_pid)
	EOF
	url_for "$db"
}

bindir=$(pg_bindir)
case $cmd in
up) lab_up ;;
down) lab_down; rm -f "$dir/pg.env" ;;
restart)
	load_env
	as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 10 stop >/dev/null 2>&1 ||
		die "the server in $dir did not stop"
	as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null 2>&1 ||
		{ tail -n 20 "$dir/server.log" >&2; die "the server did not start again"; }
	sed -i "s/^PG_PID=.*/PG_PID=$(postmaster_pid)/" "$dir/pg.env" ;;
createdb)
	[ -n "$name" ] || die "createdb needs a NAME"
	case $name in *[!A-Za-z0-9_]*) die "bad database name '$name' (letters, digits, _)" ;; esac
	load_env; lab_createdb "$name"; url_for "$name" ;;
url) load_env; url_for "${name:-$db}" ;;
status)
	pid=$(postmaster_pid)
	if alive "$pid"; then load_env; echo "running (pid $pid) $(url_for "$db")"; else echo "stopped"; exit 1; fi ;;
*) usage ;;
esac
