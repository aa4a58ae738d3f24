#!/bin/sh
# serial-timestamp-accuracy.sh: how close orch's console line stamps are to
# the instant each line was written, beside grabserial's on the same stream,
# idle, under CPU load, and while orch drives 32 SSH boards.
#
#   bench/serial-timestamp-accuracy.sh [ORCH_BIN] [LINES] [INTERVAL_MS]
#
# Environment:
#   MODES   which conditions, in order (default "idle load fanout"):
#           idle    nothing else runs
#           load    one CPU-bound process (`yes > /dev/null`) per core
#           fanout  the same orch process (`orch run`) drives 32 OpenSSH
#                   boards (tests/lab/sshd-lab.sh on FANOUT_BASE.1..32), each
#                   printing 16 KiB of base64 every 50 ms, while it times the
#                   console; grabserial is timed while an orch run drives the
#                   same 32 boards
#   FANOUT_BASE  the boards' addresses (default 127.0.208: boards' range)
#
# bench/stamp-feeder.py is the "adapter": it holds a pty pair and writes
# LINES lines ("FEED n") to the master end at INTERVAL_MS intervals, noting
# CLOCK_REALTIME just before each write; the bytes reach the slave end
# through the kernel's tty flip buffer, as a USB-serial adapter's do.
# `orch run` of a boot test (trigger none) reads the slave end (boot.log has
# the wall-clock stamp of each line's first byte); the same feed is read by
# orch without CAP_SYS_NICE (setpriv, as root: its console reader falls
# back to ordinary scheduling), then by `grabserial -T`.
# Error = stamp - write instant, in microseconds: median, p99, max.
# As root the feeder runs SCHED_FIFO 30: it stands in for the adapter's
# hardware, which CPU-bound processes do not delay. Needs python3,
# grabserial for the comparison, and for fanout sshd.
#
# Under each reader's figures: how late the feeder itself woke for its
# writes (at SCHED_FIFO 30, ahead of every ordinary thread, so a wakeup
# over 0.5 ms late is the machine's own stall: a virtual machine's CPU the
# host did not run, or the kernel busy), the host's steal time during the
# feed (/proc/stat, in 10 ms ticks), and when lines were over 2 ms late,
# how many were beside such a stall (the feeder was held off over 0.5 ms
# while the line was on its way) and the max without those.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
orch=${1:-$repo/build/orch}
lines=${2:-2000}
interval=${3:-5}
modes=${MODES:-idle load fanout}
fbase=${FANOUT_BASE:-127.0.208}
nboards=32
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 3; }
[ -x "$orch" ] || { echo "no orch binary at $orch (give its path)" >&2; exit 3; }
orch=$(cd "$(dirname "$orch")" && pwd)/$(basename "$orch")

