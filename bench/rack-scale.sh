#!/bin/sh
# A rack-sized night, side by side: a rack of 64 OpenSSH boards on
# loopback (tests/lab/sshd-lab.sh; the board user's shell is /bin/sh with no
# profile), and in each round, one after the other:
#   - orch run, 40 tests x 64 boards (2560 results), plain and with one regex
#     metric per test, against the same 2560 commands sent through one
#     OpenSSH ControlMaster connection per board (master set up, 40 commands,
#     `ssh -O exit`, all timed), boards in parallel;
#   - orch run, 10 and 160 tests x 64 boards (640 and 10240 results): orch
#     CPU per result and peak RSS per result (the kernel's accounting, via
#     /usr/bin/time);
#   - fan-out of one command to 64 boards: `orch run` of a 1-test scenario
#     against parallel-ssh (pssh, -p 64) with OpenSSH's default key exchange
#     (sntrup761x25519 on OpenSSH 9.2) and with curve25519-sha256 forced (the
#     one libssh 0.10, and so orch, negotiates). For each of the three, the
#     client's own CPU (orch, or parallel-ssh and its ssh processes) and the
#     boards' CPU per connection (every board's sshd, the sessions it starts
#     and their shells), read from the kernel's accounting (bench/cgcpu.sh:
#     a cgroup each, as root; "not measured" otherwise), and from them the
#     fan-out's floor: the ratios orch would reach if it added nothing to
#     the boards' own cost of a connection and used no CPU itself (see
#     fan_floor), next to the same ratio of orch's own CPU figures.
# Prints every round, then the medians, ratios and targets. Timing on a
# shared machine varies: the ratios come from runs made side by side.
#   bench/rack-scale.sh [ROUNDS] [ORCH_BINARY]
# Environment: RACK_BOARDS (64), RACK_BASE (127.0.130), RACK_SKIP_BIG=1 skips
# the 10240-result run, RACK_RUNS_DIR: where run folders go (default: a
# scratch folder under /tmp; each run gets its own, all removed at the end:
# removing thousands of files just before the next run makes ext4's inode
# allocator, and so orch's system time, much slower).
# Board locks go to a scratch folder in /dev/shm (ORCH_LOCK_DIR), so
# boards of other labs with the same names do not collide.
set -eu
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
. "$here/cgcpu.sh"
. "$here/lab-inventory.sh"
orch=${2:-$repo/build/orch}
n=${RACK_BOARDS:-64}
base=${RACK_BASE:-127.0.130}
case $orch in /*) ;; *) orch=$(pwd)/$orch ;; esac
[ -x "$orch" ] || { echo "rack-scale: no orch binary at $orch: build it first" >&2; exit 2; }
for tool in parallel-ssh /usr/bin/time ssh; do
	command -v "$tool" >/dev/null || { echo "rack-scale: needs $tool (scripts/install-deps.sh bench)" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/orch-rackscale-XXXXXX)
chmod 755 "$dir"
locks=$(mktemp -d /dev/shm/orch-rackscale-locks-XXXXXX)
runs=${RACK_RUNS_DIR:-$dir/runs}
case $runs in /*) ;; *) runs=$(pwd)/$runs ;; esac
cleanup() {
	for s in "$dir"/cm/*; do
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1 || true
	done
	"$repo/tests/lab/sshd-lab.sh" down --dir "$dir/lab" >/dev/null 2>&1 || true
	cg_cleanup
	rm -rf "$dir" "$locks" "$runs"/rack-scale-*
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/tests/lab/sshd-lab.sh" up --dir "$dir/lab" --boards "$n" --dropbear 0 --base "$base" >/dev/null
user=$(sed -n 's/^LAB_USER=//p' "$dir/lab/lab.env")
cfg=$dir/lab/ssh_config
# the boards' listeners in one group (their connections follow), each
# fan-out's client in another
cg_init "orch-rackscale-$$"
cg_make boards
cg_make client
cg_add boards $(cat "$dir"/lab/board*/sshd.pid)
mkdir -p "$dir/cm" "$runs"
export ORCH_LOCK_DIR="$locks"
lab_inventory "$user" 2222 "$n" "$base" rs >"$dir/inventory.yaml"
i=1
while [ $i -le "$n" ]; do echo "lab$i"; i=$((i + 1)); done >"$dir/hosts"

