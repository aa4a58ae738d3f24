#!/bin/sh
# Cross-builds the remote-bench programs for the boards' architectures:
#   scripts/build-remote-bench.sh OUT_DIR [ARCH...]
# ARCH is x86_64, i586, armv5, armhf or aarch64 (default: all of them).
# Leaves OUT_DIR/<arch>/remote-bench-{cpu,mem,disk,net,crypto} (static,
# stripped) and OUT_DIR/<arch>/SHA256SUMS; build trees go to OUT_DIR/.build.
# Needs the toolchains listed in remote-bench/README.md; exits 1 naming the
# missing one. Prints each binary's size (the budget is 100 KB).
set -eu

usage() {
	echo "usage: $0 OUT_DIR [x86_64|i586|armv5|armhf|aarch64 ...]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
case "$1" in -h|--help) echo "usage: $0 OUT_DIR [ARCH...]"; exit 0 ;; -*) usage ;; esac
out=$1
shift
[ $# -gt 0 ] || set -- x86_64 i586 armv5 armhf aarch64

src=$(cd "$(dirname "$0")/.." && pwd)
budget=102400
programs="cpu mem disk net crypto"

# compiler and musl specs file of an arch, from its toolchain file
toolchain_ok() {
	tc=$src/cmake/toolchains/$1.cmake
	[ -f "$tc" ] || { echo "unknown arch '$1'" >&2; return 1; }
	cc=$(sed -n 's/^set(CMAKE_C_COMPILER \(.*\))$/\1/p' "$tc")
	specs=$(sed -n 's/^set(RB_MUSL_SPECS \(.*\))$/\1/p' "$tc")
	command -v "$cc" >/dev/null 2>&1 || { echo "$1: compiler $cc not installed" >&2; return 1; }
	if [ -n "$specs" ] && [ ! -f "$specs" ]; then
		echo "$1: $specs missing (musl-dev for this arch not installed)" >&2
		return 1
	fi
}

for arch in "$@"; do
	toolchain_ok "$arch" || exit 1
done

mkdir -p "$out"
status=0
for arch in "$@"; do
	build=$out/.build/$arch
	dest=$out/$arch
	mkdir -p "$build"
	cmake -S "$src/remote-bench" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/$arch.cmake" >"$build.log" 2>&1 ||
		{ cat "$build.log" >&2; exit 1; }
	cmake --build "$build" >>"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
	mkdir -p "$dest"
	for p in $programs; do
		cp "$build/remote-bench-$p" "$dest/remote-bench-$p.tmp"
		mv "$dest/remote-bench-$p.tmp" "$dest/remote-bench-$p"
	done
	(cd "$dest" && sha256sum $(for p in $programs; do echo "remote-bench-$p"; done) >SHA256SUMS.tmp &&
		mv SHA256SUMS.tmp SHA256SUMS)
	for p in $programs; do
		size=$(wc -c <"$dest/remote-bench-$p")
		note=
		if [ "$size" -gt "$budget" ]; then
			note="  OVER the $budget byte budget"
			status=1
		fi
		printf '%-8s remote-bench-%-7s %7d bytes%s\n' "$arch" "$p" "$size" "$note"
	done
done
exit $status