work=$(mktemp -d "${TMPDIR:-/tmp}/orch-stamp-bench.XXXXXX")
chmod 755 "$work"
feeder_pid= orch_pid= grab_pid= fan_pid= load_pids= lab_up=0
stop_load() {
	for p in $load_pids; do kill "$p" 2>/dev/null || true; done
	for p in $load_pids; do wait "$p" 2>/dev/null || true; done
	load_pids=
}
cleanup() {
	stop_load
	for p in $orch_pid $grab_pid $fan_pid $feeder_pid; do kill "$p" 2>/dev/null || true; done
	[ $lab_up = 1 ] && "$repo/tests/lab/sshd-lab.sh" down --dir "$work/lab" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
# dash runs no EXIT trap when a signal kills it: exit instead.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

rt=
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null; then
	rt="chrt -f 30"
fi
nopriv=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nopriv="setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice"
fi

mkfifo "$work/cmd" "$work/done"
$rt python3 "$here/stamp-feeder.py" "$work/B" "$work/cmd" "$work/done" "$lines" "$interval" &
feeder_pid=$!
i=0
while [ ! -e "$work/B" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
real=$(readlink -f "$work/B")
lockfile=/var/lock/LCK..$(echo "$real" | sed 's|^/dev/||; s|/|_|g')

# the fan-out's work on each board: output for the whole feed and a margin
iters=$((lines * interval / 50 + 60))
cat > "$work/inv.yaml" <<EOF
boards:
  feeder:
    serial: { port: $work/B, baud: 115200 }
EOF
feed_test="
  - name: feed
    boards: [feeder]
    boot:
      trigger: none
      timeout: 5m
      phases:
        - { name: end, until: 'FEED-END' }"
fan_run="
    timeout: 5m
    run: \"touch $work/fan/{board.name}; i=0; while [ \$i -lt $iters ]; do head -c 12288 /dev/urandom | base64; sleep 0.05; i=\$((i + 1)); done\""
fan_test="
  - name: fan
    boards: ['!feeder']$fan_run"
printf 'name: stamp-bench\ninventory: inv.yaml\nboards: [feeder]\ntests:%s\n' "$feed_test" \
	>"$work/feed.yaml"

if echo "$modes" | grep -qw fanout; then
	"$repo/tests/lab/sshd-lab.sh" up --dir "$work/lab" --boards $nboards --dropbear 0 \
		--base "$fbase" >/dev/null
	lab_up=1
	user=$(sed -n 's/^LAB_USER=//p' "$work/lab/lab.env")
	. "$here/lab-inventory.sh"
	lab_inventory "$user" 2222 $nboards "$fbase" b >"$work/inv-fan.yaml"
	sed -n '/^boards:/,$p' "$work/inv.yaml" | sed 1d >>"$work/inv-fan.yaml"
	printf 'name: stamp-bench\ninventory: inv-fan.yaml\nboards: [all]\ntests:%s%s\n' \
		"$feed_test" "$fan_test" >"$work/fanfeed.yaml"
	# the boards of fan.yaml: the 32 SSH boards, not the feeder
	lab_inventory "$user" 2222 $nboards "$fbase" b >"$work/inv-grab.yaml"
	printf 'name: stamp-fan\ninventory: inv-grab.yaml\nboards: [all]\ntests:%s\n' \
		"
  - name: fan$fan_run" >"$work/fan.yaml"
	out=$("$orch" validate "$work/fan.yaml" 2>&1) || { echo "$out" >&2; exit 2; }
fi

# steal: CPU time the host took from this virtual machine so far, in
# 1/100 s (/proc/stat; 0 on bare metal)
steal() {
	awk '$1 == "cpu" { print $9 + 0 }' /proc/stat
}

# feed OUT: one feed of the lines, their write instants in OUT (and the
# host's steal during it in OUT.steal)
feed() {
	s0=$(steal)
	echo "$1" >"$work/cmd"
	read -r _ <"$work/done"
	echo $(($(steal) - s0)) >"$1.steal"
}

wait_lock() {
	i=0
	while [ ! -e "$lockfile" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}

# wait_open PID: until process PID has the console open
wait_open() {
	i=0
	while [ $i -lt 400 ]; do
		for fd in /proc/"$1"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "$real" ] && return 0
		done
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_fan: until all 32 boards run the fan-out's command (each touches
# a file in $work/fan as it starts; new_fan empties it before a run)
new_fan() {
	rm -rf "$work/fan"
	mkdir -m 1777 "$work/fan"
}
wait_fan() {
	i=0
	while [ "$(ls "$work/fan" | wc -l)" -lt $nboards ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ $i -lt 600 ] || echo "  (not all boards started the fan-out)" >&2
}

start_load() {
	n=$(nproc)
	while [ "$n" -gt 0 ]; do
		yes >/dev/null &
		load_pids="$load_pids $!"
		n=$((n - 1))
	done
}

# orch_feed TAG SCENARIO [PREFIX...]: one orch run reading the feed
orch_feed() {
	tag=$1 sc=$2
	shift 2
	new_fan
	"$@" "$orch" run "$work/$sc" -o "$work/runs-$tag" >"$work/orch-$tag.out" 2>&1 &
	orch_pid=$!
	wait_lock
	[ "$sc" = fanfeed.yaml ] && wait_fan
	feed "$work/feed-$tag.tsv"
	wait $orch_pid || { cat "$work/orch-$tag.out" >&2; }
	orch_pid=
	log=$(ls "$work"/runs-"$tag"/*/2*/feeder/feed/boot.log 2>/dev/null | head -1)
	[ -n "$log" ] && cp "$log" "$work/boot-$tag.log"
	res=$(ls "$work"/runs-"$tag"/*/2*/results.json 2>/dev/null | head -1)
	[ -n "$res" ] && python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["results"]:
    if t.get("console_sched"):
        print(t["console_sched"])' "$res" >"$work/sched-$tag.txt"
	return 0
}

grab_feed() {
	tag=$1
	grabserial -S -d "$work/B" -b 115200 -T -F '%s.%f' -q FEED-END -o "$work/grab-$tag.log" -Q \
		-e $((lines * interval / 1000 + 30)) >/dev/null 2>&1 &
	grab_pid=$!
	wait_open $grab_pid
	[ -n "$fan_pid" ] && wait_fan
	feed "$work/feed-grab-$tag.tsv"
	wait $grab_pid || true
	grab_pid=
}

have_grab=0
command -v grabserial >/dev/null && have_grab=1
echo "serial stamp accuracy: $lines lines at $interval ms, $(nproc) cores," \
	"feeder ${rt:-without SCHED_FIFO (not root)}"
for mode in $modes; do
	sc=feed.yaml
	case $mode in
	idle) ;;
	load) start_load ;;
	fanout) sc=fanfeed.yaml ;;
	*) echo "unknown mode $mode" >&2; exit 2 ;;
	esac
	echo "== $mode (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	orch_feed "$mode-rt" $sc
	[ -n "$nopriv" ] && orch_feed "$mode-nopriv" $sc $nopriv
	if [ $have_grab = 1 ]; then
		if [ $mode = fanout ]; then
			new_fan
			"$orch" run "$work/fan.yaml" -o "$work/runs-fan-grab" >"$work/fan-grab.out" 2>&1 &
			fan_pid=$!
		fi
		grab_feed "$mode"
		if [ -n "$fan_pid" ]; then
			wait $fan_pid || echo "  (the fan-out beside grabserial failed:" \
				"$work/fan-grab.out)" >&2
			fan_pid=
		fi
	fi
	stop_load
	python3 - "$here" "$work" "$mode" "$have_grab" <<'EOF'
