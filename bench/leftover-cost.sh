#!/bin/sh
# What finding leftovers costs (docs/guarantees.md "Nothing a test started
# outlives it"): one run of T tests (`run: 'true'`, the worst case: the
# reap is a second command per step) on N OpenSSH boards of a loopback lab
# (tests/lab/sshd-lab.sh), timed for two orch binaries in turn, R rounds;
# prints the median wall time of each and their ratio. Timing only.
#   bench/leftover-cost.sh OLD_ORCH NEW_ORCH [N] [T] [R]
set -eu
old=$1
new=$2
n=${3:-4}
t=${4:-40}
r=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lab-inventory.sh"
base=127.0.170
port=42110
dir=$(mktemp -d /tmp/orch-leftover-XXXXXX)
chmod 755 "$dir"
trap '"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1; rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards "$n" --dropbear 0 --base $base \
	--port $port >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
lab_inventory "$user" "$port" "$n" "$base" b >"$dir/inventory.yaml"
{
	echo "name: cost"
	echo "inventory: inventory.yaml"
	echo "tests:"
	i=1
	while [ $i -le "$t" ]; do
		echo "  - { name: t$i, run: 'true' }"
		i=$((i + 1))
	done
} >"$dir/cost.yaml"

wall() {
	s=$(date +%s.%N)
	"$1" run "$dir/cost.yaml" -o "$dir/runs" -q --no-history >/dev/null 2>&1 || true
	e=$(date +%s.%N)
	awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: >"$dir/old.t"
: >"$dir/new.t"
i=0
while [ $i -lt "$r" ]; do
	wall "$old" >>"$dir/old.t"
	wall "$new" >>"$dir/new.t"
	i=$((i + 1))
done
mo=$(median <"$dir/old.t")
mn=$(median <"$dir/new.t")
echo "$n boards x $t tests, median of $r: old $mo s, new $mn s, new/old $(awk -v a="$mo" -v b="$mn" 'BEGIN { printf "%.2f", b / a }')"
