#!/bin/sh
# `orch validate` on every scenario shipped in scenarios/, each with its own
# inventory: any error or warning fails (schema_examples checks the same
# files' structure against schema/, test_config_examples that they load;
# this adds everything else validate checks: units, which way is better,
# {vars.X}, bench programs, selectors, skips).
# The one error not counted: an SSH identity file that does not exist,
# since the labs make their keys when they come up (qemu-board.sh start,
# netns-lab.sh up, arm-board.sh up); it is reported as a note.
#   examples_validate.sh ORCH SOURCE_DIR BENCH_DIR
set -u
orch=$1 src=$2 bench=$3
status=0 n=0
for f in "$src"/scenarios/*.yaml; do
	n=$((n + 1))
	out=$(ORCH_BENCH_DIR=$bench "$orch" --color=never validate "$f" 2>&1)
	rc=$?
	bad=$(printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): ' |
		grep -Ev ": error: boards? '[^:]*': identity file '[^']*' does not exist$")
	keys=$(printf '%s\n' "$out" | grep -Ec ": error: boards? '[^:]*': identity file '[^']*' does not exist$")
	# besides identity errors, validate must not fail (an error without a
	# file:line:col would otherwise slip through)
	if [ -n "$bad" ] || { [ $rc -ne 0 ] && [ "$keys" -eq 0 ]; }; then
		echo "FAIL ${f#"$src"/} (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /'
		status=1
	elif [ "$keys" -gt 0 ]; then
		echo "ok   ${f#"$src"/} (note: $keys board(s) without their lab's identity file yet)"
	else
		echo "ok   ${f#"$src"/}"
	fi
done
[ $n -ge 1 ] || { echo "no scenarios in $src/scenarios"; exit 1; }
exit $status