import statistics, sys, os
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from stamps import sent, lateness, orch_errors, grabserial_errors
work, mode, have_grab = sys.argv[2], sys.argv[3], sys.argv[4] == "1"

def steal(tsv):
    path = tsv + ".steal"
    return "%d" % (10 * int(open(path).read())) if os.path.exists(path) else "?"

# errs: line number -> stamp error (us). A line over 2 ms is "beside a
# machine stall" when, while it was on its way (from its write to its
# stamp), the SCHED_FIFO 30 feeder itself was held off over 0.5 ms (from
# the instant it was due to wake to its late write): no user thread could
# run then.
def stalled(tsv, errs, over):
    feed, late = sent(tsv), lateness(tsv)
    stalls = [(feed[m] - l, feed[m]) for m, l in late.items() if l > 500]
    return {n for n in over
            if any(a < feed[n] + errs[n] and b > feed[n] for a, b in stalls)}

def summary(name, tsv, errs, note=""):
    if not errs:
        print("  %-14s no lines parsed" % name)
        return
    e = sorted(errs.values())
    p99 = e[min(len(e) - 1, int(len(e) * 0.99))]
    late = lateness(tsv)
    print("  %-14s lines %4d  median %7.0f us  p99 %7.0f us  max %7.0f us%s" %
          (name, len(e), statistics.median(e), p99, e[-1], note))
    print("  %-14s (the feeder woke up to %d us late; host steal %s ms)" %
          ("", max(late.values(), default=0), steal(tsv)))
    over = [n for n, x in errs.items() if x > 2000]
    if over and late:
        held = stalled(tsv, errs, over)
        rest = [x for n, x in errs.items() if n not in held]
        print("  %-14s %d lines over 2 ms, %d of them beside a machine stall;"
              " max without those %d us" % ("", len(over), len(held), max(rest)))

def orch(tag, name):
    tsv, log = os.path.join(work, "feed-%s.tsv" % tag), os.path.join(work, "boot-%s.log" % tag)
    if not os.path.exists(tsv):
        return
    if not os.path.exists(log):
        print("  %-14s no boot.log (see orch-%s.out)" % (name, tag))
        return
    errs = orch_errors(tsv, log)
    sched = os.path.join(work, "sched-%s.txt" % tag)
    note = ""
    if os.path.exists(sched):
        s = open(sched).read().strip()
        note = "  [%s]" % (s.split(",")[0] if s else "?")
    summary(name, tsv, errs, note)

orch(mode + "-rt", "orch")
orch(mode + "-nopriv", "orch (no cap)")
if have_grab:
    tsv = os.path.join(work, "feed-grab-%s.tsv" % mode)
    errs = grabserial_errors(tsv, os.path.join(work, "grab-%s.log" % mode))
    summary("grabserial", tsv, errs)
EOF
done
