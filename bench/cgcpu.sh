# CPU time of groups of processes read from the kernel's accounting, for
# the benches (sourced: . bench/cgcpu.sh). One control group per name under
# cgroup v1's cpuacct hierarchy (cpuacct.usage, ns) or, without it, cgroup
# v2 (cpu.stat usage_usec); a process moved into a group takes its children
# with it, and the time of those that have exited stays counted. Needs
# root; otherwise (or without either hierarchy) CG_KIND=none and every
# figure is "not measured".
#   cg_init PREFIX           the groups PREFIX-NAME are made by cg_make
#   cg_make NAME             a group (removed again by cg_cleanup)
#   cg_add NAME PID...       moves processes into it
#   cg_exec NAME CMD ARG...  runs CMD inside it (and waits)
#   cg_usage NAME            CPU time so far, microseconds
#   cg_settle NAME N         waits (at most 5 s) until it holds at most N
#                            processes: the last connections' server
#                            processes have exited and are counted
#   cg_cleanup               moves what is left to the root group, removes
#                            the groups
#   cg_fan_begin N           for a fan-out to N boards (groups "boards" and
#                            "client"): settles, notes both groups' usage
#   cg_fan_end N             settles, prints "CLIENT_MS BOARD_MS" (the
#                            boards' per connection) of what ran since;
#                            nothing when not measured
CG_KIND=none
CG_ROOT=
CG_PREFIX=
CG_NAMES=

cg_init() {
	CG_PREFIX=$1
	[ "$(id -u)" = 0 ] || return 0
	if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] || [ -f /sys/fs/cgroup/cpuacct/cgroup.procs ]; then
		CG_KIND=v1
		CG_ROOT=/sys/fs/cgroup/cpuacct
	else
		CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
		[ -n "$CG_ROOT" ] && [ -w "$CG_ROOT" ] && CG_KIND=v2
	fi
	return 0
}

cg_dir() { echo "$CG_ROOT/$CG_PREFIX-$1"; }

cg_make() {
	[ "$CG_KIND" != none ] || return 0
	if mkdir "$(cg_dir "$1")" 2>/dev/null; then
		CG_NAMES="$CG_NAMES $1"
	else
		echo "cgcpu: cannot make control group $(cg_dir "$1"): CPU not measured" >&2
		CG_KIND=none
	fi
}

cg_add() {
	cg_g=$1
	shift
	[ "$CG_KIND" != none ] || return 0
	for cg_p in "$@"; do
		echo "$cg_p" >"$(cg_dir "$cg_g")/cgroup.procs"
	done
}

cg_exec() {
	cg_g=$1
	shift
	if [ "$CG_KIND" = none ]; then
		"$@"
	else
		sh -c 'echo $$ >"$0" && exec "$@"' "$(cg_dir "$cg_g")/cgroup.procs" "$@"
	fi
}

cg_usage() {
	case $CG_KIND in
	v1) echo $(($(cat "$(cg_dir "$1")/cpuacct.usage") / 1000)) ;;
	v2) awk '$1 == "usage_usec" { print $2 }' "$(cg_dir "$1")/cpu.stat" ;;
	*) echo 0 ;;
	esac
}

cg_settle() {
	[ "$CG_KIND" != none ] || return 0
	cg_i=0
	while [ "$(wc -l <"$(cg_dir "$1")/cgroup.procs")" -gt "$2" ] && [ $cg_i -lt 50 ]; do
		sleep 0.1
		cg_i=$((cg_i + 1))
	done
}

cg_cleanup() {
	[ "$CG_KIND" != none ] || return 0
	for cg_g in $CG_NAMES; do
		cg_d=$(cg_dir "$cg_g")
		for cg_p in $(cat "$cg_d/cgroup.procs" 2>/dev/null); do
			echo "$cg_p" >"$CG_ROOT/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$cg_d" 2>/dev/null || true
	done
	CG_NAMES=
}

# ms of a microsecond difference, per n when given: "12.3"
cg_ms() { awk -v a="$1" -v b="$2" -v n="${3:-1}" 'BEGIN { printf "%.1f", (b - a) / n / 1000 }'; }

cg_fan_begin() {
	cg_settle boards "$1"
	cg_b0=$(cg_usage boards)
	cg_c0=$(cg_usage client)
}

cg_fan_end() {
	cg_settle boards "$1"
	[ "$CG_KIND" != none ] || return 0
	echo "$(cg_ms "$cg_c0" "$(cg_usage client)") $(cg_ms "$cg_b0" "$(cg_usage boards)" "$1")"
}
