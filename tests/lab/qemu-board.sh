#!/bin/sh
# qemu-board.sh: a real Linux board in qemu for the serial and boot tests.
#
#   qemu-board.sh start  [--state DIR] [--ssh-port N] [--ssh-addr A] [--kernel VMLINUZ] [--accel tcg|kvm]
#                        [--no-net] [--disk SIZE [--ecryptfs]]
#   qemu-board.sh power  on|off|cycle [--state DIR]
#   qemu-board.sh stop   [--state DIR]
#   qemu-board.sh status [--state DIR]
#   qemu-board.sh check  [--ecryptfs]    exit 0 if qemu and a kernel are here (and
#                                        what --ecryptfs needs), else say why
#
# start builds the initramfs (mkinitramfs.sh) and starts qemu PAUSED, powered
# off: the serial console exists from then on at DIR/console (a symlink to
# qemu's pty), so a reader can attach before power-on and nothing is lost.
# `power on` is QMP cont, `power off` is stop + system_reset, `power cycle`
# is system_reset + cont. ssh: root@A (default 127.0.0.1) port N (default 2299) with
# DIR/id_ed25519; root's console password is "orchlab".
#
# --no-net: no network device at all, a serial-only board (console login,
# pushes over the console).
# --disk SIZE: a disk (virtio, raw file DIR/disk.img of SIZE, e.g. 128M,
# made anew with an ext2 file system) that the board mounts on /mnt/disk.
# --ecryptfs (with --disk): an eCryptfs folder over that disk too,
# /mnt/disk/.ecryptfs mounted on /mnt/secret at boot (the kernel's module,
# AES with a 16-byte key). Its passphrase key is made anew by each start
# with ecryptfs-add-passphrase in a keyring of its own (unshare --user,
# ecryptfs-utils and keyutils), read out with `keyctl pipe` and handed to
# the board in its initramfs (DIR/initramfs.cpio.gz, mode 0600, removed by
# stop), whose rcS inserts it with keyctl and deletes its copy.
# DIR defaults to $ORCH_LAB_QEMU or /tmp/orch-lab-qemu. KVM is off by default
# (it is unusable on the lab machines); TCG boots to login in ~8-20 s.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
[ $# -gt 0 ] && shift
state=${ORCH_LAB_QEMU:-/tmp/orch-lab-qemu}
ssh_port=2299
ssh_addr=127.0.0.1
kernel=
accel=${ORCH_LAB_ACCEL:-tcg}
power_arg=
net=1
disk=
ecryptfs=0
while [ $# -gt 0 ]; do
	case "$1" in
	--state) state=$2; shift 2 ;;
	--ssh-port) ssh_port=$2; shift 2 ;;
	--ssh-addr) ssh_addr=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--no-net) net=0; shift ;;
	--disk) disk=$2; shift 2 ;;
	--ecryptfs) ecryptfs=1; shift ;;
	on|off|cycle) power_arg=$1; shift ;;
	*) echo "qemu-board.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

die() { echo "qemu-board.sh: $*" >&2; exit 3; }

find_kernel() {
	if [ -n "$kernel" ]; then echo "$kernel"; return; fi
	ls /boot/vmlinuz-* 2>/dev/null | grep -v -- '-rt-' | sort -V | tail -n 1
}

check() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"; return 1; }
	command -v socat >/dev/null || { echo "socat missing (apt-get install socat)"; return 1; }
	[ -x /bin/busybox ] || { echo "busybox missing (apt-get install busybox-static)"; return 1; }
	k=$(find_kernel)
	[ -n "$k" ] && [ -r "$k" ] || { echo "no /boot/vmlinuz-* kernel (apt-get install linux-image-amd64)"; return 1; }
	[ $ecryptfs = 1 ] || return 0
	for t in unshare keyctl ecryptfs-add-passphrase; do
		command -v $t >/dev/null ||
			{ echo "$t missing for --ecryptfs (apt-get install ecryptfs-utils keyutils)"; return 1; }
	done
	grep -q '/ecryptfs\.ko' "/lib/modules/${k#/boot/vmlinuz-}/modules.dep" 2>/dev/null ||
		{ echo "no ecryptfs module for ${k#/boot/vmlinuz-} in /lib/modules"; return 1; }
	return 0
}