# scenario NAME TESTS METRIC(0|1)
scenario() {
	{
		echo "name: $1"
		echo "inventory: inventory.yaml"
		echo "boards: [all]"
		echo "tests:"
		t=1
		while [ $t -le "$2" ]; do
			if [ "$3" = 1 ]; then
				echo "  - { name: t$t, run: 'echo value: $t', metrics: [{ name: v, regex: 'value: ([0-9]+)' }] }"
			else
				echo "  - { name: t$t, run: 'echo t$t' }"
			fi
			t=$((t + 1))
		done
	} >"$dir/$1.yaml"
}
scenario fanout 1 0
scenario s10 10 0
scenario s40 40 0
scenario s40m 40 1
scenario s160 160 0

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# fan_cpu_end KEY (after cg_fan_begin "$n"): the client's CPU (ms) and the
# boards' per connection (ms) to the figures as "KEY-client MS" and
# "KEY-board MS"; prints "client MS, boards MS/conn"
fan_cpu_end() {
	f=$(cg_fan_end "$n")
	if [ -z "$f" ]; then
		echo "CPU not measured"
		return
	fi
	set -- "$1" $f
	echo "$1-client $2" >>"$dir/figures"
	echo "$1-board $3" >>"$dir/figures"
	echo "client CPU $2 ms, boards $3 ms/conn"
}

