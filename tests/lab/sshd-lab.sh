#!/bin/sh
# A rack of SSH "boards" on loopback: N OpenSSH servers on BASE.1..N, M
# dropbear servers (no sftp-server) on BASE.200.., and optionally one OpenSSH
# board that takes passwords on BASE.100, all on the same port. Everything
# lives in DIR: host keys, one client key (DIR/id_ed25519), authorized_keys,
# known_hosts, an ssh_config with Host aliases lab1.., logs and pid files.
#
#   sshd-lab.sh up     [--dir DIR] [--boards N] [--dropbear M] [--base 127.0.1]
#                      [--port P] [--password]
#   sshd-lab.sh down   [--dir DIR]
#   sshd-lab.sh status [--dir DIR]
#
# As root the boards log in a system user `orchlab` (shell /bin/sh: root's
# .bashrc is slow here); otherwise the current user, and no password board.
# LAB_DROPBEAR_ARGS (environment): more options for every dropbear, e.g.
# "-W 4194304" for a large receive window.
# dropbear has no AuthorizedKeysFile option, so its key goes into the lab
# user's ~/.ssh/authorized_keys (one line per lab, removed again by `down`).
#
# SSHD_LAB_BASE: the default of --base (127.0.1).
# SSHD_LAB_LOGLEVEL sets the OpenSSH boards' LogLevel (default INFO; VERBOSE
# logs every session a client opens). SSHD_LAB_EXTRA: more lines for every
# OpenSSH board's sshd_config (a ForceCommand that makes a board slow).
#
# Daemons are left to the caller's nearest subreaper (tests/support/lab.c makes
# the test process one and reaps them); `down` kills each daemon and all its
# descendants and waits until they are dead.
set -eu
PATH=$PATH:/usr/sbin:/sbin

SSHD=/usr/sbin/sshd
SFTP_SERVER=/usr/lib/openssh/sftp-server
LAB_USER_ROOT=orchlab
LAB_PASSWORD=orchlab-lab-password

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "sshd-lab: $*" >&2; exit 1; }
say() { echo "sshd-lab: $*" >&2; }

usage() {
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
dir=$repo/.lab
boards=8
dropbears=1
base=${SSHD_LAB_BASE:-127.0.1}
port=2222
password=0
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--boards) boards=$2; shift 2 ;;
	--dropbear) dropbears=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--password) password=1; shift ;;
	-h|--help) usage ;;
	*) die "unknown option '$1'" ;;
	esac
done
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac

is_root() { [ "$(id -u)" = 0 ]; }

# "pid state ppid" for the given /proc/PID/stat files (all when none), one
# cat and one awk: forking per process makes a 30-board down take seconds.
proc_table() {
	if [ $# -eq 0 ]; then
		set -- /proc/[0-9]*/stat
	fi
	cat "$@" 2>/dev/null | awk '{
		pid = substr($0, 1, index($0, " (") - 1)
		sub(/^.*\) /, "")
		print pid, $1, $2
	}'
}

# Alive and not a zombie.
alive() {
	proc_table "/proc/$1/stat" | awk '$2 != "Z" && $2 != "X" { f = 1 } END { exit !f }'
}

# The given pids and all their descendants.
tree_of() {
	proc_table | awk -v roots="$*" '
		{ parent[$1] = $3 }
		END {
			n = split(roots, r, " ")
			for (i = 1; i <= n; i++) inset[r[i]] = 1
			do {
				grew = 0
				for (p in parent)
					if (!(p in inset) && (parent[p] in inset)) { inset[p] = 1; grew = 1 }
			} while (grew)
			for (p in inset) print p
		}'
}

# Pids of the list still running (zombies are dead: their parent reaps them).
still_alive() {
	files=
	for p in "$@"; do files="$files /proc/$p/stat"; done
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	proc_table $files | awk '$2 != "Z" && $2 != "X" { print $1 }'
}

