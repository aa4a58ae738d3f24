# cmake -DFILE=path -P print-size.cmake: the post-build size line of a
# remote-bench binary (the budget is 100 KB per static binary).
file(SIZE "${FILE}" size)
get_filename_component(name "${FILE}" NAME)
math(EXPR kib "(${size} + 1023) / 1024")
message(STATUS "remote-bench size: ${name} ${size} bytes (${kib} KiB)")