# The fan-out's floor on a CPU-bound machine, from the cgroup figures: the
# boards' own cost of a connection with the key exchange orch negotiates
# (B, ms: parallel-ssh curve25519's) is paid by any client, so orch's wall
# is at least N x B / cores, and parallel-ssh's is (N x B' + C) / cores (B':
# its boards' cost, C: its own client CPU). The floor of each ratio is
# N x B / (N x B' + C): what orch would reach adding nothing to the boards
# and using no CPU itself. Beside it, the same ratio of orch's own figures,
# (N x B_orch + C_orch) / (N x B' + C), and the ratio of wall times.
#   fan_floor ROUND   (ROUND: that round's figures; "median": the medians)
fan_floor() {
	awk -v r="$1" -v n="$n" '
		$1 ~ /^(fanout|pssh|psshc)(-client|-board)?$/ { v[$1, ++c[$1]] = $2 }
		function pick(k,   i, j, t, m, a) {
			if (r != "median") return v[k, r]
			m = c[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		END {
			b = pick("psshc-board"); ob = pick("fanout-board"); oc = pick("fanout-client")
			for (k = 1; k <= 2; k++) {
				p = k == 1 ? "pssh" : "psshc"
				den = n * pick(p "-board") + pick(p "-client")
				f[k] = den > 0 ? n * b / den : 0; o[k] = den > 0 ? (n * ob + oc) / den : 0
				w[k] = pick(p) > 0 ? pick("fanout") / pick(p) : 0
			}
			printf "default kex %.3f (orch CPU %.3f, wall %.3f), curve25519 %.3f (orch CPU %.3f, wall %.3f)",
				f[1], o[1], w[1], f[2], o[2], w[2]
		}' "$dir/figures"
}

# orch_run NAME -> "wall cpu rss_kib user sys" (orch's own: user+sys, peak RSS)
orch_run() {
	cg_exec client /usr/bin/time -f '%e %U %S %M' -o "$dir/time.out" \
		"$orch" run "$dir/$1.yaml" -q -o "$runs/rack-scale-$r-$1" >"$dir/orch.log" 2>&1 ||
		{ echo "rack-scale: orch run $1 failed:" >&2; grep -v ' pass ' "$dir/orch.log" | tail -8 >&2; exit 1; }
	awk '{ printf "%.2f %.2f %d %.2f %.2f", $1, $2 + $3, $4, $2, $3 }' "$dir/time.out"
}

# ControlMaster peer: per board a master, TESTS commands, exit; in parallel.
cm_board() {
	sock=$dir/cm/$1
	ssh -F "$cfg" -o LogLevel=ERROR -o ControlMaster=yes -o ControlPath="$sock" \
		-o ControlPersist=no -fN "lab$1"
	t=1
	while [ $t -le "$2" ]; do
		if [ "$3" = 1 ]; then
			ssh -F "$cfg" -o ControlPath="$sock" "lab$1" "echo value: $t" >/dev/null
		else
			ssh -F "$cfg" -o ControlPath="$sock" "lab$1" "echo t$t" >/dev/null
		fi
		t=$((t + 1))
	done
	ssh -F "$cfg" -o ControlPath="$sock" -O exit "lab$1" 2>/dev/null
}

cm_run() {
	t0=$(now)
	i=1
	while [ $i -le "$n" ]; do
		cm_board $i "$1" "$2" &
		i=$((i + 1))
	done
	wait
	t1=$(now)
	elapsed "$t0" "$t1"
}

pssh_run() {
	t0=$(now)
	cg_exec client parallel-ssh -h "$dir/hosts" -p "$n" -t 60 -x "-F $cfg -o LogLevel=ERROR" "$@" true \
		>"$dir/pssh.log" 2>&1 || { echo "rack-scale: parallel-ssh failed:" >&2; tail -3 "$dir/pssh.log" >&2; exit 1; }
	t1=$(now)
	elapsed "$t0" "$t1"
}

kex_default=$(ssh -v -F "$cfg" lab1 true 2>&1 | sed -n 's/.*kex: algorithm: //p' | head -1)
echo "rack-scale: $n OpenSSH boards on $base.x, $(nproc) cores, $(uname -r)"
echo "orch: $orch ($("$orch" --version 2>/dev/null | head -1))"
echo "pssh default kex: $kex_default; orch (libssh): curve25519-sha256"
echo
echo "run folders in $runs ($(df -T "$runs" | awk 'NR == 2 { print $2 }'))"
case $CG_KIND in
none) echo "fan-out CPU: not measured (needs root and a cgroup hierarchy)" ;;
*) echo "fan-out CPU: cgroup $CG_KIND ($CG_ROOT), clients and boards apart" ;;
esac
echo
printf '%-5s %-28s %8s %8s %9s %7s %7s\n' round scenario wall_s cpu_s rss_kib user_s sys_s
: >"$dir/figures"
r=1
while [ "$r" -le "$rounds" ]; do
	for sc in s40 s40m s10 s160 fanout; do
		[ "$sc" = s160 ] && [ "${RACK_SKIP_BIG:-0}" = 1 ] && continue
		[ "$sc" = fanout ] && cg_fan_begin "$n"
		set -- $(orch_run $sc)
		printf '%-5s %-28s %8s %8s %9s %7s %7s\n' "$r" "orch $sc" "$1" "$2" "$3" "$4" "$5"
		echo "$sc $1 $2 $3" >>"$dir/figures"
		[ "$sc" = fanout ] && printf '%-5s %-28s %s\n' "$r" "  orch fan-out" "$(fan_cpu_end fanout)"
	done
	w=$(cm_run 40 0)
	printf '%-5s %-28s %8s\n' "$r" "controlmaster 40x$n" "$w"
	echo "cm40 $w" >>"$dir/figures"
	w=$(cm_run 40 1)
	printf '%-5s %-28s %8s\n' "$r" "controlmaster 40x$n metric" "$w"
	echo "cm40m $w" >>"$dir/figures"
	cg_fan_begin "$n"
	w=$(pssh_run)
	printf '%-5s %-28s %8s\n' "$r" "parallel-ssh default kex" "$w"
	echo "pssh $w" >>"$dir/figures"
	printf '%-5s %-28s %s\n' "$r" "  parallel-ssh default kex" "$(fan_cpu_end pssh)"
	cg_fan_begin "$n"
	w=$(pssh_run -O KexAlgorithms=curve25519-sha256)
	printf '%-5s %-28s %8s\n' "$r" "parallel-ssh curve25519" "$w"
	echo "psshc $w" >>"$dir/figures"
	printf '%-5s %-28s %s\n' "$r" "  parallel-ssh curve25519" "$(fan_cpu_end psshc)"
	[ "$CG_KIND" = none ] || printf '%-5s %-28s %s\n' "$r" "  fan-out floor" "$(fan_floor "$r")"
	r=$((r + 1))
