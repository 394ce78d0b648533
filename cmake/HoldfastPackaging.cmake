# The Debian package, built by CPack (`cpack -G DEB` in the build directory,
# or scripts/package.sh): holdfast_<version>_amd64.deb with the executables,
# the settings JSON Schema, man pages made from the programs' own --help,
# bash completion, the copyright file and the changelog; and
# holdfast-dev_<version>_amd64.deb with the libraries, headers and CMake
# package (the same files `cmake --install` puts in place).
#
# Install rules name their component: "runtime" (the default for any rule
# that names none) or "dev" (the component libraries and the CMake package).

set(HOLDFAST_MAINTAINER "holdfast dev <dev@holdfast.invalid>" CACHE STRING
  "The package maintainer, \"Name <address>\"")
set(packaging_out ${PROJECT_BINARY_DIR}/packaging)
set(packaging_src ${PROJECT_SOURCE_DIR}/packaging)
set(doc_dir ${CMAKE_INSTALL_DATADIR}/doc/holdfast)

# The JSON Schema, from the program that enforces it.
add_custom_command(OUTPUT ${packaging_out}/settings.schema.json
  COMMAND ${CMAKE_COMMAND} -E make_directory ${packaging_out}
  COMMAND $<TARGET_FILE:holdfast> settings schema > ${packaging_out}/settings.schema.json
  DEPENDS holdfast
  COMMENT "Writing the settings JSON Schema from holdfast settings schema"
  VERBATIM)

# Man pages, from the programs' --help (help2man).
set(man_pages holdfast holdfast-settings holdfast-check holdfast-run holdfast-doctor
  holdfast-serve holdfast-race)
list(TRANSFORM man_pages PREPEND ${packaging_out}/man/ OUTPUT_VARIABLE man_files)
list(TRANSFORM man_files APPEND .1.gz)
find_program(HELP2MAN help2man)
if(HOLDFAST_SANITIZE)
  # A sanitizer build is never packaged: its man pages would only cost
  # running every program's --help under the sanitizers.
  set(man_files)
elseif(HELP2MAN)
  add_custom_command(OUTPUT ${man_files}
    COMMAND ${packaging_src}/make-man-pages.sh $<TARGET_FILE:holdfast>
      $<TARGET_FILE:holdfast-race> ${PROJECT_VERSION} ${packaging_out}/man
    DEPENDS holdfast holdfast-race ${packaging_src}/make-man-pages.sh
    COMMENT "Writing man pages from the --help text (help2man)"
    VERBATIM)
else()
  message(WARNING "help2man not found: the package will have no man pages "
    "(scripts/install-deps.sh installs it)")
  set(man_files)
endif()

add_custom_command(OUTPUT ${packaging_out}/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${packaging_out}
  COMMAND ${packaging_src}/debian-changelog.sh ${PROJECT_VERSION}
    ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${HOLDFAST_MAINTAINER} ${packaging_out}/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${packaging_src}/debian-changelog.sh
  VERBATIM)
add_custom_command(OUTPUT ${packaging_out}/CHANGELOG.md.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${packaging_out}
  COMMAND gzip -9n -c ${PROJECT_SOURCE_DIR}/CHANGELOG.md > ${packaging_out}/CHANGELOG.md.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/CHANGELOG.md
  VERBATIM)

add_custom_target(holdfast_package_files ALL DEPENDS ${packaging_out}/settings.schema.json
  ${man_files} ${packaging_out}/changelog.gz ${packaging_out}/CHANGELOG.md.gz)

install(TARGETS holdfast-race RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# The probe holdfast-race's launch mode starts confined (it finds it here).
install(TARGETS holdfast-probe RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/holdfast
  COMPONENT runtime)
install(FILES ${packaging_out}/settings.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/holdfast COMPONENT runtime)
if(man_files)
  install(FILES ${man_files} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
endif()
install(FILES ${packaging_src}/holdfast.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME holdfast
  COMPONENT runtime)
# bash-completion loads a command's completion by the command's name.
install(FILES ${packaging_src}/holdfast-race.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME holdfast-race
  COMPONENT runtime)
install(FILES ${packaging_src}/copyright ${packaging_out}/changelog.gz
  ${packaging_out}/CHANGELOG.md.gz DESTINATION ${doc_dir} COMPONENT runtime)
install(FILES ${packaging_src}/lintian-overrides
  DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME holdfast COMPONENT runtime)
install(FILES ${packaging_src}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/holdfast-dev
  COMPONENT dev)
install(FILES ${packaging_out}/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/holdfast-dev COMPONENT dev)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME holdfast)
set(CPACK_PACKAGE_VENDOR "the holdfast developers")
set(CPACK_PACKAGE_CONTACT ${HOLDFAST_MAINTAINER})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${HOLDFAST_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# No Debian revision: `holdfast --version` is the package's version.
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME holdfast)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
# holdfast is static; dpkg-shlibdeps adds what holdfast-race links.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS bubblewrap)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "durable settings and confined command launches
holdfast keeps an operator's confinement policy in settings files that are
never seen half-written or missing, and starts commands inside a
bubblewrap + seccomp sandbox built from one consistent reading of that
policy. It is for people who run AI coding agents and other
tool-executing programs on Linux.
.
This package holds the holdfast command (settings, check, run, doctor, serve),
the holdfast-race campaign harness and the probe its launch mode starts,
the settings JSON Schema, man pages and bash completion.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME holdfast-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libboost-dev, nlohmann-json3-dev, libssl-dev, libseccomp-dev, libidn2-dev, libunistring-dev, pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "holdfast libraries, headers and CMake package
The static libraries of holdfast (holdfast::settings and the launcher's
parts), their headers, and the CMake package, so that a program can
find_package(holdfast) and link holdfast::settings.")

include(CPack)
