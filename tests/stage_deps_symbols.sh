#!/bin/sh
# The symbol half of cmake/CheckStageDeps.cmake on a fixture: each stage
# folder of DIR compiled into a static library of its own; the check must
# fail naming the upward symbol (a bare prototype, no include).
#   stage_deps_symbols.sh CMAKE CC NM DIR SCRIPT
set -eu
cmake=$1 cc=$2 nm=$3 dir=$4 script=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=
for d in "$dir"/*/; do
	s=$(basename "$d")
	for c in "$d"*.c; do "$cc" -c -o "$tmp/$s-$(basename "$c" .c).o" "$c"; done
	ar rcs "$tmp/lib$s.a" "$tmp/$s"-*.o
	libs="$libs${libs:+|}$s=$tmp/lib$s.a"
done
"$cmake" -DSRC="$dir" -DDEPS="$dir/stage-deps.txt" -DNM="$nm" "-DLIBS=$libs" -P "$script" 2>&1 && exit 1
exit 0
