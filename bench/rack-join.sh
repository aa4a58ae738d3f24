#!/bin/sh
# Joined controllers vs static shards, side by side in one run: a 24-board
# rack of local boards, three controllers of which one is three times
# slower (its tests sleep 3x as long), each running 2 boards at a time.
#   --shard K/3 : each controller gets 8 boards by name; the run takes as
#                 long as the slow shard
#   --join NAME : the controllers take boards as they go (PostgreSQL)
# Prints the wall time of each and the ratio, and how many boards each
# joined controller took. A private PostgreSQL from tests/lab/pg-lab.sh on
# 127.0.150.9:55449.
#   bench/rack-join.sh [BUILD_DIR] [SECONDS_PER_TEST]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=$(cd "${1:-$repo/build-werror}" && pwd)
per=${2:-0.5}
orch=$build/orch
[ -x "$orch" ] || { echo "rack-join: no $orch (build first)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/orch-rack-join.XXXXXX)
chmod 755 "$tmp"   # the server runs as an unprivileged user when we are root
cleanup() { "$repo/tests/lab/pg-lab.sh" down --dir "$tmp/pg" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
url=$("$repo/tests/lab/pg-lab.sh" up --dir "$tmp/pg" --host 127.0.150.9 --port 55449 --db orch 2>"$tmp/pg-up.log") ||
	{ cat "$tmp/pg-up.log" >&2; exit 1; }
slow=$(awk "BEGIN { print $per * 3 }")

{ echo "boards:"; for i in $(seq -w 1 24); do echo "  b$i: { local: true }"; done; } > "$tmp/rack.yaml"
cat > "$tmp/sc.yaml" <<'YAML'
name: bench
inventory: rack.yaml
boards: [all]
tests:
  - { name: work, run: "sleep $DELAY" }
  - { name: more, run: "sleep $DELAY" }
YAML
cd "$tmp"
now() { date +%s.%N; }
delay() { if [ "$1" = 3 ]; then echo "$slow"; else echo "$per"; fi; }

t0=$(now)
for k in 1 2 3; do
	ORCH_LOCK_DIR=$tmp/locks$k DELAY=$(delay $k) "$orch" run sc.yaml -q -j 2 --shard $k/3 \
		-o shard$k >shard$k.log 2>&1 &
done
wait
t1=$(now)
for k in 1 2 3; do
	ORCH_LOCK_DIR=$tmp/locks$k DELAY=$(delay $k) "$orch" run sc.yaml -j 2 --db "$url" \
		--join bench-1 --controller c$k -o join$k >join$k.log 2>&1 &
done
wait
t2=$(now)

awk -v a="$t0" -v b="$t1" -v c="$t2" -v per="$per" 'BEGIN {
	s = b - a; j = c - b
	printf "24 boards x 2 tests, %ss per test (%ss on the slow controller), -j 2 per controller\n", per, per * 3
	printf "shards (--shard K/3): %6.2f s\n", s
	printf "joined (--join):      %6.2f s\n", j
	printf "joined / shards:      %6.1f%%\n", 100 * j / s
}'
for k in 1 2 3; do
	printf 'controller c%s took %s boards%s\n' "$k" "$(grep -c ' takes board ' join$k.log)" \
		"$([ $k = 3 ] && echo ' (the slow one)')"
done
