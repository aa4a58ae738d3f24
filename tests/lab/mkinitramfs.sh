#!/bin/sh
# mkinitramfs.sh: the initramfs of the qemu lab board (see qemu-board.sh).
#
#   mkinitramfs.sh OUT.cpio.gz [--kver VERSION] [--authorized-key FILE.pub]
#                  [--password PW] [--modules-dir DIR]
#                  [--ecryptfs-key FILE --ecryptfs-sig SIG [--ecryptfs-dir DIR]]
#
# busybox-static with its applets, busybox init with an rcS that announces
# recognisable phases on the console through /dev/kmsg (so each carries the
# kernel's printk timestamp):
#   orch-lab: mounting / orch-lab: starting udev / orch-lab: starting services
#   orch-lab: ready
# then a getty on ttyS0 ("orch-lab login:"; root's password is PW, default
# "orchlab": a lab board, not a secret). dropbear listens on port 22 of
# 10.0.2.15 (virtio-net, qemu user networking) with a host key made here;
# a virtio disk (/dev/vda, ext2, as qemu-board.sh --disk makes it) is
# mounted on /mnt/disk; /tmp and /dev/shm are tmpfs;
# FILE.pub, when given, is root's authorized_keys.
# With --ecryptfs-key (the payload of an eCryptfs passphrase key, as
# `keyctl pipe` reads it, and SIG its signature; qemu-board.sh --ecryptfs
# makes both per run) the board also gets ecryptfs.ko and keyctl: at boot
# rcS puts the key in root's keyring, deletes the file, and mounts
# /mnt/disk/.ecryptfs as eCryptfs (AES, 16-byte key) on DIR (default
# /mnt/secret). The initramfs then holds that key: keep it in a private
# folder and make a new key for each one.
set -eu

out=
kver=
authkey=
password=orchlab
ecr_key=
ecr_sig=
ecr_dir=/mnt/secret
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--authorized-key) authkey=$2; shift 2 ;;
	--password) password=$2; shift 2 ;;
	--ecryptfs-key) ecr_key=$2; shift 2 ;;
	--ecryptfs-sig) ecr_sig=$2; shift 2 ;;
	--ecryptfs-dir) ecr_dir=$2; shift 2 ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
	-*) echo "mkinitramfs.sh: unknown option $1" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
[ -n "$out" ] || { echo "usage: mkinitramfs.sh OUT.cpio.gz [--kver V] [--authorized-key F]" >&2; exit 2; }
[ -x /bin/busybox ] || { echo "mkinitramfs.sh: /bin/busybox missing (apt-get install busybox-static)" >&2; exit 3; }
ldd /bin/busybox >/dev/null 2>&1 && {
	echo "mkinitramfs.sh: /bin/busybox is not static (apt-get install busybox-static)" >&2; exit 3; }
if [ -z "$kver" ]; then
	kver=$(ls /lib/modules | grep -v -- '-rt-' | sort -V | tail -n 1)
fi
moddir=/lib/modules/$kver
out=$(realpath -m "$out")
[ -z "$authkey" ] || authkey=$(realpath "$authkey")
if [ -n "$ecr_key" ]; then
	[ -r "$ecr_key" ] || { echo "mkinitramfs.sh: cannot read the eCryptfs key $ecr_key" >&2; exit 3; }
	printf '%s\n' "$ecr_sig" | grep -qx '[0-9a-f]\{16\}' || {
		echo "mkinitramfs.sh: --ecryptfs-sig wants 16 hex digits, found '$ecr_sig'" >&2; exit 2; }
	case "$ecr_dir" in /?*) ;; *) echo "mkinitramfs.sh: --ecryptfs-dir wants an absolute path, found '$ecr_dir'" >&2; exit 2 ;; esac
	command -v keyctl >/dev/null || { echo "mkinitramfs.sh: keyctl missing (apt-get install keyutils)" >&2; exit 3; }
	grep -q '/ecryptfs\.ko' "$moddir/modules.dep" 2>/dev/null || {
		echo "mkinitramfs.sh: no ecryptfs module in $moddir" >&2; exit 3; }
	ecr_key=$(realpath "$ecr_key")
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/orch-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
# dash runs no EXIT trap when a signal kills it: exit instead.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$root"
mkdir -p bin sbin usr/bin usr/sbin etc/init.d etc/dropbear proc sys dev tmp root/.ssh \
	lib/modules var/log run
cp /bin/busybox bin/busybox
for applet in $(/bin/busybox --list-full); do
	[ -e "$applet" ] || ln -s /bin/busybox "$applet"
done
ln -s /bin/busybox init

