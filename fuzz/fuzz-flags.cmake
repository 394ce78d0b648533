# Compile options for a fuzzing build (-DHOLDFAST_FUZZ=ON, clang only):
# coverage for libFuzzer in every translation unit (the targets themselves
# link -fsanitize=fuzzer, which brings libFuzzer's main), and the sanitizers
# that turn memory errors and undefined behaviour into crashes it records.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "HOLDFAST_FUZZ needs clang (libFuzzer): configure with "
    "CC=clang-14 CXX=clang++-14 in a build directory of its own (scripts/fuzz.sh does)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
  -fno-omit-frame-pointer -O1 -g)
add_link_options(-fsanitize=address,undefined)
