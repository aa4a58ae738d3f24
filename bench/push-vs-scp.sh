#!/bin/sh
# A 64 MiB file pushed to one board by orch (`push:` in a scenario, the
# whole `orch run` timed: connect, checksums, transfer, rename) side by side
# with scp of the same file to the same sshd, alternating runs; prints every
# run, the medians and the ratio orch/scp. The board is an OpenSSH server on
# loopback started by tests/lab/sshd-lab.sh; the board's copy is removed
# before every run, so each push really transfers (a second push of the same
# file is skipped by checksum and would be unfair to scp). orch runs twice
# per round: with its default cipher order for the board (AES-GCM first)
# and with `ciphers: chacha20-poly1305@openssh.com`, scp's default.
#   bench/push-vs-scp.sh [--runs N] [--size MiB] [--base 127.0.171] [--port 42290] [ORCH]
# ORCH defaults to build-werror/orch. Needs scp, sshd, python3.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
runs=5
size=64
base=127.0.171
port=42290
orch=$src/build-werror/orch
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) orch=$1; shift ;;
	esac
done
[ -x "$orch" ] || { echo "no orch at $orch (build it, or give its path)" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
	[ -f "$work/lab/ssh_config" ] &&
		ssh -F "$work/lab/ssh_config" lab1 'rm -f /tmp/push-bench.orch /tmp/push-bench.scp' 2>/dev/null
	"$src/tests/lab/sshd-lab.sh" down --dir "$work/lab" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$src/tests/lab/sshd-lab.sh" up --dir "$work/lab" --boards 1 --dropbear 0 --base "$base" \
	--port "$port" >/dev/null
. "$work/lab/lab.env"
head -c $((size * 1048576)) /dev/urandom > "$work/file.bin"
cat > "$work/inv.yaml" <<EOT
boards:
  push-bench:
    ssh: { host: $base.1, port: $port, user: $LAB_USER, identity: $work/lab/id_ed25519,
           known_hosts: $work/lab/known_hosts }
  push-bench-chacha:
    ssh: { host: $base.1, port: $port, user: $LAB_USER, identity: $work/lab/id_ed25519,
           known_hosts: $work/lab/known_hosts, ciphers: chacha20-poly1305@openssh.com }
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
orch_push() {  # BOARD: one whole orch run, timed
	t0=$(now)
	"$orch" run "$work/push.yaml" -l "$1" -o "$work/runs" -q >/dev/null 2>&1 ||
		{ echo "orch run failed:" >&2; grep -h "\"status\"\\|\"message\"" "$work"/runs/push/latest/*/push/result.json >&2; exit 1; }
	python3 -c "import time; print(f'{time.monotonic() - $t0:.3f}')"
}
orch_times= chacha_times= scp_times=
i=0
while [ $i -lt "$runs" ]; do
	ssh_to 'rm -f /tmp/push-bench.orch /tmp/push-bench.scp'
	t0=$(now)
	scp -q -F "$work/lab/ssh_config" "$work/file.bin" lab1:/tmp/push-bench.scp
	s=$(python3 -c "import time; print(f'{time.monotonic() - $t0:.3f}')")
	o=$(orch_push push-bench)
	ssh_to 'cmp /tmp/push-bench.orch /tmp/push-bench.scp && rm -f /tmp/push-bench.orch' ||
		{ echo "copies differ" >&2; exit 1; }
	c=$(orch_push push-bench-chacha)
	echo "run $((i + 1)): scp ${s}s  orch ${o}s  orch-chacha20 ${c}s"
	scp_times="$scp_times $s"
	orch_times="$orch_times $o"
	chacha_times="$chacha_times $c"
	i=$((i + 1))
done
ssh_to 'cmp /tmp/push-bench.orch /tmp/push-bench.scp' || { echo "copies differ" >&2; exit 1; }
python3 - "$scp_times" "$orch_times" "$chacha_times" "$size" <<'EOT'
import statistics, sys
scp = [float(x) for x in sys.argv[1].split()]
ms = statistics.median(scp)
print(f"{sys.argv[4]} MiB: scp median {ms:.3f}s best {min(scp):.3f}s")
for name, arg in (("orch", sys.argv[2]), ("orch (chacha20-poly1305)", sys.argv[3])):
    t = [float(x) for x in arg.split()]
    mo = statistics.median(t)
    print(f"  {name}: median {mo:.3f}s best {min(t):.3f}s; orch/scp {mo / ms:.2f} (median), "
          f"{min(t) / min(scp):.2f} (best)")
EOT
