#!/bin/sh
# orch's own cost with the history on (the default), as the history grows:
# a rack of 64 OpenSSH boards on loopback (tests/lab/sshd-lab.sh, board
# shell /bin/sh), 40 tests x 64 boards with one regex metric each. Per orch
# run its CPU (user+sys) and peak RSS as the kernel accounts them (wait4's
# rusage, through /usr/bin/time), side by side for a history of 0, 10 and
# 65 earlier nights (NIGHTS), each run:
#   - with --no-history (the reference: nothing read or written);
#   - with the history (indexed, and the trends of the last 10 nights);
#   - with --baseline history (judged against the last 10 nights too).
# Each run starts from a copy of that history (the first night's rows
# copied to earlier nights with python3's sqlite3), in a runs folder of its
# own, so every round measures the same state; ROUNDS rounds, the three
# kinds of run taken in turn, medians printed with their ratio to
# --no-history. The targets: <= 1.5 s CPU and <= 20 MiB peak RSS at
# 40 x 64; the history's: within 1.2x of --no-history.
#   bench/history-rss.sh [ROUNDS] [ORCH_BINARY]
# Environment: RACK_BASE (127.0.133), NIGHTS ("0 10 65"), RUNS_DIR (a
# scratch folder in /dev/shm; give one on disk to count the file creates
# too).
set -eu
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lab-inventory.sh"
orch=${2:-$repo/build/orch}
base=${RACK_BASE:-127.0.133}
nights=${NIGHTS:-0 10 65}
case $orch in /*) ;; *) orch=$(pwd)/$orch ;; esac
[ -x "$orch" ] || { echo "history-rss: no orch binary at $orch: build it first" >&2; exit 2; }
for tool in /usr/bin/time python3; do
	command -v "$tool" >/dev/null || { echo "history-rss: needs $tool" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/orch-historyrss-XXXXXX)
chmod 755 "$dir"
locks=$(mktemp -d /dev/shm/orch-historyrss-locks-XXXXXX)
runs=${RUNS_DIR:-$(mktemp -d /dev/shm/orch-historyrss-runs-XXXXXX)}
mkdir -p "$runs"
cleanup() {
	"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1 || true
	rm -rf "$dir" "$locks" "$runs/histrss"
	[ -n "${RUNS_DIR:-}" ] || rm -rf "$runs"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards 64 --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
export ORCH_LOCK_DIR="$locks"
lab_inventory "$user" 2222 64 "$base" hr "$dir/lab" >"$dir/inventory.yaml"
{
	echo "name: s40"
	echo "inventory: $dir/inventory.yaml"
	echo "tests:"
	t=1
	while [ $t -le 40 ]; do
		echo "  - { name: t$t, run: 'echo value: $t', metrics: [{ name: v, regex: 'value: ([0-9]+)', better: higher }] }"
		t=$((t + 1))
	done
} >"$dir/s40.yaml"

# one HISTORY KIND NIGHTS [orch options]: runs orch in a fresh runs folder
# holding a copy of HISTORY (or none), and appends "KIND NIGHTS user sys
# maxrss_kib" to the figures; the runs folder goes away after.
one() {
	hist=$1 kind=$2 n=$3
	shift 3
	r="$runs/histrss"
	rm -rf "$r"
	mkdir -p "$r"
	[ "$hist" = none ] || cp "$hist" "$r/orch-history.sqlite"
	/usr/bin/time -f '%U %S %M' -o "$dir/time.out" "$orch" run "$dir/s40.yaml" -q -o "$r" "$@" \
		>"$dir/orch.log" 2>&1 || [ $? = 1 ] ||
		{ echo "history-rss: orch run failed:" >&2; tail -5 "$dir/orch.log" >&2; exit 1; }
	grep -q 'history: the run was not recorded\|nothing was judged' "$dir/orch.log" &&
		{ echo "history-rss: the history failed:" >&2; grep history "$dir/orch.log" >&2; exit 1; }
	echo "$kind $n $(cat "$dir/time.out")" >>"$dir/figures"
	rm -rf "$r"
}

echo "machine: $(nproc) cores, $(uname -r); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "orch: $orch"

# The histories: night 1 from a real run, the nights before it copies of
# its rows, a day apart.
r="$runs/histrss"
rm -rf "$r"
mkdir -p "$r"
"$orch" run "$dir/s40.yaml" -q -o "$r" >"$dir/orch.log" 2>&1 || [ $? = 1 ] ||
	{ echo "history-rss: orch run failed:" >&2; tail -5 "$dir/orch.log" >&2; exit 1; }
python3 - "$r/orch-history.sqlite" "$dir" $nights <<'EOF'
import shutil, sqlite3, sys
src, out, counts = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
db = sqlite3.connect(src)
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
for n in counts:
    if n == 0:
        continue
    dst = "%s/h%d.sqlite" % (out, n)
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    first = db.execute("SELECT min(id), start_us FROM history_run WHERE scenario = 's40'").fetchone()
    for k in range(n - 1):
        when = first[1] - (k + 1) * 86400000000
        cur = db.execute("INSERT INTO history_run (scenario, run_id, host, run_dir, start_us, end_us,"
                         " exit_code, orch_version, label) VALUES ('s40', ?, 'bench', ?, ?, ?, 0,"
                         " '0', NULL)", ("old-%d" % k, "/old/%d" % k, when, when + 1))
        db.execute("INSERT INTO history_metric (run, board, test, metric, unit, better, status, n,"
                   " median, mean, stddev, min, max, samples) SELECT ?, board, test, metric, unit,"
                   " better, status, n, median, mean, stddev, min, max, samples FROM history_metric"
                   " WHERE run = ?", (cur.lastrowid, first[0]))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
EOF
rm -rf "$r"

round=1
while [ $round -le "$rounds" ]; do
	for n in $nights; do
		h=none
		[ "$n" = 0 ] || h="$dir/h$n.sqlite"
		one "$h" no-history "$n" --no-history
		one "$h" history "$n"
		one "$h" baseline "$n" --baseline history
	done
	round=$((round + 1))
done

python3 - "$dir/figures" "$rounds" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
fig = {}
for kind, n, user, sys_, rss in rows:
    fig.setdefault((int(n), kind), []).append((float(user) + float(sys_), int(rss) / 1024))
def med(n, kind, i):
    return statistics.median(v[i] for v in fig[(n, kind)])
print("medians of %s round(s); CPU = user + sys, RSS = peak, both from the kernel (wait4)" % sys.argv[2])
print("%-7s %-22s %-22s %-22s %-8s %-8s" % ("nights", "--no-history", "history",
      "--baseline history", "hist/no", "base/no"))
worst = {"cpu": 0, "rss": 0, "ratio": 0}
for n in sorted({k[0] for k in fig}):
    c0, c1, c2 = (med(n, k, 0) for k in ("no-history", "history", "baseline"))
    m0, m1, m2 = (med(n, k, 1) for k in ("no-history", "history", "baseline"))
    print("%-7d %5.2f s %6.1f MiB     %5.2f s %6.1f MiB     %5.2f s %6.1f MiB     %5.2fx   %5.2fx"
          % (n, c0, m0, c1, m1, c2, m2, c1 / c0, c2 / c0))
    worst["cpu"] = max(worst["cpu"], c1, c2)
    worst["rss"] = max(worst["rss"], m1, m2)
    worst["ratio"] = max(worst["ratio"], c1 / c0, c2 / c0)
def verdict(v, limit):
    return "ok" if v <= limit else "MISSED"
print("orch CPU s with the history, worst                 %6.2f  (target <= 1.5) %s"
      % (worst["cpu"], verdict(worst["cpu"], 1.5)))
print("CPU with the history / --no-history, worst         %6.2f  (target <= 1.2) %s"
      % (worst["ratio"], verdict(worst["ratio"], 1.2)))
print("peak RSS MiB with the history, worst               %6.1f  (target <= 20) %s"
      % (worst["rss"], verdict(worst["rss"], 20)))
print("every run (kind nights user sys maxrss_kib):")
for r in rows:
    print("  " + " ".join(r))
EOF
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
