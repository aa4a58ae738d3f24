#!/bin/sh
# remote-bench pushes by two builds of orch side by side (e.g. before and
# after a change to the push): one OpenSSH board on loopback
# (tests/lab/sshd-lab.sh) seen as four boards, one per arch (i586, armv5,
# armhf, aarch64: `arch:` in the inventory, each its own workdir), and a
# scenario with a `bench:` test per remote-bench program (cpu, mem, disk,
# net, crypto: 20 pushes a run). Foreign binaries cannot run here, so the
# tests fail after the push, the same way for both builds. Each round, for
# each build in turn (the order alternates): the boards' copies removed,
# one whole `orch run` timed (pushes: ask, transfer, check, rename), then a
# second one timed (every program already there: asked only); the pushed
# files are compared with the controller's. Prints every run, the medians
# and the ratios AFTER/BEFORE.
#   bench/bench-push.sh [--runs N] [--base 127.0.183] [--port 42900]
#                       --bench-dir DIR BEFORE_ORCH AFTER_ORCH
# DIR holds ARCH/remote-bench-NAME for the four arches
# (scripts/build-remote-bench.sh DIR i586 armv5 armhf aarch64).
# Needs sshd and python3.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
runs=5
base=127.0.183
port=42900
bdir=
before=
after=
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--bench-dir) bdir=$(cd "$2" && pwd); shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) if [ -z "$before" ]; then before=$1; else after=$1; fi; shift ;;
	esac
done
[ -x "$before" ] && [ -x "$after" ] || { echo "give BEFORE_ORCH and AFTER_ORCH" >&2; exit 2; }
arches="i586 armv5 armhf aarch64"
progs="cpu mem disk net crypto"
for a in $arches; do
	for p in $progs; do
		[ -r "$bdir/$a/remote-bench-$p" ] ||
			{ echo "no $bdir/$a/remote-bench-$p (--bench-dir)" >&2; exit 2; }
	done
done

work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
	"$src/tests/lab/sshd-lab.sh" down --dir "$work/lab" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$src/tests/lab/sshd-lab.sh" up --dir "$work/lab" --boards 1 --dropbear 0 --base "$base" \
	--port "$port" >/dev/null
. "$work/lab/lab.env"
{
	echo "boards:"
	for a in $arches; do
		mkdir -m 777 "$work/wd-$a"
		echo "  rb-$a: { arch: $a, workdir: $work/wd-$a,"
		echo "           ssh: { host: $base.1, port: $port, user: $LAB_USER,"
		echo "                  identity: $work/lab/id_ed25519, known_hosts: $work/lab/known_hosts } }"
	done
} > "$work/inv.yaml"
{
	printf 'name: pushes\ninventory: inv.yaml\ntests:\n'
	for p in $progs; do
		printf '  - name: %s\n    bench: %s\n    args: [--help]\n' "$p" "$p"
	done
} > "$work/pushes.yaml"

export ORCH_LOCK_DIR="$work/locks"
now() { python3 -c 'import time; print(time.monotonic())'; }
timed_run() {  # ORCH: one whole orch run, its seconds
	t0=$(now)
	"$1" run "$work/pushes.yaml" -o "$work/runs" --bench-dir "$bdir" -q >/dev/null 2>&1 || true
	python3 -c "import time; print(f'{time.monotonic() - $t0:.3f}')"
}
check_copies() {
	for a in $arches; do
		for p in $progs; do
			cmp -s "$bdir/$a/remote-bench-$p" "$work/wd-$a/bin/remote-bench-$p" ||
				{ echo "$1: remote-bench-$p for $a not pushed whole" >&2; exit 1; }
		done
	done
}
one() {  # NAME ORCH: fresh pushes, then already there
	rm -rf "$work"/wd-*/bin
	f=$(timed_run "$2")
	check_copies "$1"
	t=$(timed_run "$2")
	echo "$1 $f $t"
}
: > "$work/times"
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) = 0 ]; then
		one before "$before" >> "$work/times"; one after "$after" >> "$work/times"
	else
		one after "$after" >> "$work/times"; one before "$before" >> "$work/times"
	fi
	i=$((i + 1))
	echo "round $i: $(tail -n 2 "$work/times" | tr '\n' ' ')"
done
python3 - "$work/times" <<'EOT'
import statistics, sys
t = {"before": ([], []), "after": ([], [])}
for line in open(sys.argv[1]):
    name, fresh, there = line.split()
    t[name][0].append(float(fresh))
    t[name][1].append(float(there))
for i, what in enumerate(("20 pushes (fresh boards)", "20 already there")):
    b = statistics.median(t["before"][i])
    a = statistics.median(t["after"][i])
    print(f"{what}: before median {b:.3f}s, after median {a:.3f}s, after/before {a / b:.2f}")
EOT
