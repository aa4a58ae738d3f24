#!/bin/sh
# Installs what orch needs on Debian 12, as root (or through sudo):
#   install-deps.sh [build] [lab] [qemu] [netns] [cross] [report] [bench] | all
# build: compiler, CMake, musl-tools (the static host remote-bench), the
# libraries orch links, python3 (the
# remote-bench output checks, tests/remote-bench/rbcheck.py) and the package
# tools (dpkg-dev, man-db for the .deb test); lab: the servers its
# tests start (OpenSSH, dropbear, socat, ser2net, iperf3, the PostgreSQL
# server for tests/lab/pg-lab.sh, picocom as a second console user); qemu: a kernel
# booting under qemu-system for serial boot timing (e2fsprogs: its --disk;
# ecryptfs-utils and keyutils: its --ecryptfs);
# netns: wireguard-go for the multi-host lab; cross: musl cross toolchains and
# qemu-user for remote-bench and the emulated ARM board (tests/lab/arm-board.sh);
# report: headless Chromium and xmllint for the report checks; bench: the
# reference tools the benchmarks are compared against (mbw, grabserial,
# hyperfine, pssh, fio, bonnie++, openssl speed, iperf3 in namespaces).
set -eu

[ $# -gt 0 ] || set -- build lab
[ "$*" = all ] && set -- build lab qemu netns cross report bench

pkgs=""
arches=""
for group in "$@"; do
	case $group in
	build) pkgs="$pkgs build-essential cmake pkg-config git ca-certificates
		libyaml-dev libssh-dev libserialport-dev libjansson-dev libcmocka-dev zlib1g-dev
		libsqlite3-dev libpq-dev libpcre2-dev libssl-dev python3-yaml python3-jsonschema
		valgrind clang time strace python3 dpkg-dev man-db groff-base musl-tools" ;;
	lab) pkgs="$pkgs openssh-server openssh-client dropbear-bin socat ser2net
		iperf3 procps psmisc iproute2 passwd postgresql picocom" ;;
	qemu) pkgs="$pkgs qemu-system-x86 busybox-static cpio gzip xz-utils
		linux-image-amd64 dropbear-bin e2fsprogs ecryptfs-utils keyutils" ;;
	netns) pkgs="$pkgs wireguard-go wireguard-tools iproute2 iperf3" ;;
	cross) pkgs="$pkgs musl-tools gcc-i686-linux-gnu gcc-arm-linux-gnueabi
		gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu qemu-user-static
		musl-dev:i386 musl-dev:armel musl-dev:armhf musl-dev:arm64"
		arches="i386 armel armhf arm64" ;;
	report) pkgs="$pkgs chromium libxml2-utils python3-junitparser" ;;
	bench) pkgs="$pkgs mbw grabserial hyperfine pssh fio bonnie++ openssl iperf3 iproute2" ;;
	*) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
	esac
done

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
for a in $arches; do
	dpkg --print-foreign-architectures | grep -qx "$a" || $sudo dpkg --add-architecture "$a"
done
export DEBIAN_FRONTEND=noninteractive
# A mirror caught mid-sync fails one index ("File has unexpected size"):
# try again a few times, then go on with what was fetched; the install
# below still fails clearly if a package is really missing.
for try in 1 2 3; do
	$sudo apt-get update -q && break
	echo "install-deps: apt-get update failed (try $try of 3)" >&2
	[ $try = 3 ] || sleep $((try * 10))
done
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $pkgs
