#include "service/page_assets.hpp"

#include <algorithm>

namespace holdfast::service {

std::optional<PageFile> find_page_file(std::string_view name) {
  const auto& files = page_files();
  const auto it =
      std::find_if(files.begin(), files.end(), [&](const PageFile& f) { return f.name == name; });
  if (it == files.end()) return std::nullopt;
  return *it;
}

std::optional<std::string> page_content_type(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> page_headers() {
  return {{"Content-Security-Policy",
           "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
           "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"},
          {"X-Frame-Options", "DENY"},
          {"Referrer-Policy", "no-referrer"}};
}

}  // namespace holdfast::service
