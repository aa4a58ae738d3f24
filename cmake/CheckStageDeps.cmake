# cmake -DSRC=orchestrator/src -DDEPS=build/stage-deps.txt [-DNM=nm -DLIBS=stage=lib.a|...]
#         -P CheckStageDeps.cmake
#
# The direction rule: a stage (SRC/STAGE/) uses only the stages it links,
# directly or through the stages it links (DEPS: one "stage=dep,dep" line
# per stage, written by orchestrator/CMakeLists.txt from the orch_module()
# calls). Files at the top of SRC (main.c) may use any stage, and
# no stage may use them. A DEPS line "sealed STAGE:A,B" seals STAGE: only
# files of STAGE, A and B may include its headers (not the top, not a stage
# that links it through A). Fails on
# - an include of another stage's file in any form: "execute/execute.h",
#   "../execute/execute.h", "./../execute/x.h", <execute/execute.h>, with
#   any spacing after '#'; the path is resolved as the compiler would
#   (beside the including file first, then SRC) and normalised;
# - with LIBS (stage=path-of-its-static-library, '|'-separated) and NM: a
#   symbol a stage's library leaves undefined that another stage's library
#   defines when the first may not use the second (a bare extern prototype
#   instead of an include is caught here).
# orchestrator/CMakeLists.txt runs it as a build step before orch links.
cmake_minimum_required(VERSION 3.20)
if(NOT SRC OR NOT DEPS)
  message(FATAL_ERROR "usage: cmake -DSRC=DIR -DDEPS=FILE [-DNM=nm -DLIBS=s=a|...] -P CheckStageDeps.cmake")
endif()
get_filename_component(SRC "${SRC}" ABSOLUTE)
file(STRINGS ${DEPS} lines)
set(stages "")
set(sealed_stages "")
foreach(line ${lines})
  if(line MATCHES "^sealed ([a-z_]+):(.*)$")
    string(REPLACE "," ";" sealed_by_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    list(APPEND sealed_stages ${CMAKE_MATCH_1})
  elseif(line MATCHES "^([a-z_]+)=(.*)$")
    set(stage ${CMAKE_MATCH_1})
    string(REPLACE "," ";" direct "${CMAKE_MATCH_2}")
    set(direct_${stage} ${direct})
    list(APPEND stages ${stage})
  endif()
endforeach()
list(REMOVE_DUPLICATES stages)

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

# The stage (or "<top>") a path inside SRC belongs to, in out_var; "" when
# it is outside SRC.
function(stage_of path out_var)
  file(RELATIVE_PATH rel "${SRC}" "${path}")
  if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
    set(${out_var} "" PARENT_SCOPE)
  elseif(rel MATCHES "^([^/]+)/")
    set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out_var} "<top>" PARENT_SCOPE)
  endif()
endfunction()

foreach(stage ${stages} "<top>")
  if(stage STREQUAL "<top>")
    file(GLOB files ${SRC}/*.c ${SRC}/*.h)
  else()
    file(GLOB files ${SRC}/${stage}/*.c ${SRC}/${stage}/*.h)
  endif()
  foreach(f ${files})
    get_filename_component(dir "${f}" DIRECTORY)
    file(STRINGS ${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(inc ${incs})
      if(NOT inc MATCHES "^[ \t]*#[ \t]*include[ \t]*([\"<])([^\">]+)[\">]")
        continue()
      endif()
      set(form "${CMAKE_MATCH_1}")
      set(name "${CMAKE_MATCH_2}")
      # as the compiler looks: beside the file ("" only), then -I SRC
      get_filename_component(beside "${dir}/${name}" ABSOLUTE)
      get_filename_component(under "${SRC}/${name}" ABSOLUTE)
      if(form STREQUAL "\"" AND (EXISTS "${beside}" OR name MATCHES "^\\.\\.?/"))
        set(resolved "${beside}")
      elseif(EXISTS "${under}" OR name MATCHES "^[a-z_]+/")
        set(resolved "${under}")
      elseif(form STREQUAL "\"")
        set(resolved "${beside}")
      else()
        continue()   # a system header
      endif()
      stage_of("${resolved}" target)
      if(target STREQUAL "" OR target STREQUAL stage)
        continue()
      endif()
      if(target IN_LIST sealed_stages AND NOT stage IN_LIST sealed_by_${target})
        file(RELATIVE_PATH rel ${SRC} ${f})
        message(SEND_ERROR "${rel}: '${stage}' includes '${target}' (${name}), whose headers "
                "only ${sealed_by_${target}} may include: reach it through what "
                "${sealed_by_${target}} offers")
        math(EXPR bad "${bad} + 1")
        continue()
      endif()
      if(stage STREQUAL "<top>")
        continue()   # the top may use any stage but the sealed ones
      endif()
      if(target STREQUAL "<top>" OR (target IN_LIST stages AND NOT target IN_LIST allowed_${stage}))
        file(RELATIVE_PATH rel ${SRC} ${f})
        message(SEND_ERROR "${rel}: stage '${stage}' includes '${target}' (${name}), which it "
                "does not link (allowed: ${allowed_${stage}}): dependencies point down the flow")
        math(EXPR bad "${bad} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()

# Symbols: who defines what, then who needs what.
if(LIBS)
  if(NOT NM)
    set(NM nm)
  endif()
  string(REPLACE "|" ";" libs "${LIBS}")
  set(lib_stages "")
  foreach(entry ${libs})
    if(NOT entry MATCHES "^([a-z_]+)=(.+)$")
      continue()
    endif()
    set(s ${CMAKE_MATCH_1})
    set(lib_${s} "${CMAKE_MATCH_2}")
    list(APPEND lib_stages ${s})
    execute_process(COMMAND ${NM} -P -g --defined-only "${lib_${s}}" OUTPUT_VARIABLE out
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${NM} failed on ${lib_${s}}")
    endif()
    string(REGEX MATCHALL "(^|\n)[A-Za-z_][A-Za-z0-9_.]* [A-TV-Za-tv-z] " defs "${out}")
    foreach(d ${defs})
      string(REGEX REPLACE "^\n?([^ ]+) .*$" "\\1" sym "${d}")
      set(def_${sym} ${s})
    endforeach()
  endforeach()
  foreach(s ${lib_stages})
    execute_process(COMMAND ${NM} -P -u "${lib_${s}}" OUTPUT_VARIABLE out ERROR_QUIET)
    string(REGEX MATCHALL "(^|\n)[A-Za-z_][A-Za-z0-9_.]* U" undefs "${out}")
    set(reported "")
    foreach(u ${undefs})
      string(REGEX REPLACE "^\n?([^ ]+) U$" "\\1" sym "${u}")
      if(NOT DEFINED def_${sym})
        continue()   # a system library's
      endif()
      set(owner ${def_${sym}})
      if(owner STREQUAL s OR owner IN_LIST allowed_${s} OR sym IN_LIST reported)
        continue()
      endif()
      list(APPEND reported ${sym})
      message(SEND_ERROR "stage '${s}' uses symbol '${sym}' of stage '${owner}', which it does "
              "not link (allowed: ${allowed_${s}}): dependencies point down the flow")
      math(EXPR bad "${bad} + 1")
    endforeach()
  endforeach()
endif()

if(bad)
  message(FATAL_ERROR "${bad} upward use(s) of a stage")
endif()
message(STATUS "stage dependencies ok: ${stages}")
