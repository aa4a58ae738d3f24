#!/bin/sh
# The test command (README, .ci/run): installs what the tests need, builds
# orch twice (warnings as errors; then ASan + UBSan) and runs the whole
# ctest suite on the sanitizer build. Every server a test talks to (sshd,
# dropbear, socat, ser2net, qemu, wireguard-go) is started by that test.
#   scripts/test.sh [--no-install] [ctest args...]
set -eu
cd "$(dirname "$0")/.."

install=1
if [ "${1:-}" = --no-install ]; then install=0; shift; fi
if [ $install = 1 ]; then
	scripts/install-deps.sh all
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-werror -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORCH_WERROR=ON -DORCH_BUILD_TESTS=ON
cmake --build build-werror -j"$jobs"

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DORCH_SANITIZE=ON
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A test that aborts (ASan stops at the first error) skips its teardown; then
# this stops whatever it left running under the test scratch directory.
scratch=$(pwd)/build-asan/tests/tmp
cleanup() { pkill -TERM -f "$scratch/" 2>/dev/null || true; }
trap cleanup EXIT
cd build-asan
# A test whose requirement is missing exits 77 and ctest shows it Skipped
# (tests/README.md). Under CI=true every requirement is installed above,
# so a skip there is a failure: the suite did not run what it claims.
# (set -e would end the group at a failing ctest before its status is kept)
{ ctest --output-on-failure -j"$jobs" --timeout 900 "$@" && echo 0 > ctest.rc ||
	echo $? > ctest.rc; } 2>&1 | tee ctest.log
rc=$(cat ctest.rc)
skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' ctest.log)
if [ -n "$skipped" ]; then
	echo "skipped tests (they exit 77 when a requirement is missing):" $skipped
	if [ "${CI:-}" = true ]; then
		echo "CI: these tests were meant to run; a skip counts as a failure here" >&2
		[ "$rc" != 0 ] || rc=1
	fi
fi
[ "$rc" = 0 ] || exit "$rc"
cd ..
# user regexes against 8 KB lines under libFuzzer with a time limit per
# input (clang only; the corpus itself runs in ctest as fuzz_metrics_corpus)
if [ $# = 0 ] && command -v clang >/dev/null 2>&1; then
	tests/fuzz/fuzz-smoke.sh build-fuzz 20
fi