# kernel modules for virtio-net and a virtio disk with ext2 (the ext4
# driver), and for eCryptfs (ecb: it wraps the file keys with ecb(aes)),
# in load order
modlist=
add_mod() {
	local line path deps d n
	line=$(grep -E "(^|/)$1\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" || true)
	[ -n "$line" ] || return 0
	path=${line%%:*}
	deps=${line#*:}
	for d in $deps; do
		n=$(basename "$d"); n=${n%%.ko*}
		add_mod "$n"
	done
	case " $modlist " in *" $path "*) return 0 ;; esac
	modlist="$modlist $path"
}
mods_ok=0
if [ -f "$moddir/modules.dep" ]; then
	mods="virtio_pci virtio_net virtio_blk crc32c_generic ext4"
	[ -z "$ecr_key" ] || mods="$mods ecb ecryptfs"
	for m in $mods; do add_mod $m; done
	for p in $modlist; do
		n=$(basename "$p"); n=${n%%.ko*}
		case "$p" in
		*.xz) xz -dc "$moddir/$p" > "lib/modules/$n.ko" ;;
		*.zst) zstd -qdc "$moddir/$p" > "lib/modules/$n.ko" ;;
		*.gz) gzip -dc "$moddir/$p" > "lib/modules/$n.ko" ;;
		*) cp "$moddir/$p" "lib/modules/$n.ko" ;;
		esac
		echo "$n" >> lib/modules/order
	done
	mods_ok=1
fi

# binaries of this machine with the libraries they need
copy_bin() {
	mkdir -p ".$(dirname "$2")"
	cp "$1" ".$2"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		mkdir -p ".$(dirname "$lib")"
		cp -L "$lib" ".$lib"
	done
}
if [ -n "$ecr_key" ]; then
	copy_bin "$(command -v keyctl)" /usr/bin/keyctl
	cp "$ecr_key" etc/ecryptfs.key
	chmod 600 etc/ecryptfs.key
	printf 'sig=%s\ndir=%s\n' "$ecr_sig" "$ecr_dir" > etc/ecryptfs.conf
fi

# dropbear and the libraries it needs
if [ -x /usr/sbin/dropbear ] && command -v dropbearkey >/dev/null; then
	cp /usr/sbin/dropbear usr/sbin/dropbear
	# and libm: a host remote-bench built against glibc (not musl) needs it
	for lib in $(ldd /usr/sbin/dropbear | grep -o '/[^ ]*') $(ls /lib/*/libm.so.6 2>/dev/null | head -n 1); do
		mkdir -p ".$(dirname "$lib")"
		cp -L "$lib" ".$lib"
	done
	dropbearkey -t ed25519 -f etc/dropbear/dropbear_ed25519_host_key >/dev/null 2>&1
	# libm too, like any glibc board: remote-bench built for the host (a
	# Debug build calls libm) runs there
	for lib in /lib/x86_64-linux-gnu/libm.so.6; do
		[ -e "$lib" ] || continue
		mkdir -p ".$(dirname "$lib")"
		cp -L "$lib" ".$lib"
	done
fi
if [ -n "$authkey" ]; then
	cp "$authkey" root/.ssh/authorized_keys
fi
chmod 700 root root/.ssh
[ -f root/.ssh/authorized_keys ] && chmod 600 root/.ssh/authorized_keys

hash=$(perl -e 'print crypt($ARGV[0], q($6$orchlab$))' "$password")
cat > etc/passwd <<EOF
root:x:0:0:root:/root:/bin/sh
EOF
cat > etc/shadow <<EOF
root:$hash:19000:0:99999:7:::
EOF
chmod 600 etc/shadow
echo 'root:x:0:' > etc/group
echo /bin/sh > etc/shells
echo orch-lab > etc/hostname
printf 'orch lab board\n' > etc/issue

cat > etc/inittab <<'EOF'
::sysinit:/etc/init.d/rcS
ttyS0::respawn:/sbin/getty -L 115200 ttyS0 vt100
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/umount -a -r
EOF

cat > etc/init.d/rcS <<'EOF'
#!/bin/sh
mount -t devtmpfs dev /dev 2>/dev/null
phase() { echo "orch-lab: $*" > /dev/kmsg; }
phase mounting
mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mkdir -p /dev/shm
mount -t tmpfs shm /dev/shm
hostname -F /etc/hostname
phase starting udev
if [ -f /lib/modules/order ]; then
	for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko 2>/dev/null; done
fi
mdev -s
if [ -b /dev/vda ]; then
	mkdir -p /mnt/disk
	mount -t ext2 /dev/vda /mnt/disk && phase "disk /dev/vda on /mnt/disk"
fi
# the key into root's keyring, its file gone, then the folder mounted
if [ -f /etc/ecryptfs.conf ]; then
	. /etc/ecryptfs.conf
	keyctl padd user "$sig" @u < /etc/ecryptfs.key >/dev/null
	rm -f /etc/ecryptfs.key
	mkdir -p /mnt/disk/.ecryptfs "$dir"
	if mount -t ecryptfs -o "ecryptfs_sig=$sig,ecryptfs_cipher=aes,ecryptfs_key_bytes=16" \
		/mnt/disk/.ecryptfs "$dir"; then
		phase "ecryptfs /mnt/disk/.ecryptfs on $dir"
	else
		phase "ecryptfs: mounting $dir failed"
	fi
fi
phase starting services
ip link set lo up
if ip link set eth0 up 2>/dev/null; then
	ip addr add 10.0.2.15/24 dev eth0
	ip route add default via 10.0.2.2
fi
[ -x /usr/sbin/dropbear ] && /usr/sbin/dropbear -r /etc/dropbear/dropbear_ed25519_host_key -p 22 2>/tmp/dropbear.log
phase ready
EOF
chmod 755 etc/init.d/rcS

find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
[ $mods_ok = 1 ] || echo "mkinitramfs.sh: warning: no modules for $kver: no network in the guest" >&2
echo "$out"
