# holdfast_component(NAME <name> HEADERS_TO <dir> SOURCES <src>... [EXCLUDE_HEADERS <h>...])
#
# One installable component library: target holdfast_<name>, alias
# holdfast::<name>, the project root as include directory in the build and
# include/holdfast once installed, exported in holdfastTargets, and its
# headers installed under include/holdfast/<dir>. Each component then says
# only what it links.
function(holdfast_component)
  cmake_parse_arguments(ARG "" "NAME;HEADERS_TO" "SOURCES;EXCLUDE_HEADERS" ${ARGN})
  set(target holdfast_${ARG_NAME})
  add_library(${target} ${ARG_SOURCES})
  add_library(holdfast::${ARG_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_NAME})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/holdfast>)
  install(TARGETS ${target} EXPORT holdfastTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
  set(excluded)
  foreach(header IN LISTS ARG_EXCLUDE_HEADERS)
    list(APPEND excluded PATTERN ${header} EXCLUDE)
  endforeach()
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/holdfast/${ARG_HEADERS_TO}
    COMPONENT dev
    FILES_MATCHING PATTERN "*.hpp" ${excluded})
endfunction()
