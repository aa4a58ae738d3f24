#!/bin/sh
# Two orch binaries side by side on the 40 x 64 rack, alternating
# in every round, with the same 2560 commands through one OpenSSH
# ControlMaster per board after them: a quick version of rack-scale.sh for
# a before/after pair (e.g. the channel per command against the command
# runner). Prints /usr/bin/time's wall, user+sys CPU and peak RSS of each
# run and the ControlMaster's wall time.
#   bench/runner-vs-channel.sh BEFORE_ORCH AFTER_ORCH [ROUNDS]
# Environment: RACK_BASE (127.0.130). Run it under the quiet lock.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/lab-inventory.sh"
before=$1; after=$2; rounds=${3:-2}
dir=$(mktemp -d /tmp/orch-runnerbench-XXXXXX); chmod 755 $dir
n=64; base=${RACK_BASE:-127.0.130}
$repo/tests/lab/sshd-lab.sh up --dir $dir/lab --boards $n --dropbear 0 --base $base >/dev/null
trap '$repo/tests/lab/sshd-lab.sh down --dir $dir/lab >/dev/null 2>&1; rm -rf $dir' EXIT
user=$(sed -n 's/^LAB_USER=//p' $dir/lab/lab.env); cfg=$dir/lab/ssh_config
export ORCH_LOCK_DIR=$(mktemp -d /dev/shm/orch-runnerbench-locks-XXXX)
lab_inventory "$user" 2222 "$n" "$base" rs > $dir/inventory.yaml
{ echo "name: s40"; echo "inventory: inventory.yaml"; echo "boards: [all]"; echo "tests:"
  t=1; while [ $t -le 40 ]; do echo "  - { name: t$t, run: 'echo t$t' }"; t=$((t+1)); done; } > $dir/s40.yaml
now() { date +%s.%N; }
for r in $(seq $rounds); do
  for b in before after; do
    eval bin=\$$b
    /usr/bin/time -f "$b orch %e s wall %U+%S cpu %M KiB" $bin run $dir/s40.yaml -q -o $dir/runs-$b-$r >/dev/null 2>$dir/err || true; tail -1 $dir/err
    rm -rf $dir/runs-$b-$r
  done
  mkdir -p $dir/cm; t0=$(now)
  i=1; while [ $i -le $n ]; do (
     s=$dir/cm/$i; ssh -F $cfg -o LogLevel=ERROR -o ControlMaster=yes -o ControlPath=$s -o ControlPersist=no -fN lab$i
     t=1; while [ $t -le 40 ]; do ssh -F $cfg -o ControlPath=$s lab$i "echo t$t" >/dev/null; t=$((t+1)); done
     ssh -F $cfg -o ControlPath=$s -O exit lab$i 2>/dev/null ) & i=$((i+1)); done; wait
  echo "controlmaster $(awk -v a=$t0 -v b=$(now) 'BEGIN{print b-a}') s"
done
rm -rf "$ORCH_LOCK_DIR"
