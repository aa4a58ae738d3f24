#!/bin/sh
# console-push.sh: how fast orch pushes remote-bench over a serial console,
# as a share of the line rate, at 115200 baud.
#
#   bench/console-push.sh [BUILD_DIR]      (default: build)
#
# A pty pair carries no baud rate, so the board is tests/lab/pty-line: a
# shell on a pty whose bytes are paced at 115200 8N1 (11520 bytes/s each
# way, a 16-byte FIFO of burst). In one run, side by side:
#   1. raw line: 46080 bytes typed to the board's `wc -c` (the ceiling);
#   2. `orch run` of `bench: cpu` on three boards (every push from scratch):
#      busybox sh (gzip + base64), dash with coreutils base64 but no gzip
#      (base64), dash with neither (printf octal escapes);
# and prints each push's rate (file bytes / push time) over the nominal
# line rate and over the measured raw rate. Needs python3, busybox, dash.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
orch=$build/orch
line=$build/tests/lab/pty-line
benchdir=$build/remote-bench/bin
for f in "$orch" "$line" "$benchdir/x86_64/remote-bench-cpu" /bin/busybox /bin/dash; do
	[ -e "$f" ] || { echo "console-push.sh: missing $f (build first)" >&2; exit 3; }
done
command -v python3 >/dev/null || { echo "console-push.sh: needs python3" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/orch-console-push.XXXXXX")
board=
cleanup() {
	[ -z "$board" ] || kill "$board" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

start_board() {   # NAME SHELL...
	name=$1; shift
	"$line" --baud 115200 --link "$work/$name.tty" -- /bin/sh -c "while :; do $*; done" &
	board=$!
	i=0
	while [ ! -e "$work/$name.tty" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
stop_board() { kill "$board" 2>/dev/null || true; wait "$board" 2>/dev/null || true; board=; }

minbin() {   # DIR COMMANDS...
	d=$1; shift
	mkdir -p "$d"
	for c in "$@"; do ln -sf "$(command -v "$c")" "$d/$c"; done
}

# 1. the raw line, host to board
start_board raw "/bin/busybox sh -c 'stty -echo; wc -c'"
raw=$(python3 - "$work/raw.tty" <<'EOF'
import os, sys, time, tty, select
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
time.sleep(0.3)
data = (b"A" * 89 + b"\n") * 512          # 46080 bytes
t0 = time.monotonic()
view = memoryview(data)
while view:
    n = os.write(fd, view[:4096])
    view = view[n:]
os.write(fd, b"\x04")
out = b""
while not out.strip().endswith(b"46080"):
    r, _, _ = select.select([fd], [], [], 30)
    if not r:
        sys.exit("no answer from wc")
    out += os.read(fd, 100)
print("%.0f" % (46080 / (time.monotonic() - t0)))
EOF
)
stop_board

cat > "$work/bench.yaml" <<'EOF'
name: cpush
tests:
  - name: cpu
    bench: cpu
    args: [--time, 0.05, --repeats, 1]
EOF
push() {   # NAME SHELL...
	name=$1; shift
	start_board "$name" "$@"
	cat > "$work/inv.yaml" <<EOF
boards:
  $name:
    arch: x86_64
    transport: serial
    workdir: $work/wd-$name
    serial: { port: $work/$name.tty, baud: 115200 }
EOF
	"$orch" run "$work/bench.yaml" -i "$work/inv.yaml" -o "$work/runs" -q \
		--bench-dir "$benchdir" > "$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
	stop_board
	python3 - "$work/runs/cpush/latest/results.json" "$name" "$raw" "$(cat "$work/$name.log")" <<'EOF'
import json, re, sys
res = json.load(open(sys.argv[1]))
rate = None
def walk(o):
    global rate
    if isinstance(o, dict):
        if "console.push" in o and isinstance(o["console.push"], dict):
            m = o["console.push"]
            rate = m.get("median", m.get("value"))
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(res)
how = re.search(r"\((.*?), \d+ chunks\)", sys.argv[4])
bps = rate * 1024
print("%-8s %-22s %8.0f B/s  %5.1f%% of 11520 B/s  %5.1f%% of the measured raw line"
      % (sys.argv[2], how.group(1) if how else "?", bps, 100 * bps / 11520,
         100 * bps / float(sys.argv[3])))
EOF
}

size=$(wc -c < "$benchdir/x86_64/remote-bench-cpu")
echo "remote-bench-cpu: $size bytes; line 115200 8N1 = 11520 B/s nominal, $raw B/s measured raw"
push busybox "/bin/busybox sh -i"
minbin "$work/b64bin" cat mkdir chmod mv rm wc stty base64 sha256sum
push base64 "env -i PATH=$work/b64bin /bin/dash -i"
minbin "$work/minbin" cat mkdir chmod mv rm wc stty
push printf "env -i PATH=$work/minbin /bin/dash -i"
