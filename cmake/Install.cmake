# Install rules and the Debian package (README.md "Build and install").
#   bin/orch
#   lib/orch/remote-bench/ARCH/remote-bench-NAME   (found from bin/../lib/orch)
#   share/man/man1/orch.1, man5/orch-scenario.5, man5/orch-inventory.5
#   share/bash-completion/completions/orch
#   share/doc/orch/ (README, docs, example scenarios)
# Cross-built remote-bench programs for the other arches are added when
# ORCH_CROSS_BENCH is ON (scripts/package.sh turns it on when the cross
# toolchains of remote-bench/README.md are installed).
include(GNUInstallDirs)

set(ORCH_BENCH_INSTALL_DIR lib/orch/remote-bench)

install(TARGETS orch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(TARGET remote-bench)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/remote-bench/bin/
          DESTINATION ${ORCH_BENCH_INSTALL_DIR}
          USE_SOURCE_PERMISSIONS
          PATTERN "*.tmp" EXCLUDE
          PATTERN ".build" EXCLUDE)
endif()

# Cross-built programs: scripts/build-remote-bench.sh writes ARCH/ folders
# next to the host's own, so the build tree and the package look alike.
set(ORCH_CROSS_ARCHES i586 armv5 armhf aarch64)
option(ORCH_CROSS_BENCH "cross-build remote-bench for ${ORCH_CROSS_ARCHES} into the build and package"
       OFF)
if(ORCH_CROSS_BENCH)
  add_custom_target(remote-bench-cross ALL
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/build-remote-bench.sh
            ${CMAKE_BINARY_DIR}/remote-bench-cross ${ORCH_CROSS_ARCHES}
    COMMENT "cross-building remote-bench for ${ORCH_CROSS_ARCHES}"
    VERBATIM)
  foreach(arch ${ORCH_CROSS_ARCHES})
    install(DIRECTORY ${CMAKE_BINARY_DIR}/remote-bench-cross/${arch}
            DESTINATION ${ORCH_BENCH_INSTALL_DIR} USE_SOURCE_PERMISSIONS)
  endforeach()
endif()

# Man pages, built from their Markdown sources in docs/ (scripts/md2man.py).
find_package(Python3 COMPONENTS Interpreter)
set(ORCH_MAN_PAGES orch.1 orch-scenario.5 orch-inventory.5)
set(orch_man_outputs)
if(Python3_Interpreter_FOUND)
  foreach(page ${ORCH_MAN_PAGES})
    set(src ${CMAKE_SOURCE_DIR}/docs/${page}.md)
    set(dst ${CMAKE_BINARY_DIR}/man/${page})
    add_custom_command(OUTPUT ${dst}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/md2man.py ${src} ${dst}
      DEPENDS ${src} ${CMAKE_SOURCE_DIR}/scripts/md2man.py
      COMMENT "man page ${page}" VERBATIM)
    # installed compressed, as Debian policy 12.1 wants (gzip -9n: no name
    # or time in the header, so the package builds the same twice)
    add_custom_command(OUTPUT ${dst}.gz
      COMMAND gzip -9nc ${dst} > ${dst}.gz
      DEPENDS ${dst} VERBATIM)
    list(APPEND orch_man_outputs ${dst} ${dst}.gz)
    string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
    install(FILES ${dst}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(man ALL DEPENDS ${orch_man_outputs})
else()
  message(WARNING "python3 not found: no man pages")
endif()

install(FILES completions/orch.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME orch)

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian policy 12.5 and 12.7: the copyright file and a compressed
# changelog in the package's doc folder (lintian errors without).
install(FILES packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
configure_file(${CMAKE_SOURCE_DIR}/packaging/changelog.Debian.in
               ${CMAKE_BINARY_DIR}/packaging/changelog.Debian @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.Debian.gz
  COMMAND gzip -9nc ${CMAKE_BINARY_DIR}/packaging/changelog.Debian
          > ${CMAKE_BINARY_DIR}/packaging/changelog.Debian.gz
  DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.Debian VERBATIM)
add_custom_target(debian-changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.Debian.gz)
# a native package (no Debian revision): the changelog is changelog.gz
install(FILES ${CMAKE_BINARY_DIR}/packaging/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR}
        RENAME changelog.gz)
# What lintian is told, each with its reason (packaging/lintian-overrides*):
# the remote-bench programs are static on purpose, and with the cross-built
# ones, for other architectures. An override that matches nothing is a
# lintian tag of its own, so the cross one is there only with them.
file(READ ${CMAKE_SOURCE_DIR}/packaging/lintian-overrides orch_overrides)
if(ORCH_CROSS_BENCH)
  file(READ ${CMAKE_SOURCE_DIR}/packaging/lintian-overrides-cross orch_overrides_cross)
  string(APPEND orch_overrides "${orch_overrides_cross}")
endif()
file(WRITE ${CMAKE_BINARY_DIR}/packaging/lintian-overrides "${orch_overrides}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/packaging/lintian-overrides
             ${CMAKE_SOURCE_DIR}/packaging/lintian-overrides-cross)
install(FILES ${CMAKE_BINARY_DIR}/packaging/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME orch)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/scenarios)
install(DIRECTORY boards/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/boards)

# The Debian package: `cpack -G DEB` in the build folder (scripts/package.sh).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME orch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "orch maintainers <maintainers@users.noreply.a-seed-c9dc3535.example>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "test orchestrator for racks of small embedded boards")
set(CPACK_PACKAGE_DESCRIPTION "orch runs YAML scenarios on racks of boards over SSH and serial\n consoles: benchmark programs pushed per arch, boot phases timed from the\n console, multi-host tests, a run folder per run and an exit code for CI.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Dependencies from the Debian library packages the binary links, found
# with dpkg-shlibdeps; the remote-bench programs are static and for other
# arches, so they are left out of that scan.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libpq is opened with dlopen when a PostgreSQL database is used
# (util/pq_load.h), so dpkg-shlibdeps does not see it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpq5")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openssh-client, busybox-static")
set(CPACK_STRIP_FILES bin/orch)
include(CPack)
