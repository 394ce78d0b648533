# Turns every file of service/page/ into bytes in a generated C++ source,
# so that the page is served from the binary (no files to install, nothing
# fetched from anywhere). Run at build time:
#   cmake -DASSET_DIR=service/page -DOUTPUT=page_assets_data.cpp -P embed_page.cmake
file(GLOB assets RELATIVE ${ASSET_DIR} ${ASSET_DIR}/*)
list(SORT assets)
set(arrays "")
set(entries "")
set(index 0)
foreach(name IN LISTS assets)
  if(IS_DIRECTORY ${ASSET_DIR}/${name})
    continue()
  endif()
  file(READ ${ASSET_DIR}/${name} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND arrays "constexpr unsigned char k${index}[] = {\n${bytes}};\n")
  string(APPEND entries
    "      {\"${name}\", std::string_view(reinterpret_cast<const char*>(k${index}), sizeof k${index})},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from service/page/ by service/embed_page.cmake; do not edit.
#include \"service/page_assets.hpp\"

namespace holdfast::service {

namespace {
${arrays}}  // namespace

const std::vector<PageFile>& page_files() {
  static const std::vector<PageFile> files = {
${entries}  };
  return files;
}

}  // namespace holdfast::service
")
# Only a changed file is rewritten, so an unchanged page recompiles nothing.
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
