#!/bin/sh
# The Debian package, as a user gets it: builds the .deb from BUILD_DIR with
# cpack, checks its dependencies are Debian library packages, unpacks it
# into a scratch root (dpkg -x) and runs that orch, with an empty
# environment, against a real sshd board: a plain test and a bench: test
# (the remote-bench programs found relative to the installed binary). Also
# renders the man pages and completes a board name with the installed
# bash completion.
#   test-package.sh BUILD_DIR SOURCE_DIR SCRATCH
set -eu
build=$1 src=$2 scratch=$3
base=127.0.170
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$scratch" && mkdir -p "$scratch"
tmp=$(cd "$scratch" && pwd)
lab=$tmp/lab
cleanup() { "$src/tests/lab/sshd-lab.sh" down --dir "$lab" >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM

# 1. the package
(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
	{ cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/pkg/orch_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libssh-4 libyaml-0-2 libjansson4 libserialport0 libc6 libpq5; do
	echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib"
done
dpkg -x "$deb" "$tmp/root"
orch=$tmp/root/usr/bin/orch
[ -x "$orch" ] || fail "no usr/bin/orch in the package"
arch_dir=$(ls -d "$tmp"/root/usr/lib/orch/remote-bench/x86_64 2>/dev/null) ||
	fail "no usr/lib/orch/remote-bench/x86_64 in the package"
for p in cpu mem disk net crypto; do
	[ -x "$arch_dir/remote-bench-$p" ] || fail "remote-bench-$p missing from the package"
done
for m in man1/orch.1 man5/orch-scenario.5 man5/orch-inventory.5; do
	[ -s "$tmp/root/usr/share/man/$m.gz" ] || fail "man page $m.gz missing"
	f=$tmp/$(basename "$m")
	gzip -dc "$tmp/root/usr/share/man/$m.gz" >"$f"
	warn=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$f" 2>&1) || fail "groff failed on $m"
	[ -z "$warn" ] || fail "groff warns on $m: $warn"
done
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$tmp/root/usr/share/man/man5/orch-scenario.5.gz" 2>/dev/null |
	grep -q "MULTI-HOST TESTS" || fail "man orch-scenario does not render its sections"

# lintian at its most detailed (-I --pedantic): no tag at all but those the
# package overrides, and every override says why (a comment above it). A
# Debug or sanitized tree cannot be fortified (_FORTIFY_SOURCE needs the
# optimiser, the sanitizers replace it): from such a tree that one tag is
# expected and said; scripts/package.sh's release build has none.
if command -v lintian >/dev/null; then
	lintian -I --pedantic --tag-display-limit 0 "$deb" >"$tmp/lintian.log" 2>&1 || true
	expected=
	if grep -Eq '^(CMAKE_BUILD_TYPE:[A-Z]*=Debug|ORCH_SANITIZE:BOOL=ON)$' "$build/CMakeCache.txt"; then
		expected=hardening-no-fortify-functions
		echo "lintian: a Debug or sanitized tree: $expected expected"
	fi
	tags=$(grep -E '^[EWIPXC]: ' "$tmp/lintian.log" |
		{ if [ -n "$expected" ]; then grep -v " $expected "; else cat; fi; }) || true
	[ -z "$tags" ] || { cat "$tmp/lintian.log" >&2; fail "lintian tags not overridden: $tags"; }
	awk '/^#/ { why = 1; next } /^[ \t]*$/ { why = 0; next }
		!why { print "override without a reason above it: " $0; bad = 1 }
		END { exit bad }' "$tmp/root/usr/share/lintian/overrides/orch" ||
		fail "every lintian override needs its reason in a comment above it"
	echo "lintian -I --pedantic: clean"
fi
# the SYNOPSIS of orch(1) fits 80 columns
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$tmp/root/usr/share/man/man1/orch.1.gz" 2>/dev/null |
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | awk 'length > 80 { bad = 1; print } END { exit bad }' ||
	fail "orch(1) SYNOPSIS runs past 80 columns"

# 2. a board, and orch from the unpacked root with nothing in its environment
"$src/tests/lab/sshd-lab.sh" up --dir "$lab" --base $base --boards 1 --dropbear 0 --port 2222 \
	>"$tmp/lab.log" 2>&1 || { cat "$tmp/lab.log" >&2; fail "sshd-lab up failed"; }
user=$(sed -n 's/^LAB_USER=//p' "$lab/lab.env")
mkdir -p "$tmp/s"
cat >"$tmp/s/inv.yaml" <<EOI
boards:
  pkgboard:
    arch: x86_64
    tags: [pkg]
    ssh: { host: $base.1, port: 2222, user: $user, identity: $lab/id_ed25519,
           known_hosts: $lab/known_hosts, connect_timeout: 5s }
    workdir: /tmp/orch-pkg-test
EOI
cat >"$tmp/s/pkg.yaml" <<EOI
name: pkg
inventory: inv.yaml
tests:
  - { name: hello, run: "echo hello-from-board" }
  - { name: cpu, bench: cpu, args: [--time, "0.2"] }
EOI
rc=0
(cd "$tmp/s" && env -i PATH="$tmp/root/usr/bin:/usr/bin:/bin" HOME="$tmp/s" \
	orch run pkg.yaml -o runs -q) >"$tmp/run.log" 2>&1 || rc=$?
cat "$tmp/run.log"
[ $rc = 0 ] || fail "orch run from the package exited $rc"
grep -q hello-from-board "$tmp/s/runs/pkg/latest/pkgboard/hello/stdout.log" ||
	fail "the board's output is not in the run folder"
grep -q '"cpu\.' "$tmp/s/runs/pkg/latest/results.json" || fail "no cpu.* metric in results.json"

# 3. bash completion of board names from the scenario's inventory
comp=$(cd "$tmp/s" && PATH="$tmp/root/usr/bin:$PATH" bash -c '
	. "$1"
	COMP_WORDS=(orch run pkg.yaml -l pkgb); COMP_CWORD=4
	_orch; echo "${COMPREPLY[*]}"' _ "$tmp/root/usr/share/bash-completion/completions/orch")
[ "$comp" = pkgboard ] || fail "completion of '-l pkgb' gave '$comp', not 'pkgboard'"
echo "package test passed"
