#!/bin/sh
# usb-serial-vm.sh: run a script on a controller that has a real USB serial
# adapter: a qemu guest with an emulated FTDI FT232 (qemu-xhci + usb-serial,
# 0403:6001) that Debian's kernel drives as /dev/ttyUSB0 through ftdi_sio,
# and this machine's own file system shared in read-only over 9p (the way
# virtme-ng does it), so the script runs this machine's orch binary there.
#
#   usb-serial-vm.sh check                  exit 0 if it can run here, else say why
#   usb-serial-vm.sh run --out DIR --sock SOCK --script FILE [--timeout SECS]
#
# The adapter's other end is the UNIX socket SOCK (qemu listens on it; write
# the "board's" console bytes into it; connect early: qemu attaches the
# adapter only while the socket has a peer). DIR (read-write, same path inside
# the guest) receives script.log and script.rc; FILE runs with /bin/sh in a
# chroot of the host's / with /dev, /proc, /sys, a tmpfs /tmp and DIR
# mounted. The guest powers off when FILE ends; SECS (default 150) bounds
# the whole run. TCG only: no KVM needed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
[ $# -gt 0 ] && shift
out= sock= script= timeout=150
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--sock) sock=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	*) echo "usb-serial-vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

kernel=$(ls /boot/vmlinuz-* 2>/dev/null | grep -v -- '-rt-' | sort -V | tail -n 1)
kver=${kernel#/boot/vmlinuz-}
moddir=/lib/modules/$kver
mods="usb-common usbcore xhci-hcd xhci-pci usbserial ftdi_sio virtio virtio_ring
	virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs
	fscache 9p"

check() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"; return 1; }
	[ -x /bin/busybox ] || { echo "busybox missing (apt-get install busybox-static)"; return 1; }
	[ -n "$kernel" ] && [ -r "$kernel" ] || { echo "no /boot/vmlinuz-* kernel"; return 1; }
	[ -f "$moddir/modules.dep" ] || { echo "no modules for $kver in $moddir"; return 1; }
	for m in ftdi_sio xhci-pci 9p 9pnet_virtio; do
		grep -qE "/$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" ||
			{ echo "kernel $kver has no $m module"; return 1; }
	done
	qemu-system-x86_64 -device help 2>/dev/null | grep -q '"usb-serial"' ||
		{ echo "this qemu has no usb-serial device"; return 1; }
	return 0
}

initramfs() {   # OUT.cpio.gz
	root=$(mktemp -d "${TMPDIR:-/tmp}/orch-usbvm.XXXXXX")
	mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/host" "$root/out" "$root/mod"
	cp /bin/busybox "$root/bin/busybox"
	for a in sh mount umount insmod sleep chroot poweroff mkdir cat echo ls; do
		ln -s busybox "$root/bin/$a"
	done
	for m in $mods; do
		p=$(grep -oE "^[^:]*/$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -n 1)
		p=${p%:}
		[ -n "$p" ] || continue
		case "$p" in
		*.xz) xz -dc "$moddir/$p" > "$root/mod/$m.ko" ;;
		*.zst) zstd -qdc "$moddir/$p" > "$root/mod/$m.ko" ;;
		*.gz) gzip -dc "$moddir/$p" > "$root/mod/$m.ko" ;;
		*) cp "$moddir/$p" "$root/mod/$m.ko" ;;
		esac
		echo "$m" >> "$root/mod/order"
	done
	cat > "$root/init" <<EOF
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for pass in 1 2; do for m in \$(cat /mod/order); do insmod /mod/\$m.ko 2>/dev/null; done; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host
mount -t 9p -o trans=virtio,version=9p2000.L out /out
mount --bind /dev /host/dev
mount -t devpts devpts /host/dev/pts 2>/dev/null
mount --bind /proc /host/proc
mount --bind /sys /host/sys
mount -t tmpfs tmp /host/tmp
mount -t tmpfs run /host/run
mkdir -p /host/run/lock
mkdir -p /host$out 2>/dev/null
mount --bind /out /host$out
i=0; while [ ! -e /dev/ttyUSB0 ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
[ -e /dev/ttyUSB0 ] || echo "usb-serial-vm: no /dev/ttyUSB0 after 60s"
echo "usb-serial-vm: running $script"
chroot /host /bin/sh -c 'cd $out && exec /bin/sh $script' > /out/script.log 2>&1
echo \$? > /out/script.rc
echo "usb-serial-vm: done"
poweroff -f
EOF
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$1"
	rm -rf "$root"
}

run() {
	[ -n "$out" ] && [ -n "$sock" ] && [ -n "$script" ] ||
		{ echo "usage: usb-serial-vm.sh run --out DIR --sock SOCK --script FILE" >&2; exit 2; }
	why=$(check) || { echo "usb-serial-vm.sh: $why" >&2; exit 3; }
	out=$(realpath "$out")
	script=$(realpath "$script")
	rm -f "$out/script.rc" "$sock"
	initramfs "$out/usbvm.cpio.gz"
	timeout "$timeout" qemu-system-x86_64 -accel tcg -cpu max -m 512M -smp 1 \
		-kernel "$kernel" -initrd "$out/usbvm.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet" \
		-display none -monitor none -vga none -nodefaults -no-reboot \
		-serial "file:$out/console.log" \
		-device qemu-xhci,id=xhci \
		-chardev "socket,id=c0,path=$sock,server=on,wait=off" \
		-device usb-serial,bus=xhci.0,chardev=c0 \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev "local,id=out,path=$out,security_model=none" \
		-device virtio-9p-pci,fsdev=out,mount_tag=out \
		> "$out/qemu.log" 2>&1 || true
	[ -f "$out/script.rc" ] || { echo "usb-serial-vm.sh: the guest did not finish (see $out/console.log)" >&2; exit 3; }
	exit "$(cat "$out/script.rc")"
}

case "$cmd" in
check) check ;;
run) run ;;
*) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
