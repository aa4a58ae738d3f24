#!/bin/sh
# From a fresh Debian 12 to a finished run: installs the dependencies, builds
# orch and remote-bench, starts the loopback lab (8 OpenSSH boards and a
# dropbear board, tests/lab/sshd-lab.sh) and runs scenarios/demo.yaml on it.
# The run folder ends up in runs/demo/; the lab keeps running for the next
# demo, which reuses it, until `scripts/demo.sh --stop`.
#
#   scripts/demo.sh [--no-build] [ORCH RUN OPTIONS...]
#   scripts/demo.sh --stop
#
# --no-build: orch is built already (build/orch); install and build nothing.
set -eu
cd "$(dirname "$0")/.."
lab=tests/lab/sshd-lab.sh

if [ "${1:-}" = --stop ]; then
	exec "$lab" down
fi
build=1
if [ "${1:-}" = --no-build ]; then
	build=0
	shift
fi
if [ "$build" = 1 ]; then
	scripts/install-deps.sh build lab
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build -j"$(nproc 2>/dev/null || echo 2)"
fi
if "$lab" status >/dev/null 2>&1; then
	echo "demo: the lab is up already (tests/lab/sshd-lab.sh status): reusing it"
else
	"$lab" up
fi
set +e
build/orch run scenarios/demo.yaml "$@"
code=$?
echo "orch exited $code (0: all passed, 1: a test failed, 3: infrastructure error); report: runs/demo/latest/report.html"
echo "the lab is still up for the next demo; stop it with: scripts/demo.sh --stop"
exit $code
