#!/bin/sh
# A 64 MiB file pushed to one board by orch (`push:` in a scenario, the
# whole `orch run` timed: connect, checksums, transfer, rename) side by side
# with scp of the same file to the same sshd, alternating runs; prints every
# run, the medians and the ratio orch/scp. The board is an OpenSSH server on
# loopback started by tests/lab/sshd-lab.sh; the board's copy is removed
# before every run, so each push really transfers (a second push of the same
# file is skipped by checksum and would be unfair to scp).
#   bench/push-vs-scp.sh [--runs N] [--size MiB] [--base 127.0.160] [ORCH]
# ORCH defaults to build-werror/orch. Needs scp, sshd, python3.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
runs=5
size=64
base=127.0.160
orch=$src/build-werror/orch
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) orch=$1; shift ;;
	esac
done
[ -x "$orch" ] || { echo "no orch at $orch (build it, or give its path)" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
	"$src/tests/lab/sshd-lab.sh" down --dir "$work/lab" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$src/tests/lab/sshd-lab.sh" up --dir "$work/lab" --boards 1 --dropbear 0 --base "$base" \
	--port 2222 >/dev/null
. "$work/lab/lab.env"
head -c $((size * 1048576)) /dev/urandom > "$work/file.bin"
cat > "$work/inv.yaml" <<EOT
boards:
  push-bench:
    ssh: { host: $base.1, port: 2222, user: $LAB_USER, identity: $work/lab/id_ed25519,
           known_hosts: $work/lab/known_hosts }
EOT
cat > "$work/push.yaml" <<EOT
inventory: inv.yaml
tests:
  - name: push
    push: { src: file.bin, dest: /tmp/push-bench.orch }
    run: "true"
EOT
ssh_to() { ssh -F "$work/lab/ssh_config" lab1 "$@"; }
now() { python3 -c 'import time; print(time.monotonic())'; }

export ORCH_LOCK_DIR="$work/locks"
orch_times= scp_times=
i=0
while [ $i -lt "$runs" ]; do
	ssh_to 'rm -f /tmp/push-bench.orch /tmp/push-bench.scp'
	t0=$(now)
	scp -q -F "$work/lab/ssh_config" "$work/file.bin" lab1:/tmp/push-bench.scp
	t1=$(now)
	"$orch" run "$work/push.yaml" -o "$work/runs" -q >/dev/null 2>&1 ||
		{ echo "orch run failed:" >&2; cat "$work"/runs/push/latest/*/push/result.json >&2; exit 1; }
	t2=$(now)
	s=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
	o=$(python3 -c "print(f'{$t2 - $t1:.3f}')")
	echo "run $((i + 1)): scp ${s}s  orch ${o}s"
	scp_times="$scp_times $s"
	orch_times="$orch_times $o"
	i=$((i + 1))
done
ssh_to 'cmp /tmp/push-bench.orch /tmp/push-bench.scp' || { echo "copies differ" >&2; exit 1; }
python3 - "$scp_times" "$orch_times" "$size" <<'EOT'
import statistics, sys
scp = [float(x) for x in sys.argv[1].split()]
orch = [float(x) for x in sys.argv[2].split()]
ms, mo = statistics.median(scp), statistics.median(orch)
print(f"{sys.argv[3]} MiB: scp median {ms:.3f}s best {min(scp):.3f}s; "
      f"orch median {mo:.3f}s best {min(orch):.3f}s; orch/scp {mo / ms:.2f} (median), "
      f"{min(orch) / min(scp):.2f} (best)")
EOT
