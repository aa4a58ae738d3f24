#!/bin/sh
# Builds the Debian package of orch:
#   scripts/package.sh [BUILD_DIR]          (default build-pkg)
# Release build without tests; the cross-built remote-bench programs go in
# when every cross toolchain is installed (scripts/install-deps.sh cross).
# Prints the path of the .deb.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-pkg}
cross=OFF
if command -v musl-gcc >/dev/null && command -v i686-linux-gnu-gcc >/dev/null &&
	command -v arm-linux-gnueabi-gcc >/dev/null && command -v arm-linux-gnueabihf-gcc >/dev/null &&
	command -v aarch64-linux-gnu-gcc >/dev/null; then
	cross=ON
else
	echo "package: cross toolchains missing: the package holds the x86_64 remote-bench only" >&2
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DORCH_BUILD_TESTS=OFF -DORCH_CROSS_BENCH=$cross >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)"
(cd "$build" && cpack -G DEB >/dev/null)
ls "$build"/orch_*.deb
