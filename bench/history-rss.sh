#!/bin/sh
# orch's own cost with the history on (the default), as a night grows old:
# a rack of 64 OpenSSH boards on loopback (tests/lab/sshd-lab.sh, board
# shell /bin/sh), 40 tests x 64 boards with one regex metric each, and per
# orch run its CPU (user+sys) and peak RSS from the kernel (/usr/bin/time):
#   - once with --no-history;
#   - ROUNDS runs in one runs folder, the history growing by a night each;
#   - once more after the history was grown to NIGHTS nights (copies of the
#     first night's rows, written with python3's sqlite3), plain and with
#     --baseline history.
# Issue 12's targets: <= 1.5 s CPU and <= 20 MiB peak RSS at 40 x 64.
#   bench/history-rss.sh [ROUNDS] [ORCH_BINARY]
# Environment: RACK_BASE (127.0.133), NIGHTS (65), RUNS_DIR (a scratch
# folder in /dev/shm; give one on disk to count the file creates too).
set -eu
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lab-inventory.sh"
orch=${2:-$repo/build/orch}
base=${RACK_BASE:-127.0.133}
nights=${NIGHTS:-65}
case $orch in /*) ;; *) orch=$(pwd)/$orch ;; esac
[ -x "$orch" ] || { echo "history-rss: no orch binary at $orch: build it first" >&2; exit 2; }
for tool in /usr/bin/time python3; do
	command -v "$tool" >/dev/null || { echo "history-rss: needs $tool" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/orch-historyrss-XXXXXX)
chmod 755 "$dir"
locks=$(mktemp -d /dev/shm/orch-historyrss-locks-XXXXXX)
runs=${RUNS_DIR:-$(mktemp -d /dev/shm/orch-historyrss-runs-XXXXXX)}
cleanup() {
	"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1 || true
	rm -rf "$dir" "$locks" "$runs"
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

# one WHAT [orch options]: prints "WHAT  cpu S  rss MiB"
one() {
	what=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$dir/time.out" "$orch" run "$dir/s40.yaml" -q -o "$runs" "$@" \
		>"$dir/orch.log" 2>&1 || [ $? = 1 ] ||
		{ echo "history-rss: orch run failed:" >&2; tail -5 "$dir/orch.log" >&2; exit 1; }
	awk -v w="$what" '{ printf "%-34s cpu %5.2f s   peak RSS %5.1f MiB\n", w, $1 + $2, $3 / 1024 }' \
		"$dir/time.out"
}

echo "machine: $(nproc) cores, $(uname -r); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
one "--no-history" --no-history
r=1
while [ $r -le "$rounds" ]; do
	one "history, night $r"
	r=$((r + 1))
done
python3 - "$runs/orch-history.sqlite" "$nights" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
have = db.execute("SELECT count(*) FROM history_run WHERE scenario = 's40'").fetchone()[0]
first = db.execute("SELECT min(id), start_us FROM history_run WHERE scenario = 's40'").fetchone()
for k in range(n - have):
    cur = db.execute("INSERT INTO history_run (scenario, run_id, host, run_dir, start_us, end_us,"
                     " exit_code, orch_version, label) VALUES ('s40', ?, 'bench', ?, ?, ?, 0,"
                     " '0', NULL)", ("old-%d" % k, "/old/%d" % k, first[1] - (k + 1) * 86400000000,
                                    first[1] - (k + 1) * 86400000000 + 1))
    db.execute("INSERT INTO history_metric (run, board, test, metric, unit, better, status, n,"
               " median, mean, stddev, min, max, samples) SELECT ?, board, test, metric, unit,"
               " better, status, n, median, mean, stddev, min, max, samples FROM history_metric"
               " WHERE run = ?", (cur.lastrowid, first[0]))
db.commit()
EOF
one "history of $nights nights"
one "history of $nights nights, --baseline" --baseline history
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
