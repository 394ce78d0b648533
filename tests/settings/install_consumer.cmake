# ctest script: `cmake --install` the build into a temp prefix, then
# configure, build and run a consumer project that does
# find_package(holdfast) and links holdfast::settings. Proves the installed
# package config, targets and headers work on their own.
#
# -DBUILD_DIR -DCONSUMER_SOURCE -DWORK_DIR -DGENERATOR -DCXX_COMPILER -DSANITIZE
foreach(var BUILD_DIR CONSUMER_SOURCE WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_consumer.cmake needs -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(installed include/holdfast/settings/store.hpp bin/holdfast)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "not installed: ${prefix}/${installed}")
  endif()
endforeach()

set(flags "")
if(SANITIZE)
  # The installed library was built with the sanitizers; its consumer must
  # link their runtimes too.
  set(flags "-fsanitize=address,undefined")
endif()
run(${CMAKE_COMMAND} -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${flags}"
    "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
file(MAKE_DIRECTORY "${WORK_DIR}/scopes")
run("${WORK_DIR}/build/consumer" "${WORK_DIR}/scopes")
if(NOT last_output MATCHES "consumer: ok")
  message(FATAL_ERROR "consumer said: ${last_output}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "installed package works: find_package(holdfast) + holdfast::settings")