done

# median KEY FIELD (2 wall, 3 cpu, 4 rss)
median() {
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$dir/figures" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
check() {   # LABEL VALUE OP LIMIT
	awk -v l="$1" -v v="$2" -v op="$3" -v lim="$4" 'BEGIN {
		ok = (op == "<=") ? v <= lim : v >= lim
		printf "  %-52s %9.3f  (target %s %s) %s\n", l, v, op, lim, ok ? "ok" : "MISSED" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }'; }

echo
echo "medians of $rounds round(s):"
s40w=$(median s40 2); s40c=$(median s40 3); s40r=$(median s40 4)
s40mw=$(median s40m 2); s40mc=$(median s40m 3)
s10c=$(median s10 3); s10r=$(median s10 4)
cm40=$(median cm40 2); cm40m=$(median cm40m 2)
fan=$(median fanout 2); pssh=$(median pssh 2); psshc=$(median psshc 2)
echo "  orch 40x$n: $s40w s wall, $s40c s CPU, $s40r KiB; with metrics: $s40mw s, $s40mc s CPU"
echo "  ControlMaster 40x$n: $cm40 s; with metrics: $cm40m s"
echo "  fan-out: orch $fan s, parallel-ssh $pssh s (default kex), $psshc s (curve25519)"
if [ "$CG_KIND" = none ]; then
	echo "  fan-out CPU (client, boards per connection): not measured"
else
	for k in fanout pssh psshc; do
		case $k in fanout) l="orch" ;; pssh) l="parallel-ssh, default kex" ;; *) l="parallel-ssh, curve25519" ;; esac
		echo "  fan-out CPU, $l: client $(median "$k-client" 2) ms, boards $(median "$k-board" 2) ms per connection"
	done
fi
check "orch/ControlMaster wall, 40x$n" "$(ratio "$s40w" "$cm40")" "<=" 0.3
check "orch/ControlMaster wall, 40x$n, one metric per test" "$(ratio "$s40mw" "$cm40m")" "<=" 0.3
check "orch CPU s, 40x$n" "$s40c" "<=" 1.5
check "orch CPU s, 40x$n, one metric per test" "$s40mc" "<=" 1.5
check "orch peak RSS MiB, 40x$n" "$(awk -v r="$s40r" 'BEGIN { print r / 1024 }')" "<=" 20
check "fan-out orch/parallel-ssh (default kex)" "$(ratio "$fan" "$pssh")" "<=" 0.25
check "fan-out orch/parallel-ssh (curve25519)" "$(ratio "$fan" "$psshc")" "<=" 0.6
[ "$CG_KIND" = none ] ||
	echo "  fan-out floor (orch adding nothing to the boards, no CPU of its own): $(fan_floor median)"
if [ "${RACK_SKIP_BIG:-0}" != 1 ]; then
	s160c=$(median s160 3); s160r=$(median s160 4); s160w=$(median s160 2)
	res10=$((10 * n)); res160=$((160 * n))
	echo "  orch 160x$n: $s160w s wall, $s160c s CPU, $s160r KiB"
	per10=$(awk -v c="$s10c" -v n="$res10" 'BEGIN { print c / n * 1e6 }')
	per160=$(awk -v c="$s160c" -v n="$res160" 'BEGIN { print c / n * 1e6 }')
	echo "  orch CPU per result: $per10 us at $res10 results, $per160 us at $res160"
	check "CPU per result, $res160 vs $res10 results (x)" "$(ratio "$per160" "$per10")" "<=" 1.5
	check "peak RSS growth KiB per result" \
		"$(awk -v a="$s10r" -v b="$s160r" -v n=$((res160 - res10)) 'BEGIN { print (b - a) / n }')" "<=" 2
fi
