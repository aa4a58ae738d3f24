# remote-bench cross build for armv5/armv6 (armel: ARM926EJ-S, ARM1136, soft float) boards:
# static, musl, stripped. Needs gcc-arm-linux-gnueabi, musl-dev:armel.
# Used by scripts/build-remote-bench.sh; see remote-bench/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv5te)
set(CMAKE_C_COMPILER arm-linux-gnueabi-gcc)
set(RB_MUSL_SPECS /usr/lib/arm-linux-musleabi/musl-gcc.specs)
set(CMAKE_C_FLAGS_INIT "-specs=${RB_MUSL_SPECS} -march=armv5te -marm")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -s -Wl,-z,noseparate-code -Wl,-z,norelro")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm-static -cpu arm926)
