# remote-bench cross build for aarch64 (arm64) boards:
# static, musl, stripped. Needs gcc-aarch64-linux-gnu, musl-dev:arm64.
# Used by scripts/build-remote-bench.sh; see remote-bench/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(RB_MUSL_SPECS /usr/lib/aarch64-linux-musl/musl-gcc.specs)
set(CMAKE_C_FLAGS_INIT "-specs=${RB_MUSL_SPECS} ")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -s -Wl,-z,noseparate-code -Wl,-z,norelro")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