# An eCryptfs passphrase key made in a keyring of its own: its payload
# in DIR/ecryptfs.key (0600), its signature on stdout. The passphrase is
# random and lives only in this pipe.
ecryptfs_key() {
	rm -f "$state/ecryptfs.key"
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' |
		(umask 077; unshare --user sh -c '
		keyctl new_session >/dev/null && keyctl link @u @s || exit 1
		out=$(ecryptfs-add-passphrase - 2>&1) || { echo "$out" >&2; exit 1; }
		sig=$(printf "%s\n" "$out" | sed -n "s/.*sig \[\([0-9a-f]*\)\].*/\1/p")
		id=$(keyctl search @u user "$sig") || exit 1
		keyctl pipe "$id" > "$1" || exit 1
		echo "$sig"' sh "$state/ecryptfs.key") ||
		die "could not make an eCryptfs key (ecryptfs-add-passphrase in unshare --user)"
}

qmp() {
	# one QMP session: capabilities, then each argument as a command
	[ -S "$state/qmp.sock" ] || die "no QMP socket in $state: is the board started?"
	{
		echo '{"execute":"qmp_capabilities"}'
		for c in "$@"; do echo "{\"execute\":\"$c\"}"; done
	} | socat -t 1 - "UNIX-CONNECT:$state/qmp.sock"
}

running() {
	[ -f "$state/qemu.pid" ] && kill -0 "$(cat "$state/qemu.pid")" 2>/dev/null
}

start() {
	why=$(check) || die "$why"
	running && die "already running (pid $(cat "$state/qemu.pid")) in $state"
	[ $ecryptfs = 0 ] || [ -n "$disk" ] || die "--ecryptfs needs --disk SIZE (the folder is on the disk)"
	mkdir -p "$state"
	rm -f "$state/qmp.sock" "$state/console" "$state/qemu.pid"
	[ -f "$state/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$state/id_ed25519" >/dev/null
	k=$(find_kernel)
	kver=${k#/boot/vmlinuz-}
	set --
	if [ $ecryptfs = 1 ]; then
		sig=$(ecryptfs_key)
		set -- --ecryptfs-key "$state/ecryptfs.key" --ecryptfs-sig "$sig"
	fi
	rm -f "$state/initramfs.cpio.gz"
	(umask 077; "$here/mkinitramfs.sh" "$state/initramfs.cpio.gz" --kver "$kver" \
		--authorized-key "$state/id_ed25519.pub" "$@" >/dev/null) || {
		rm -f "$state/ecryptfs.key"; die "mkinitramfs.sh failed"; }
	rm -f "$state/ecryptfs.key"
	case "$accel" in
	kvm) accel_opts="-accel kvm -cpu host" ;;
	*) accel_opts="-accel tcg -cpu max" ;;
	esac
	net_opts="-netdev user,id=n0,hostfwd=tcp:$ssh_addr:$ssh_port-:22 -device virtio-net-pci,netdev=n0"
	[ $net = 1 ] || net_opts=
	disk_opts=
	if [ -n "$disk" ]; then
		command -v mkfs.ext2 >/dev/null || die "mkfs.ext2 missing (apt-get install e2fsprogs)"
		rm -f "$state/disk.img"
		truncate -s "$disk" "$state/disk.img" || die "bad --disk size '$disk'"
		mkfs.ext2 -q -F "$state/disk.img" >/dev/null || die "mkfs.ext2 of $state/disk.img failed"
		disk_opts="-drive file=$state/disk.img,if=virtio,format=raw"
	fi
	# shellcheck disable=SC2086
	qemu-system-x86_64 $accel_opts -m 256M -smp 1 $net_opts $disk_opts \
		-kernel "$k" -initrd "$state/initramfs.cpio.gz" \
		-append "console=ttyS0,115200 printk.time=1 panic=-1" \
		-display none -monitor none -vga none -nodefaults \
		-chardev pty,id=s0 -serial chardev:s0 \
		-qmp "unix:$state/qmp.sock,server=on,wait=off" \
		-pidfile "$state/qemu.pid" -daemonize -S \
		> "$state/qemu.log" 2>&1 || { cat "$state/qemu.log" >&2; die "qemu did not start"; }
	# qemu runs on its own from here: a failure or a signal below stops it.
	trap stop EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	i=0
	while [ ! -S "$state/qmp.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	pty=$(qmp query-chardev | grep -o 'pty:/dev/pts/[0-9]*' | head -n 1)
	pty=${pty#pty:}
	[ -n "$pty" ] || die "no pty in QMP query-chardev"
	ln -sfn "$pty" "$state/console"
	echo "$ssh_port" > "$state/ssh_port"
	trap - EXIT HUP INT TERM
	secret=
	[ $ecryptfs = 0 ] || secret=", eCryptfs on /mnt/secret"
	echo "console $state/console -> $pty, ssh $ssh_addr:$ssh_port$secret, powered off"
}

power() {
	running || die "not running (start it first)"
	case "$power_arg" in
	on) qmp cont >/dev/null ;;
	off) qmp stop system_reset >/dev/null ;;
	cycle) qmp system_reset cont >/dev/null ;;
	*) echo "usage: qemu-board.sh power on|off|cycle" >&2; exit 2 ;;
	esac
}

stop() {
	if running; then
		pid=$(cat "$state/qemu.pid")
		# qmp dies (exits the script) without its socket: check it first.
		if ! { [ -S "$state/qmp.sock" ] && qmp quit >/dev/null 2>&1; }; then
			kill "$pid" 2>/dev/null || true
		fi
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
	fi
	rm -f "$state/qmp.sock" "$state/console" "$state/qemu.pid" "$state/disk.img" \
		"$state/initramfs.cpio.gz" "$state/ecryptfs.key"
}

case "$cmd" in
start) start ;;
power) power ;;
stop) stop ;;
status) if running; then echo "running (pid $(cat "$state/qemu.pid")), console $state/console"; else echo "stopped"; exit 1; fi ;;
check) check ;;
*) sed -n '2,31p' "$0" >&2; exit 2 ;;
esac
