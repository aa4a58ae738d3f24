# remote-bench cross build for armv7 hard-float (armhf) boards:
# static, musl, stripped. Needs gcc-arm-linux-gnueabihf, musl-dev:armhf.
# Used by scripts/build-remote-bench.sh; see remote-bench/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7-a)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(RB_MUSL_SPECS /usr/lib/arm-linux-musleabihf/musl-gcc.specs)
set(CMAKE_C_FLAGS_INIT "-specs=${RB_MUSL_SPECS} ")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -s -Wl,-z,noseparate-code -Wl,-z,norelro")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm-static)
