#!/bin/sh
# From a fresh Debian 12 to a finished run: installs the dependencies, builds
# orch and remote-bench, starts the loopback lab (8 OpenSSH boards and a
# dropbear board, tests/lab/sshd-lab.sh) and runs scenarios/demo.yaml on it.
# The run folder ends up in runs/demo/; the lab keeps running until
# `tests/lab/sshd-lab.sh down`.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh build lab
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc 2>/dev/null || echo 2)"
tests/lab/sshd-lab.sh up
set +e
build/orch run scenarios/demo.yaml "$@"
code=$?
echo "orch exited $code (0: all passed, 1: a test failed, 3: infrastructure error); report: runs/demo/latest/report.html"
exit $code
