# Warning flags for every orch target, probed so an older or newer compiler
# never fails on an option it does not know.
include(CheckCCompilerFlag)
set(ORCH_WARNING_FLAGS)
foreach(flag -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wformat-security
             -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition
             -Wpointer-arith -Wcast-qual -Wwrite-strings -Wundef
             -Wvla -Wnull-dereference -Wimplicit-fallthrough -Wno-unused-parameter
             -Wno-format-truncation)
# -Wno-format-truncation: messages go into caller-sized buffers on purpose
# (char err[512]); a long host name cut short is the intended outcome.
  string(MAKE_C_IDENTIFIER "HAVE_FLAG${flag}" var)
  check_c_compiler_flag(${flag} ${var})
  if(${var})
    list(APPEND ORCH_WARNING_FLAGS ${flag})
  endif()
endforeach()
option(ORCH_WERROR "treat warnings as errors" OFF)
if(ORCH_WERROR)
  list(APPEND ORCH_WARNING_FLAGS -Werror)
endif()

# orch_target_defaults(TARGET): warnings; the GNU/Linux API (orch is Linux-only:
# ptys, /proc, pipe2, network namespaces).
function(orch_target_defaults target)
  target_compile_options(${target} PRIVATE ${ORCH_WARNING_FLAGS})
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_compile_options(${target} PRIVATE ${ORCH_HARDENING_COMPILE_OPTIONS})
  target_link_options(${target} PRIVATE ${ORCH_HARDENING_LINK_OPTIONS})
endfunction()
