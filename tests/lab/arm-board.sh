#!/bin/sh
# arm-board.sh: an "ARM board" without ARM hardware, for the ARM examples
# (scenarios/cjdns-rpi.yaml) and their test.
#
#   arm-board.sh up   [--dir DIR] [--addr A] [--port N] [--cpu CPU]
#   arm-board.sh down [--dir DIR]
#   arm-board.sh check            exit 0 if this machine can run one, else say why
#
# An OpenSSH server (root login with DIR/id_ed25519 on A:N, default
# 127.0.0.1:2298) runs inside its own user and mount namespaces
# (`unshare --user --mount`, Linux >= 6.7), which get a private binfmt_misc:
# there, and only there, ARM ELF files run through qemu-arm-static as CPU
# (default arm1176, the Raspberry Pi 1's ARMv6; QEMU_CPU in every session).
# Nothing is registered machine-wide. orch pushes the armv5 remote-bench
# programs (the inventory says arch: armv5) and they run "on the board".
# The board's shell and tools are the host's (x86-64): `uname -m` and
# /proc/cpuinfo say so, while `uname -m` of an ARM program says armv6l.
#
# The board has a home of its own (DIR/home, bind-mounted on /root inside
# the namespace) holding `cjdns`, a git repository with one commit: the
# "commit under test" a cjdns report names. `up` writes DIR/inventory.yaml
# (board `rpi`, workdir DIR/work) and DIR/known_hosts. `down` stops the
# server (and with it the namespaces) and removes what `up` made but the
# key. Needs root (the user namespace maps the whole uid range, so sshd's
# privilege separation works), openssh-server, qemu-user-static, git.
set -eu

cmd=${1:-}
[ $# -gt 0 ] && shift
dir=${ORCH_LAB_ARM:-/tmp/orch-lab-arm}
addr=127.0.0.1
port=2298
cpu=arm1176
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) dir=$2; shift 2 ;;
	--addr) addr=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	*) echo "arm-board.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

die() { echo "arm-board.sh: $*" >&2; exit 3; }

# The binfmt_misc line handing 32-bit little-endian ARM ELF executables to
# qemu-arm-static; F: the interpreter is opened now, so it need not be
# visible from wherever the program runs.
binfmt_rule=':orcharm:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x28\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-arm-static:F'

check() {
	[ "$(id -u)" = 0 ] || { echo "needs root (a user namespace mapping every uid)"; return 1; }
	[ -x /usr/sbin/sshd ] || { echo "sshd missing (apt-get install openssh-server)"; return 1; }
	[ -x /usr/bin/qemu-arm-static ] || { echo "qemu-arm-static missing (apt-get install qemu-user-static)"; return 1; }
	command -v git >/dev/null || { echo "git missing (apt-get install git)"; return 1; }
	command -v unshare >/dev/null || { echo "unshare missing (util-linux)"; return 1; }
	# a private binfmt_misc takes Linux >= 6.7
	unshare --user --map-root-user --mount --propagation private \
		sh -c 'mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc' 2>/dev/null ||
		{ echo "no private binfmt_misc in a user namespace (Linux >= 6.7 needed, this is $(uname -r))"; return 1; }
	return 0
}

running() {
	[ -f "$dir/board.pid" ] && kill -0 "$(cat "$dir/board.pid")" 2>/dev/null
}

