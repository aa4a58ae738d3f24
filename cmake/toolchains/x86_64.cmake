# remote-bench cross build for x86_64 boards:
# static, musl, stripped. Needs musl-tools (musl-gcc).
# Used by scripts/build-remote-bench.sh; see remote-bench/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER musl-gcc)
set(CMAKE_C_FLAGS_INIT "")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -s -Wl,-z,noseparate-code -Wl,-z,norelro")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
