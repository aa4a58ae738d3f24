# remote-bench cross build for i586 (Pentium and 486-class: no cmov, no SSE) boards:
# static, musl, stripped. Needs gcc-i686-linux-gnu, musl-dev:i386.
# Used by scripts/build-remote-bench.sh; see remote-bench/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i586)
set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(RB_MUSL_SPECS /usr/lib/i386-linux-musl/musl-gcc.specs)
set(CMAKE_C_FLAGS_INIT "-specs=${RB_MUSL_SPECS} -march=i586 -mtune=pentium")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -s -Wl,-z,noseparate-code -Wl,-z,norelro")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-i386-static -cpu pentium)