up() {
	why=$(check) || die "$why"
	running && die "already up (pid $(cat "$dir/board.pid")) in $dir"
	mkdir -p "$dir/home" "$dir/work" /run/sshd
	chmod 755 /run/sshd
	[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C arm-board -f "$dir/id_ed25519"
	rm -f "$dir/host_ed25519" "$dir/host_ed25519.pub"
	ssh-keygen -q -t ed25519 -N '' -C arm-board-host -f "$dir/host_ed25519"
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	echo "[$addr]:$port ssh-ed25519 $(awk '{print $2}' "$dir/host_ed25519.pub")" >"$dir/known_hosts"
	if [ ! -d "$dir/home/cjdns/.git" ]; then
		mkdir -p "$dir/home/cjdns"
		git -C "$dir/home/cjdns" init -q
		echo "the cjdns tree under test (lab stand-in)" >"$dir/home/cjdns/README"
		git -C "$dir/home/cjdns" add README
		git -C "$dir/home/cjdns" -c user.name=arm-board -c user.email=arm-board@localhost \
			commit -q -m "lab: the commit under test"
	fi
	cat >"$dir/sshd_config" <<EOF
ListenAddress $addr:$port
HostKey $dir/host_ed25519
AuthorizedKeysFile $dir/authorized_keys
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
MaxStartups 200:30:400
SetEnv QEMU_CPU=$cpu
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
	cat >"$dir/board.sh" <<EOF
#!/bin/sh
# Inside the board's namespaces: its binfmt_misc, its home, then sshd.
set -e
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
printf '%s' '$binfmt_rule' >/proc/sys/fs/binfmt_misc/register
mount --bind "$dir/home" /root
exec /usr/sbin/sshd -D -e -f "$dir/sshd_config"
EOF
	chmod 755 "$dir/board.sh"
	: >"$dir/sshd.log"
	rm -f "$dir/go"
	mkfifo "$dir/go"
	# Its own session (`down` stops it as one process group); it waits on
	# the fifo until the whole uid and gid range is mapped into its user
	# namespace (root writes the maps itself: no newuidmap needed), so that
	# sshd's privilege separation can switch to the sshd user.
	setsid unshare --user --mount --propagation private \
		sh -c 'read -r _ <"$1"; exec "$2"' board "$dir/go" "$dir/board.sh" \
		>"$dir/sshd.log" 2>&1 </dev/null &
	pid=$!
	echo $pid >"$dir/board.pid"
	i=0
	while [ "$(readlink /proc/$pid/ns/user 2>/dev/null)" = "$(readlink /proc/self/ns/user)" ]; do
		i=$((i + 1))
		[ $i -le 100 ] && kill -0 $pid 2>/dev/null || { down; die "unshare did not start"; }
		sleep 0.05
	done
	echo '0 0 4294967295' >/proc/$pid/uid_map
	echo '0 0 4294967295' >/proc/$pid/gid_map
	echo go >"$dir/go"
	rm -f "$dir/go"
	i=0
	while ! grep -q 'Server listening' "$dir/sshd.log"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! running; then
			cat "$dir/sshd.log" >&2
			down
			die "sshd did not start; see above"
		fi
		sleep 0.1
	done
	cat >"$dir/inventory.yaml" <<EOF
# written by tests/lab/arm-board.sh up --dir $dir
boards:
  rpi:
    arch: armv5
    tags: [arm, embedded]
    workdir: $dir/work
    ssh: { host: $addr, port: $port, user: root, identity: $dir/id_ed25519,
           known_hosts: $dir/known_hosts, host_key: strict, connect_timeout: 10s }
EOF
	echo "arm-board: up: ssh root@$addr -p $port (ARM programs run as $cpu); inventory $dir/inventory.yaml"
}

down() {
	if [ -f "$dir/board.pid" ]; then
		pid=$(cat "$dir/board.pid")
		kill -TERM "-$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
		kill -KILL "-$pid" 2>/dev/null || true
		rm -f "$dir/board.pid"
	fi
	rm -rf "$dir/work" "$dir/home" "$dir/inventory.yaml" "$dir/known_hosts" "$dir/sshd_config" \
		"$dir/board.sh" "$dir/authorized_keys" "$dir/host_ed25519" "$dir/host_ed25519.pub"
}

case "$cmd" in
up) up ;;
down) down ;;
check) check ;;
*) echo "usage: arm-board.sh up|down|check [--dir DIR] [--addr A] [--port N] [--cpu CPU]" >&2; exit 2 ;;
esac
