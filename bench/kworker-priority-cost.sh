#!/bin/sh
# kworker-priority-cost.sh: what running the kernel's unbound workers
# real-time costs the rest of the controller while orch captures a
# console (docs/console-timing.md), for each ORCH_KWORKER_PRIORITY
# setting side by side: fifo, -20, off, ROUNDS times in turn.
#
#   bench/kworker-priority-cost.sh [ORCH_BIN] [ROUNDS]
#
# In each run, while orch (root: real-time reader, workers as set) times
# bench/stamp-feeder.py's 2000 lines at 5 ms, a `dd` writes 768 MiB with
# conv=fdatasync (writeback: work of the unbound workers) and a CPU-bound
# python loop runs beside it; prints both durations (s) and the stamps'
# median / p99 / max (us). Needs root, python3, bc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
orch=${1:-$repo/build/orch}
rounds=${2:-5}
[ "$(id -u)" = 0 ] || { echo "needs root (the workers' priority)" >&2; exit 3; }
orch=$(cd "$(dirname "$orch")" && pwd)/$(basename "$orch")
work=$(mktemp -d "${TMPDIR:-/var/tmp}/orch-kw-cost.XXXXXX")
feeder_pid= orch_pid=
cleanup() {
	for p in $orch_pid $feeder_pid; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkfifo "$work/cmd" "$work/done"
chrt -f 30 python3 "$here/stamp-feeder.py" "$work/B" "$work/cmd" "$work/done" 2000 5 &
feeder_pid=$!
while [ ! -e "$work/B" ]; do sleep 0.05; done
lockfile=/var/lock/LCK..$(readlink -f "$work/B" | sed 's|^/dev/||; s|/|_|g')
printf 'boards:\n  feeder:\n    serial: { port: %s/B, baud: 115200 }\n' "$work" >"$work/inv.yaml"
cat >"$work/feed.yaml" <<EOT
name: kw-cost
inventory: inv.yaml
tests:
  - name: feed
    boot: { trigger: none, timeout: 5m, phases: [ { name: end, until: 'FEED-END' } ] }
EOT

since() { echo "$(date +%s.%N) - $1" | bc; }

one() {
	rm -rf "$work/runs"
	ORCH_KWORKER_PRIORITY=$1 "$orch" run "$work/feed.yaml" -q -o "$work/runs" \
		>"$work/orch.out" 2>&1 &
	orch_pid=$!
	while [ ! -e "$lockfile" ]; do sleep 0.05; done
	(echo "$work/feed.tsv" >"$work/cmd"; read -r _ <"$work/done") &
	feed=$!
	s=$(date +%s.%N)
	(dd if=/dev/urandom of="$work/dd" bs=1M count=768 conv=fdatasync 2>/dev/null
	 since "$s" >"$work/dd.time") &
	dd=$!
	python3 -c 'sum(range(60_000_000))'
	cpu=$(since "$s")
	wait $dd $feed
	wait $orch_pid || true
	orch_pid=
	rm -f "$work/dd"
	python3 - "$here" "$work" "$1" "$(cat "$work/dd.time")" "$cpu" <<'PY'
import glob, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from stamps import orch_errors
work, setting, dd, cpu = sys.argv[2:6]
e = []
for log in glob.glob(work + "/runs/*/2*/feeder/feed/boot.log"):
    e += orch_errors(work + "/feed.tsv", log).values()
e.sort()
st = "stamps %d: median %d / p99 %d / max %d us" % (
    len(e), e[len(e) // 2], e[int(len(e) * .99)], e[-1]) if e else "no stamps"
print("  %-5s dd %5.2f s  cpu job %5.2f s  %s" % (setting, float(dd), float(cpu), st))
PY
}

echo "kworker priority cost: $rounds rounds, $(nproc) cores"
i=0
while [ $i -lt "$rounds" ]; do
	for k in fifo -20 off; do one $k; done
	i=$((i + 1))
done
