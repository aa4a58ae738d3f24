#!/bin/sh
# serial-timestamp-accuracy.sh: how close orch's console line stamps are to
# the instant each line was written, beside grabserial's on the same stream.
#
#   bench/serial-timestamp-accuracy.sh [ORCH_BIN] [LINES] [INTERVAL_MS]
#
# A socat pty pair is the "adapter"; a feeder writes LINES lines ("FEED n") to
# one end at INTERVAL_MS intervals, noting CLOCK_REALTIME just before each
# write. `orch boot --trigger none` reads the other end (boot.log has the
# wall-clock stamp of each line's first byte); then the same feed is read by
# `grabserial -T`. Error = stamp - write instant, in microseconds: median,
# p99, max. Needs socat, python3 and (for the comparison) grabserial.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
orch=${1:-$here/../build/orch}
lines=${2:-500}
interval=${3:-10}
command -v socat >/dev/null || { echo "needs socat" >&2; exit 3; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 3; }
[ -x "$orch" ] || { echo "no orch binary at $orch (give its path)" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/orch-stamp-bench.XXXXXX")
socat_pid= orch_pid= grab_pid=
cleanup() {
	for p in $orch_pid $grab_pid $socat_pid; do kill "$p" 2>/dev/null || true; done
	if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
# dash runs no EXIT trap when a signal kills it: exit instead.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

socat pty,raw,echo=0,link="$work/A" pty,raw,echo=0,link="$work/B" 2>/dev/null &
socat_pid=$!
i=0
while [ ! -e "$work/B" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done

cat > "$work/inv.yaml" <<EOF
boards:
  feeder:
    serial: { port: $work/B, baud: 115200 }
EOF
cat > "$work/sc.yaml" <<EOF
name: stamp-bench
inventory: inv.yaml
boards: [feeder]
tests:
  - name: feed
    boot:
      trigger: none
      timeout: 5m
      phases:
        - { name: end, until: 'FEED-END' }
EOF

feed() {
	python3 - "$work/A" "$lines" "$interval" "$1" <<'EOF'
import os, sys, time, termios, tty
path, n, interval, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000.0, sys.argv[4]
fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
time.sleep(0.5)
with open(out, "w") as log:
    for i in range(n):
        t = time.time_ns()
        os.write(fd, b"FEED %d\r\n" % i)
        log.write("%d %d\n" % (i, t // 1000))
        time.sleep(interval)
    os.write(fd, b"FEED-END\r\n")
time.sleep(0.3)
EOF
}

"$orch" boot feeder --phases-from "$work/sc.yaml" -o "$work/orch" 2>"$work/orch.err" &
orch_pid=$!
sleep 0.5
feed "$work/feed-orch.tsv"
wait $orch_pid || { orch_pid=; cat "$work/orch.err" >&2; exit 3; }
orch_pid=

have_grab=0
if command -v grabserial >/dev/null; then
	have_grab=1
	# -e: gives up after the feed's length plus a margin, should it miss the end.
	grabserial -S -d "$work/B" -b 115200 -T -F '%s.%f' -q FEED-END -o "$work/grab.log" -Q \
		-e $((lines * interval / 1000 + 30)) &
	grab_pid=$!
	sleep 1.5
	feed "$work/feed-grab.tsv"
	wait $grab_pid || true
	grab_pid=
fi

python3 - "$work" "$have_grab" <<'EOF'
import datetime, re, statistics, sys, os
work, have_grab = sys.argv[1], sys.argv[2] == "1"

def sent(path):
    return {int(a): int(b) for a, b in (l.split() for l in open(path))}

def summary(name, errs):
    errs.sort()
    p99 = errs[min(len(errs) - 1, int(len(errs) * 0.99))]
    print("%-10s lines %4d  median %8.1f us  p99 %8.1f us  max %8.1f us" %
          (name, len(errs), statistics.median(errs), p99, errs[-1]))

feed = sent(os.path.join(work, "feed-orch.tsv"))
errs = []
for l in open(os.path.join(work, "orch", "boot.log")):
    m = re.match(r"\[(\d+-\d+-\d+ \d+:\d+:\d+)\.(\d{6}) \S+\] FEED (\d+)$", l.rstrip("\n"))
    if m:
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp()
        us = int(t) * 1000000 + int(m.group(2))
        errs.append(us - feed[int(m.group(3))])
summary("orch", errs)
if have_grab:
    feed = sent(os.path.join(work, "feed-grab.tsv"))
    errs = []
    for l in open(os.path.join(work, "grab.log"), errors="replace"):
        m = re.match(r"\[(\d+)\.(\d{6})(?: [\d.]+)?\] FEED (\d+)\s*$", l)
        if m:
            errs.append(int(m.group(1)) * 1000000 + int(m.group(2)) - feed[int(m.group(3))])
    if errs:
        summary("grabserial", errs)
    else:
        print("grabserial: no lines parsed")
EOF
