// The operator's settings page: its files (service/page/), embedded in the
// program at build time, and the headers they are served with.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace holdfast::service {

struct PageFile {
  std::string_view name;  // "index.html", "page.js"
  std::string_view body;
};

// Every file of service/page/ (generated: page_assets_data.cpp).
const std::vector<PageFile>& page_files();

// The file named `name`, if the page has one.
std::optional<PageFile> find_page_file(std::string_view name);

// The Content-Type for a page file, by its extension; nullopt for a kind of
// file the page does not serve.
std::optional<std::string> page_content_type(std::string_view name);

// The headers every page file is sent with, beside the two every answer of
// the service carries (Cache-Control: no-store, so that an old page does not
// outlive its service; X-Content-Type-Options: nosniff): never framed, and a
// policy that lets the page run only its own script files (no inline script,
// no eval, nothing from elsewhere).
std::vector<std::pair<std::string, std::string>> page_headers();

}  // namespace holdfast::service
