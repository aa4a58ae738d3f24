# cmake -DSRC=orchestrator/src -DDEPS=build/stage-deps.txt -P CheckStageDeps.cmake
#
# Fails when a file in a stage folder (SRC/STAGE/*.c|h) includes
# "OTHER/..." where OTHER is a stage that STAGE does not link, directly or
# through the stages it links (DEPS: one "stage=dep,dep" line per stage,
# written by orchestrator/CMakeLists.txt from the orch_module() calls).
# Files at the top of SRC (main.c, cmd_*.c) may include any stage.
cmake_minimum_required(VERSION 3.20)
if(NOT SRC OR NOT DEPS)
  message(FATAL_ERROR "usage: cmake -DSRC=DIR -DDEPS=FILE -P CheckStageDeps.cmake")
endif()
get_filename_component(SRC "${SRC}" ABSOLUTE)
file(STRINGS ${DEPS} lines)
set(stages "")
foreach(line ${lines})
  if(line MATCHES "^([a-z_]+)=(.*)$")
    set(stage ${CMAKE_MATCH_1})
    string(REPLACE "," ";" direct "${CMAKE_MATCH_2}")
    set(direct_${stage} ${direct})
    list(APPEND stages ${stage})
  endif()
endforeach()

# allowed_S: S itself and everything it links, transitively.
foreach(stage ${stages})
  set(todo ${stage})
  set(seen "")
  while(todo)
    list(POP_FRONT todo s)
    if(s IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${s})
    list(APPEND todo ${direct_${s}})
  endwhile()
  set(allowed_${stage} ${seen})
endforeach()

set(bad 0)
foreach(stage ${stages})
  file(GLOB files ${SRC}/${stage}/*.c ${SRC}/${stage}/*.h)
  foreach(f ${files})
    file(STRINGS ${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
    foreach(inc ${incs})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/.*$" "\\1" target "${inc}")
      if(target IN_LIST stages AND NOT target IN_LIST allowed_${stage})
        file(RELATIVE_PATH rel ${SRC} ${f})
        message(SEND_ERROR "${rel}: stage '${stage}' includes '${target}', which it does not "
                "link (allowed: ${allowed_${stage}}): dependencies point down the flow")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "${bad} upward include(s)")
endif()
message(STATUS "stage dependencies ok: ${stages}")