kill_all() {
	pids=$(tree_of "$@")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null || true
	i=0
	while [ $i -lt 30 ]; do
		# shellcheck disable=SC2086
		left=$(still_alive $pids)
		[ -z "$left" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null || true
	sleep 0.1
}

lab_down() {
	[ -d "$dir" ] || return 0
	roots=
	for pidfile in "$dir"/*/daemon.pid; do
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		if [ -n "$pid" ] && alive "$pid"; then
			roots="$roots $pid"
		fi
	done
	if [ -n "$roots" ]; then
		# shellcheck disable=SC2086
		kill_all $roots
	fi
	rm -f "$dir"/*/daemon.pid
	if [ -f "$dir/lab.env" ]; then
		home=$(sed -n 's/^LAB_HOME=//p' "$dir/lab.env")
		if [ -n "$home" ] && [ -f "$home/.ssh/authorized_keys" ] && [ -f "$dir/id_ed25519.pub" ]; then
			remove_dropbear_key "$home"
		fi
		rm -f "$dir/lab.env"
	fi
}

# dropbear keys: one line per lab, edited under a lock since labs run in parallel.
add_dropbear_key() {
	home=$1
	mkdir -p "$home/.ssh"
	chmod 700 "$home/.ssh"
	(
		flock 9
		touch "$home/.ssh/authorized_keys"
		if ! grep -qxF "$(cat "$dir/id_ed25519.pub")" "$home/.ssh/authorized_keys"; then
			cat "$dir/id_ed25519.pub" >>"$home/.ssh/authorized_keys"
		fi
		chmod 600 "$home/.ssh/authorized_keys"
		chown -R "$lab_user" "$home/.ssh"
	) 9>"$home/.ssh/.orch-lab.lock"
}

remove_dropbear_key() {
	home=$1
	(
		flock 9
		ak=$home/.ssh/authorized_keys
		grep -vxF "$(cat "$dir/id_ed25519.pub")" "$ak" >"$ak.orch-lab" || true
		chown "$(stat -c %u "$ak")" "$ak.orch-lab"
		chmod 600 "$ak.orch-lab"
		mv "$ak.orch-lab" "$ak"
	) 9>"$home/.ssh/.orch-lab.lock"
}

ensure_lab_user() {
	if is_root; then
		lab_user=$LAB_USER_ROOT
		if ! getent passwd "$lab_user" >/dev/null; then
			useradd --system --shell /bin/sh --create-home \
				--home-dir /var/lib/$lab_user "$lab_user" ||
				die "cannot create user $lab_user"
		fi
		# A locked account ('!') is refused by sshd even for keys.
		if [ "$password" = 1 ]; then
			echo "$lab_user:$LAB_PASSWORD" | chpasswd
		elif getent shadow "$lab_user" | cut -d: -f2 | grep -q '^!'; then
			usermod -p '*' "$lab_user"
		fi
		lab_home=$(getent passwd "$lab_user" | cut -d: -f6)
		mkdir -p "$lab_home"
		chown "$lab_user" "$lab_home"
	else
		lab_user=$(id -un)
		lab_home=$HOME
		if [ "$password" = 1 ]; then
			die "--password needs root (it sets the lab user's password)"
		fi
	fi
}

wait_listening() {
	log=$1
	pid=$2
	i=0
	while [ $i -lt 100 ]; do
		grep -q "$3" "$log" 2>/dev/null && return 0
		alive "$pid" || { cat "$log" >&2; die "server died: see $log"; }
		sleep 0.05
		i=$((i + 1))
	done
	cat "$log" >&2
	die "server not ready after 5 s: see $log"
}

write_sshd_config() {
	bdir=$1
	addr=$2
	pwauth=$3
	cat >"$bdir/sshd_config" <<EOF
# orch lab board $(basename "$bdir"), written by sshd-lab.sh
ListenAddress $addr:$port
HostKey $bdir/ssh_host_ed25519_key
AuthorizedKeysFile $dir/authorized_keys
PidFile $bdir/sshd.pid
UsePAM no
StrictModes no
PasswordAuthentication $pwauth
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $lab_user
MaxStartups 200:30:400
MaxSessions 100
LogLevel ${SSHD_LAB_LOGLEVEL:-INFO}
Subsystem sftp $SFTP_SERVER
${SSHD_LAB_EXTRA:-}
EOF
}

start_openssh() {
	name=$1
	addr=$2
	pwauth=$3
	bdir=$dir/$name
	mkdir -p "$bdir"
	[ -f "$bdir/ssh_host_ed25519_key" ] ||
		ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$bdir/ssh_host_ed25519_key"
	write_sshd_config "$bdir" "$addr" "$pwauth"
	: >"$bdir/daemon.log"
	"$SSHD" -D -e -f "$bdir/sshd_config" </dev/null >>"$bdir/daemon.log" 2>&1 &
	echo $! >"$bdir/daemon.pid"
	echo "$addr:$port" >"$bdir/address"
	echo "[$addr]:$port $(cut -d' ' -f1,2 "$bdir/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts.new"
	started="$started $name:$addr:$!"
}

start_dropbear() {
	name=$1
	addr=$2
	bdir=$dir/$name
	mkdir -p "$bdir"
	[ -f "$bdir/dropbear_ed25519_host_key" ] ||
		dropbearkey -t ed25519 -f "$bdir/dropbear_ed25519_host_key" >/dev/null 2>&1
	: >"$bdir/daemon.log"
	# shellcheck disable=SC2086 # LAB_DROPBEAR_ARGS is a list of options
	dropbear -F -E -s -r "$bdir/dropbear_ed25519_host_key" -p "$addr:$port" \
		-P "$bdir/dropbear.pid" ${LAB_DROPBEAR_ARGS:-} </dev/null >>"$bdir/daemon.log" 2>&1 &
	echo $! >"$bdir/daemon.pid"
	echo "$addr:$port (dropbear)" >"$bdir/address"
	key=$(dropbearkey -y -f "$bdir/dropbear_ed25519_host_key" 2>/dev/null | grep '^ssh-ed25519' | cut -d' ' -f1,2)
	echo "[$addr]:$port $key" >>"$dir/known_hosts.new"
	started="$started $name:$addr:$!"
}

lab_up() {
	command -v ssh-keygen >/dev/null || die "ssh-keygen missing (apt-get install openssh-client)"
	[ -x "$SSHD" ] || die "$SSHD missing (apt-get install openssh-server)"
	if [ "$dropbears" -gt 0 ]; then
		command -v dropbear >/dev/null || die "dropbear missing (apt-get install dropbear-bin)"
	fi
	[ "$boards" -ge 1 ] && [ "$boards" -le 99 ] || die "--boards must be 1..99"
	[ "$dropbears" -ge 0 ] && [ "$dropbears" -le 54 ] || die "--dropbear must be 0..54"

	# Up again: restart cleanly, keeping the keys.
	lab_down
	# A board that fails to start takes the others down with it, and so does
	# a signal (dash runs no EXIT trap when a signal kills it: exit instead).
	trap 'lab_down' EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	ensure_lab_user
	is_root && mkdir -p -m755 /run/sshd
	mkdir -p "$dir"
	chmod 755 "$dir"
	[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "orch-lab" -f "$dir/id_ed25519"
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	chmod 644 "$dir/authorized_keys"
	if is_root && ! runuser -u "$lab_user" -- test -r "$dir/authorized_keys"; then
		die "$lab_user cannot read $dir/authorized_keys: make every parent of $dir searchable (chmod o+x)"
	fi
	cat >"$dir/lab.env" <<EOF
LAB_DIR=$dir
LAB_USER=$lab_user
LAB_HOME=$lab_home
LAB_BASE=$base
LAB_PORT=$port
LAB_BOARDS=$boards
LAB_DROPBEAR=$dropbears
EOF
	if [ "$password" = 1 ]; then
		echo "LAB_PASSWORD=$LAB_PASSWORD" >>"$dir/lab.env"
	fi
	if [ "$dropbears" -gt 0 ]; then
		add_dropbear_key "$lab_home"
	fi

	: >"$dir/known_hosts.new"
	started=
	i=1
	while [ $i -le "$boards" ]; do
		start_openssh "board$i" "$base.$i" no
		i=$((i + 1))
	done
	if [ "$password" = 1 ]; then
		start_openssh password1 "$base.100" yes
	fi
	i=1
	while [ $i -le "$dropbears" ]; do
		start_dropbear "dropbear$i" "$base.$((199 + i))"
		i=$((i + 1))
	done
	# labproxy: board1's server spoken to through `ProxyCommand sshd -i`.
	echo "labproxy $(cut -d' ' -f1,2 "$dir/board1/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts.new"
	mv "$dir/known_hosts.new" "$dir/known_hosts"
	write_ssh_config

	for s in $started; do
		name=${s%%:*}; rest=${s#*:}
		pid=${rest#*:}
		case $name in
		dropbear*) ready="Not backgrounding" ;;
		*) ready="Server listening on" ;;
		esac
		wait_listening "$dir/$name/daemon.log" "$pid" "$ready"
	done
	# dropbear says "Not backgrounding" before it binds: check the port too.
	for s in $started; do
		name=${s%%:*}; rest=${s#*:}; addr=${rest%%:*}
		case $name in dropbear*) wait_port "$addr" "$dir/$name/daemon.log" ;; esac
	done
	trap - EXIT HUP INT TERM
	summary
}

# Whether ADDR:PORT is listening, from /proc/net/tcp (little-endian hex).
listening() {
	hex=$(echo "$1" | awk -F. '{ printf "%02X%02X%02X%02X", $4, $3, $2, $1 }')
	hex=$hex:$(printf '%04X' "$port")
	awk -v a="$hex" '$2 == a && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp
}

wait_port() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q "Failed listening" "$2" && { cat "$2" >&2; die "dropbear failed: see $2"; }
		listening "$1" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	die "dropbear on $1:$port not listening after 5 s"
}

write_ssh_config() {
	{
		echo "# orch lab: ssh -F $dir/ssh_config lab1"
		i=1
		while [ $i -le "$boards" ]; do
			printf 'Host lab%d\n  HostName %s\n  Port %s\n  User %s\n' $i "$base.$i" "$port" "$lab_user"
			printf '  IdentityFile %s/id_ed25519\n  UserKnownHostsFile %s/known_hosts\n' "$dir" "$dir"
			printf '  StrictHostKeyChecking yes\n  BatchMode yes\n\n'
			i=$((i + 1))
		done
		i=1
		while [ $i -le "$dropbears" ]; do
			printf 'Host labdropbear%d\n  HostName %s\n  Port %s\n  User %s\n' $i "$base.$((199 + i))" "$port" "$lab_user"
			printf '  IdentityFile %s/id_ed25519\n  UserKnownHostsFile %s/known_hosts\n\n' "$dir" "$dir"
			i=$((i + 1))
		done
		# labjump: board 2 through board 1 (libssh 0.10 turns ProxyJump into
		# `ssh -W`, which reads ~/.ssh/config: put DIR/bin, whose ssh adds
		# -F DIR/ssh_config, first in PATH).
		printf 'Host labjump\n  HostName %s\n  Port %s\n  User %s\n  ProxyJump lab1\n' \
			"$base.$((boards > 1 ? 2 : 1))" "$port" "$lab_user"
		printf '  IdentityFile %s/id_ed25519\n  UserKnownHostsFile %s/known_hosts\n\n' "$dir" "$dir"
		printf 'Host labproxy\n  User %s\n  ProxyCommand %s -i -f %s/board1/sshd_config -E %s/board1/proxy.log\n' \
			"$lab_user" "$SSHD" "$dir" "$dir"
		printf '  IdentityFile %s/id_ed25519\n  UserKnownHostsFile %s/known_hosts\n' "$dir" "$dir"
	} >"$dir/ssh_config"
	mkdir -p "$dir/bin"
	printf '#!/bin/sh\nexec %s -F %s/ssh_config "$@"\n' "$(command -v ssh)" "$dir" >"$dir/bin/ssh"
	chmod 755 "$dir/bin/ssh"
}

summary() {
	echo "lab up in $dir: user $lab_user, port $port"
	for d in "$dir"/*/daemon.pid; do
		[ -f "$d" ] || continue
		b=$(basename "$(dirname "$d")")
		echo "  $b $(cat "$dir/$b/address") pid $(cat "$d")"
	done
	echo "  identity $dir/id_ed25519"
	echo "  known_hosts $dir/known_hosts"
	echo "  ssh_config $dir/ssh_config (Host lab1.., labdropbear1.., labproxy, labjump)"
	[ "$password" = 1 ] && echo "  password board $base.100:$port user $lab_user password in $dir/lab.env"
	return 0
}

lab_status() {
	[ -f "$dir/lab.env" ] || { echo "lab down ($dir)"; return 1; }
	rc=0
	for d in "$dir"/*/daemon.pid; do
		[ -f "$d" ] || continue
		b=$(basename "$(dirname "$d")")
		if alive "$(cat "$d")"; then
			echo "$b up (pid $(cat "$d"))"
		else
			echo "$b DOWN"
			rc=1
		fi
	done
	return $rc
}

case $cmd in
up) lab_up ;;
down) lab_down; echo "lab down ($dir)" ;;
status) lab_status ;;
*) usage ;;
esac
