#!/bin/sh
# What the step-end leftover search costs on the 64-board loopback rack
# (tests/lab/sshd-lab.sh, boards RACK_BASE.1..64, port 2222): `orch run` of
# 40 tests x 64 boards (`run: 'echo t'`) for each binary in turn, ROUNDS
# rounds, printing orch's wall and CPU and the boards' CPU (the 64 sshd
# listeners' cutime+cstime: every session, shell and program they ran).
# With --strace, one round, and strace -c -f on board 1's listener during
# each run instead: its system calls, forks and execs (steady under load,
# where CPU times are not). Timing only; run under flock /tmp/orch-quiet.lock.
#   bench/leftover-rack.sh [--strace] ROUNDS BIN...
set -eu
st=0
[ "${1:-}" = --strace ] && { st=1; shift; }
rounds=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lab-inventory.sh"
base=${RACK_BASE:-127.0.131}
n=64
dir=$(mktemp -d /tmp/orch-leftover-rack-XXXXXX)
chmod 755 "$dir"
trap '"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1; rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards $n --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
mkdir "$dir/locks"
export ORCH_LOCK_DIR="$dir/locks"
lab_inventory "$user" 2222 "$n" "$base" rs >"$dir/inventory.yaml"
{
	echo "name: s40"
	echo "inventory: inventory.yaml"
	echo "boards: [all]"
	echo "tests:"
	t=1
	while [ $t -le 40 ]; do echo "  - { name: t$t, run: 'echo t' }"; t=$((t + 1)); done
} >"$dir/s40.yaml"
pids=$(cat "$dir"/lab/*/daemon.pid)
board_ticks() {
	for p in $pids; do cat /proc/$p/stat; done |
		awk '{ sub(/^.*\) /, ""); t += $14 + $15 } END { print t }'
}
hz=$(getconf CLK_TCK)
echo "$(uptime)"
[ $st = 1 ] && rounds=1
k=1
while [ $k -le "$rounds" ]; do
	for b in "$@"; do
		if [ $st = 1 ]; then
			strace -c -f -p "$(cat "$dir/lab/board1/daemon.pid")" -o "$dir/st.txt" 2>/dev/null &
			sp=$!
			sleep 0.5
		fi
		t0=$(board_ticks)
		/usr/bin/time -f "%e s wall, orch cpu %U+%S s" "$b" run "$dir/s40.yaml" -q \
			-o "$dir/runs" --no-history >/dev/null 2>"$dir/err" || true
		sleep 0.3
		t1=$(board_ticks)
		echo "$b: $(tail -1 "$dir/err"), boards cpu $(awk -v a="$t0" -v b="$t1" -v h="$hz" \
			'BEGIN { printf "%.2f s", (b - a) / h }')"
		if [ $st = 1 ]; then
			kill -INT $sp
			wait $sp || true
			grep -E " (read|openat|clone|clone3|execve|total)$" "$dir/st.txt" |
				awk '{ printf "    board 1: %s %s\n", $NF, $(NF - (NF == 6 ? 2 : 1)) }'
		fi
	done
	k=$((k + 1))
done
echo "$(uptime)"
