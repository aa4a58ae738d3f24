#!/bin/sh
# `orch exec uname -r` to 32 and 64 loopback OpenSSH boards
# (tests/lab/sshd-lab.sh, the lab user's shell /bin/sh, no profile) side by
# side in one run with pdsh (-R ssh), clush and parallel-ssh, every
# OpenSSH client forced to curve25519-sha256 (what libssh negotiates) and
# as many connections at once as boards; then the 64 with 10 dead boards
# beside them (nothing listens there: refused at once; the connect timeout,
# 5 s for every tool, bounds a board that does not answer). Wall time
# (date) and the client's CPU (bench/cgcpu.sh: the kernel's accounting of
# the client and all its children, as root), the median of REPS runs each,
# the tools taking turns within a round. No assertion: numbers vary with
# the machine's load.
#   bench/adhoc-vs-tools.sh [REPS] [ORCH_BINARY]
# Environment: ADHOC_BASE (127.0.2): the boards, BASE.1..64; ADHOC_DEAD_BASE
# (127.0.3): the dead ones, DEAD_BASE.1..10.
set -eu
reps=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
orch=${2:-$repo/build/orch}
base=${ADHOC_BASE:-127.0.2}
dead_base=${ADHOC_DEAD_BASE:-127.0.3}
. "$here/cgcpu.sh"
. "$here/lab-inventory.sh"
for t in pdsh clush nodeset parallel-ssh; do
	command -v "$t" >/dev/null || { echo "needs $t (apt-get install pdsh clustershell pssh)"; exit 77; }
done
[ -x "$orch" ] || { echo "orch binary $orch missing: build it first"; exit 1; }
dir=$(mktemp -d /tmp/orch-adhoc-XXXXXX)
chmod 755 "$dir"
trap '"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1; cg_cleanup; rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards 64 --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
cg_init "orch-adhoc-$$"
cg_make boards
cg_make client
cg_add boards $(cat "$dir"/lab/board*/sshd.pid)

# the lab's ssh_config with the dead boards, and the same boards for orch
cfg=$dir/ssh_config
{
	cat "$dir/lab/ssh_config"
	i=1
	while [ $i -le 10 ]; do
		printf 'Host dead%d\n  HostName %s.%d\n  Port 2222\n  User %s\n  IdentityFile %s/lab/id_ed25519\n  UserKnownHostsFile %s/lab/known_hosts\n  BatchMode yes\n\n' \
			$i "$dead_base" $i "$user" "$dir" "$dir"
		i=$((i + 1))
	done
} >"$cfg"
lab_inventory "$user" 2222 64 "$base" lab >"$dir/inventory.yaml"
sed -i 's/^  ssh: { /  ssh: { connect_timeout: 5s, /' "$dir/inventory.yaml"
i=1
while [ $i -le 10 ]; do
	echo "  dead$i: { ssh: { host: $dead_base.$i } }" >>"$dir/inventory.yaml"
	i=$((i + 1))
done
sshopt="-F $cfg -o KexAlgorithms=curve25519-sha256 -o ConnectTimeout=5"
ssh -F "$cfg" -o KexAlgorithms=curve25519-sha256 -v lab1 true 2>&1 |
	sed -n 's/.*kex: algorithm: /  OpenSSH clients: kex /p' | head -1

now() { date +%s.%N; }

# run TOOL SET N: one run of TOOL on node set SET (N hosts); prints "WALL CPU_MS"
run() {
	tool=$1 set=$2 n=$3
	hosts=$(nodeset -e "$set")
	cg_fan_begin "$n"
	t0=$(now)
	case $tool in
	orch) cg_exec client "$orch" exec -i "$dir/inventory.yaml" -l "$set" -- uname -r ;;
	pdsh) cg_exec client env PDSH_SSH_ARGS="$sshopt -x %h" pdsh -R ssh -f "$n" -w "$set" uname -r ;;
	clush) cg_exec client clush -b -f "$n" -o "$sshopt" -w "$set" uname -r ;;
	pssh) cg_exec client parallel-ssh -p "$n" -t 0 -x "$sshopt" -H "$hosts" -i uname -r ;;
	esac >"$dir/out.$tool" 2>&1 || true
	t1=$(now)
	f=$(cg_fan_end "$n")
	set -- $f
	awk -v a="$t0" -v b="$t1" -v c="${1:-nan}" 'BEGIN { printf "%.3f %s\n", b - a, c }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# case NAME SET N: REPS rounds of the four tools, then the medians and ratios
bench_case() {
	name=$1 set=$2 n=$3
	: >"$dir/res"
	r=1
	while [ $r -le "$reps" ]; do
		for tool in orch pdsh clush pssh; do
			echo "$tool $(run "$tool" "$set" "$n")" >>"$dir/res"
		done
		r=$((r + 1))
	done
	echo "$name ($set, $reps runs each, median):"
	for tool in orch pdsh clush pssh; do
		w=$(awk -v t=$tool '$1 == t { print $2 }' "$dir/res" | median)
		c=$(awk -v t=$tool '$1 == t { print $3 }' "$dir/res" | median)
		eval "w_$tool=$w c_$tool=$c"
		printf '  %-6s wall %6.3f s  client CPU %7.0f ms  (%s)\n' "$tool" "$w" "$c" \
			"$(grep -c . "$dir/out.$tool") output lines"
	done
	for tool in pdsh clush pssh; do
		eval "w=\$w_$tool c=\$c_$tool"
		awk -v t=$tool -v ow="$w_orch" -v oc="$c_orch" -v w="$w" -v c="$c" \
			'BEGIN { printf "  orch / %-6s wall %.2fx  CPU %.2fx\n", t, ow / w, oc / c }'
	done
}

echo "orch exec uname -r against pdsh, clush, parallel-ssh on loopback ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
bench_case "32 boards" "lab[1-32]" 32
bench_case "64 boards" "lab[1-64]" 64
bench_case "64 boards and 10 dead" "lab[1-64],dead[1-10]" 74
echo "orch's folded output, 64 and 10 dead:"
sed 's/^/  /' "$dir/out.orch"
