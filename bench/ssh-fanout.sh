#!/bin/sh
# Connect-and-run fan-out over a loopback lab of N OpenSSH boards
# (tests/lab/sshd-lab.sh): `orch boards --check` (libssh, one session per
# board) against OpenSSH's `ssh` started in parallel, with its default key
# exchange (sntrup761x25519 on OpenSSH 9.2) and with curve25519-sha256, the
# one libssh 0.10 negotiates (it does not offer sntrup761). Timing, and for
# each client its own CPU and the boards' CPU per connection (every board's
# sshd, the sessions it starts and their shells), read from the kernel's
# accounting (bench/cgcpu.sh: a cgroup each, as root; "not measured"
# otherwise). No assertion: numbers vary with machine load.
#   bench/ssh-fanout.sh [N] [ORCH_BINARY]
# Environment: FANOUT_BASE (127.0.31): the boards' addresses, BASE.1..N.
set -eu
n=${1:-32}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
orch=${2:-$repo/build/orch}
base=${FANOUT_BASE:-127.0.31}
. "$here/cgcpu.sh"
. "$here/lab-inventory.sh"
dir=$(mktemp -d /tmp/orch-fanout-XXXXXX)
chmod 755 "$dir"
trap '"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1; cg_cleanup; rm -rf "$dir"' EXIT
# dash runs no EXIT trap when a signal kills it: exit instead, so the lab goes.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards "$n" --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
cg_init "orch-fanout-$$"
cg_make boards
cg_make client
cg_add boards $(cat "$dir"/lab/board*/sshd.pid)
lab_inventory "$user" 2222 "$n" "$base" b >"$dir/inventory.yaml"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# N ssh clients in parallel, in the client group
ssh_all() {
	cg_exec client sh -c 'cfg=$1; n=$2; shift 2; i=1
		while [ $i -le "$n" ]; do
			ssh -F "$cfg" -o LogLevel=ERROR "$@" "lab$i" true &
			i=$((i + 1))
		done
		wait' sh "$dir/lab/ssh_config" "$n" "$@"
}

# cpu_end (after cg_fan_begin "$n"): the client's CPU and the boards' per connection
cpu_end() {
	f=$(cg_fan_end "$n")
	if [ -z "$f" ]; then
		echo "      CPU not measured (needs root and a cgroup hierarchy)"
	else
		set -- $f
		echo "      client CPU $1 ms, boards $2 ms per connection"
	fi
}

kex_of() {
	ssh -v -F "$dir/lab/ssh_config" "$@" lab1 true 2>&1 | sed -n 's/.*kex: algorithm: //p' | head -1
}

echo "fan-out to $n OpenSSH boards on $base.x (2 cores)"
if [ -x "$orch" ]; then
	cg_fan_begin "$n"
	t0=$(now)
	cg_exec client "$orch" boards -i "$dir/inventory.yaml" --check >/dev/null 2>&1 || echo "  (orch boards --check reported failures)"
	t1=$(now)
	echo "  orch boards --check (libssh, curve25519-sha256):   $(elapsed "$t0" "$t1") s"
	cpu_end
else
	echo "  orch binary $orch missing: build it first"
fi
kex=$(kex_of)
cg_fan_begin "$n"
t0=$(now); ssh_all; t1=$(now)
echo "  ssh x$n in parallel, default kex ($kex): $(elapsed "$t0" "$t1") s"
cpu_end
cg_fan_begin "$n"
t0=$(now); ssh_all -o KexAlgorithms=curve25519-sha256; t1=$(now)
echo "  ssh x$n in parallel, kex curve25519-sha256:       $(elapsed "$t0" "$t1") s"
cpu_end
