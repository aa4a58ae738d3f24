# The hardening Debian asks of a packaged binary (lintian's hardening-*
# tags): full RELRO with immediate binding everywhere, and glibc's fortified
# string and I/O functions where the compiler optimises (_FORTIFY_SOURCE
# does nothing at -O0 but warn, and the sanitizers check the same calls
# themselves). orch_target_defaults applies them to every orch target.
set(ORCH_HARDENING_LINK_OPTIONS -Wl,-z,relro -Wl,-z,now)
set(ORCH_HARDENING_COMPILE_OPTIONS)
if(NOT ORCH_SANITIZE)
  list(APPEND ORCH_HARDENING_COMPILE_OPTIONS
       $<$<NOT:$<CONFIG:Debug>>:-U_FORTIFY_SOURCE> $<$<NOT:$<CONFIG:Debug>>:-D_FORTIFY_SOURCE=2>)
endif()

# orch_strip_comment(TARGET): the compiler's and libc's version strings
# (.comment) out of TARGET after each link, so the package carries no
# section a binary does not need (lintian binary-has-unneeded-section).
function(orch_strip_comment target)
  if(CMAKE_OBJCOPY)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_OBJCOPY} --remove-section=.comment $<TARGET_FILE:${target}>
      VERBATIM)
  endif()
endfunction()
