#!/bin/sh
# A short libFuzzer run of fuzz_metrics (user `metrics:` regexes, PCRE2,
# on lines up to 16 KB) with a time limit per input: an input that takes
# longer than -timeout seconds (a regex that backtracks without bound) is a
# failure, as is any crash. Run by scripts/test.sh when clang is there.
#   tests/fuzz/fuzz-smoke.sh BUILD_DIR [SECONDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$1
secs=${2:-20}
CC=clang cmake -S "$repo" -B "$build" -DORCH_FUZZ=ON -DORCH_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target fuzz_metrics -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
work=$(mktemp -d /tmp/orch-fuzz-smoke-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$repo"/tests/fuzz/corpus-metrics/* "$work"/
rc=0
"$build"/tests/fuzz/fuzz_metrics -timeout=2 -max_total_time="$secs" -max_len=16384 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" "$work" \
	>"$work/log" 2>&1 || rc=$?
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+== ERROR|SUMMARY)|timeout' \
	"$work/log" | sed 's/^/fuzz_metrics: /' || true
if [ $rc != 0 ]; then
	tail -30 "$work/log" >&2
	echo "fuzz_metrics: FAILED (exit $rc)" >&2
fi
exit $rc
