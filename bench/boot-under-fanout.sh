#!/bin/sh
# boot-under-fanout.sh: a real kernel's boot timed by orch from its serial
# console while the same orch process drives 32 SSH boards, against the same boot with nothing else running.
#
#   bench/boot-under-fanout.sh [ORCH_BIN]
#
# The board is tests/lab/qemu-board.sh (no network, console on a pty,
# power-cycled by the boot test); the 32 boards are tests/lab/sshd-lab.sh on
# FANOUT_BASE.1..32 (default 127.0.209), each printing 16 KiB of base64
# every 50 ms for the whole boot. Three runs: idle, fan-out, and fan-out
# without CAP_SYS_NICE (setpriv, as root); ALSO_NOQOS=1 adds a fan-out run
# with ORCH_CPU_DMA_LATENCY=off (docs/console-timing.md).
#
# For each run it prints the boot's phases (seconds; "printk" when the
# phase's instant is its line's printk stamp, "console" when it is the
# line's arrival at orch) and how the console reader was scheduled
# (console_sched: whether it was real-time, and whether it ever waited for
# the line thread). A TCG guest's printk clock wanders by tens of ms against
# the host's, so it is no reference for stamp accuracy: that is
# bench/serial-timestamp-accuracy.sh's job. As root qemu runs SCHED_FIFO 10
# (QEMU_RT=0: not): a board's hardware is not slowed down by the
# controller's load, and orch's reader (SCHED_FIFO 20) still comes first.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
orch=${1:-$repo/build/orch}
fbase=${FANOUT_BASE:-127.0.209}
nboards=32
[ -x "$orch" ] || { echo "no orch binary at $orch (give its path)" >&2; exit 3; }
orch=$(cd "$(dirname "$orch")" && pwd)/$(basename "$orch")
qemu_board=$repo/tests/lab/qemu-board.sh
why=$("$qemu_board" check 2>&1) || { echo "the qemu board cannot run here: $why" >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/orch-boot-fan.XXXXXX")
chmod 755 "$work"
lab_up=0 qemu_up=0
cleanup() {
	[ $qemu_up = 1 ] && "$qemu_board" stop --state "$work/board" >/dev/null 2>&1
	[ $lab_up = 1 ] && "$repo/tests/lab/sshd-lab.sh" down --dir "$work/lab" >/dev/null 2>&1
	if [ -n "${KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

nopriv=
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	nopriv="setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice"

"$qemu_board" start --state "$work/board" --no-net >/dev/null
qemu_up=1
if [ "$(id -u)" = 0 ] && [ "${QEMU_RT:-1}" = 1 ]; then
	for p in $(pgrep -f "qemu-system.*$work/board"); do chrt -f -a -p 10 "$p"; done
fi
"$repo/tests/lab/sshd-lab.sh" up --dir "$work/lab" --boards $nboards --dropbear 0 \
	--base "$fbase" >/dev/null
lab_up=1
user=$(sed -n 's/^LAB_USER=//p' "$work/lab/lab.env")
. "$here/lab-inventory.sh"
{
	lab_inventory "$user" 2222 $nboards "$fbase" b
	echo "  bq:"
	echo "    serial: { port: $work/board/console, baud: 115200 }"
	echo "    power: { cycle: '$qemu_board power cycle --state $work/board' }"
} >"$work/inv.yaml"

boot_test="
  - name: boot
    boards: [bq]
    boot:
      trigger: power-cycle
      timeout: 150s
      phases:
        - { name: firmware, until: 'Linux version' }
        - { name: kernel, until: 'Run /init' }
        - { name: mount, until: 'orch-lab: mounting' }
        - { name: services, until: 'orch-lab: starting services' }
        - { name: login, until: 'login:' }"
fan_test="
  - name: fan
    boards: ['!bq']
    timeout: 5m
    run: \"i=0; while [ \$i -lt 600 ]; do head -c 12288 /dev/urandom | base64; sleep 0.05; i=\$((i + 1)); done\""
printf 'name: boot-idle\ninventory: inv.yaml\nboards: [bq]\ntests:%s\n' "$boot_test" \
	>"$work/idle.yaml"
printf 'name: boot-fan\ninventory: inv.yaml\nboards: [all]\ntests:%s%s\n' "$boot_test" \
	"$fan_test" >"$work/fan.yaml"

# boot TAG SCENARIO [PREFIX...]: one run (the fan-out lasts 30 s, the boot less)
boot() {
	tag=$1 sc=$2
	shift 2
	"$@" "$orch" run "$work/$sc" -o "$work/runs-$tag" >"$work/orch-$tag.out" 2>&1 ||
		true
	res=$(ls "$work"/runs-"$tag"/*/2*/results.json 2>/dev/null | head -1)
	if [ -z "$res" ]; then
		echo "  $tag: no results.json (see $work/orch-$tag.out)"
		return 0
	fi
	python3 - "$tag" "$res" <<'EOF'
import json, sys
tag, res = sys.argv[1:3]
for t in json.load(open(res))["results"]:
    if t.get("test") != "boot":
        continue
    print("  %-13s %s, %.2f s" % (tag, t["status"], t.get("duration_s", 0)))
    print("  %-13s %s" % ("", "  ".join("%s %.3f (%s)" % (p["name"], p.get("duration_s", 0),
                                                  p.get("clock", "-")) for p in t["phases"])))
    print("  %-13s %s" % ("", t.get("console_sched", "?")))
EOF
	fans=$(grep -c " fan .* pass" "$work/orch-$tag.out" || true)
	[ "$sc" = fan.yaml ] && echo "                fan-out: $fans of $nboards boards passed"
	return 0
}

echo "boot under fan-out: a qemu board's console, $(nproc) cores," \
	"qemu ${QEMU_RT:-1}" | sed 's/qemu 1$/qemu SCHED_FIFO 10 (root)/; s/qemu 0$/qemu ordinary/'
boot idle idle.yaml
boot fanout fan.yaml
[ -n "${ALSO_NOQOS:-}" ] && boot fanout-noqos fan.yaml env ORCH_CPU_DMA_LATENCY=off
[ -n "$nopriv" ] && boot fanout-nopriv fan.yaml $nopriv
exit 0
