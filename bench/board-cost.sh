#!/bin/sh
# What one connection costs a board (fan-out): sequential
# connections to ONE OpenSSH board of a loopback lab (tests/lab/sshd-lab.sh,
# board shell /bin/sh), the board's CPU read from the kernel's accounting
# (bench/cgcpu.sh: the board's sshd, the sessions it starts and their
# shells in one cgroup; as root). In each round, one after the other:
#   - for each ORCH binary: N x `orch run` of a 1-test scenario
#     (`run: 'true'`: a fan-out's whole work on a board: connect, facts,
#     the command, its leftover search);
#   - N x `ssh -o KexAlgorithms=curve25519-sha256 lab1 true` (OpenSSH's
#     client with the key exchange libssh, and so orch, negotiates; the
#     board then runs `sh -c true`: what parallel-ssh costs it).
# The clients take turns connection by connection, so a change in the
# machine's load touches them alike. Prints the board's CPU per
# connection (ms) of every round, then the
# medians, each orch's difference from ssh, and each client's own CPU per
# connection (orch: the whole `orch run`). Several binaries are compared
# side by side in the same rounds (e.g. main and a branch).
#   bench/board-cost.sh [ORCH_BINARY...]     (default: build/orch)
# Environment: BOARD_COST_N (40): connections per client per round,
# BOARD_COST_ROUNDS (5), BOARD_COST_BASE (127.0.176): the board's address
# is BASE.1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cgcpu.sh"
. "$here/lab-inventory.sh"
n=${BOARD_COST_N:-40}
rounds=${BOARD_COST_ROUNDS:-5}
base=${BOARD_COST_BASE:-127.0.176}
[ $# -gt 0 ] || set -- "$repo/build/orch"
orchs=
for o in "$@"; do
	case $o in /*) ;; *) o=$(pwd)/$o ;; esac
	[ -x "$o" ] || { echo "board-cost: no orch binary at $o: build it first" >&2; exit 2; }
	orchs="$orchs $o"
done
[ "$(id -u)" = 0 ] || { echo "board-cost: needs root (cgroup accounting)" >&2; exit 2; }

dir=$(mktemp -d /tmp/orch-boardcost-XXXXXX)
chmod 755 "$dir"
locks=$(mktemp -d /dev/shm/orch-boardcost-locks-XXXXXX)
runs=$(mktemp -d /dev/shm/orch-boardcost-runs-XXXXXX)
cleanup() {
	"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1 || true
	cg_cleanup
	rm -rf "$dir" "$locks" "$runs"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards 1 --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
cfg=$dir/lab/ssh_config
cg_init "orch-boardcost-$$"
cg_make board
cg_make client
[ "$CG_KIND" != none ] || { echo "board-cost: no cgroup hierarchy to measure with" >&2; exit 2; }
cg_add board $(cat "$dir"/lab/board1/sshd.pid)
export ORCH_LOCK_DIR="$locks"
lab_inventory "$user" 2222 1 "$base" b >"$dir/inventory.yaml"
{
	echo "name: cost"
	echo "inventory: inventory.yaml"
	echo "tests:"
	echo "  - { name: t1, run: 'true' }"
} >"$dir/cost.yaml"

# conn KEY CMD...: one connection; adds its board and client CPU (us) to KEY's
conn() {
	k=$1
	shift
	b0=$(cg_usage board)
	c0=$(cg_usage client)
	cg_exec client "$@" >/dev/null 2>&1 || { echo "board-cost: $k failed: $*" >&2; exit 1; }
	cg_settle board 1
	echo "$k $(($(cg_usage board) - b0)) $(($(cg_usage client) - c0))" >>"$dir/round"
}

echo "board-cost: 1 OpenSSH board on $base.1, $n connections per client per round, $rounds rounds"
echo "$(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
j=1
for o in $orchs; do
	echo "orch$j: $o"
	j=$((j + 1))
done
: >"$dir/figures"
r=1
while [ $r -le "$rounds" ]; do
	: >"$dir/round"
	i=0
	while [ $i -lt "$n" ]; do
		j=1
		for o in $orchs; do
			conn "orch$j" "$o" run "$dir/cost.yaml" -q --no-history -o "$runs/r$r-$i-$j"
			rm -rf "$runs/r$r-$i-$j"
			j=$((j + 1))
		done
		conn ssh ssh -F "$cfg" -o LogLevel=ERROR -o KexAlgorithms=curve25519-sha256 lab1 true
		i=$((i + 1))
	done
	# per client: ms per connection over the round
	awk -v n="$n" '{ b[$1] += $2; c[$1] += $3; if (!($1 in o)) { o[$1] = ++k; key[k] = $1 } }
		END { for (i = 1; i <= k; i++) printf "%s %.2f %.2f\n", key[i], b[key[i]] / n / 1000, c[key[i]] / n / 1000 }' \
		"$dir/round" >>"$dir/figures"
	printf 'round %d: board ms/conn:' $r
	tail -n $(($(echo $orchs | wc -w) + 1)) "$dir/figures" | awk '{ printf " %s %s", $1, $2 } END { print "" }'
	r=$((r + 1))
done

# median KEY FIELD (2: board, 3: client)
median() {
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$dir/figures" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "medians of $rounds rounds, ms per connection (board CPU; client CPU):"
s=$(median ssh 2)
echo "  ssh true (curve25519):  board $s; client $(median ssh 3)"
j=1
for o in $orchs; do
	m=$(median "orch$j" 2)
	echo "  orch$j run (1 test):     board $m; client $(median "orch$j" 3); board over ssh: $(awk -v a="$m" -v b="$s" 'BEGIN { printf "%+.1f", a - b }')"
	j=$((j + 1))
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
