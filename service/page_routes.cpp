#include "service/page_routes.hpp"

#include "service/answers.hpp"
#include "service/page_assets.hpp"

namespace holdfast::service {

bool is_page_path(const std::string& path) { return path == "/" || path.starts_with("/page/"); }

Response page_file_response(const std::string& path) {
  const std::string name = path == "/" ? "index.html" : path.substr(6);
  const auto file = find_page_file(name);
  const auto type = page_content_type(name);
  if (!file || !type) return error_response(404, "not_found", "the page has no file " + name);
  Response response;
  response.content_type = *type;
  response.body = std::string(file->body);
  for (const auto& [header, value] : page_headers()) response.set_header(header, value);
  return response;
}

}  // namespace holdfast::service
