#include "service/page_routes.hpp"

#include <string>

#include "service/answers.hpp"
#include "service/page_assets.hpp"

namespace holdfast::service {

namespace {

void answer_file(httplib::Response& response, const std::string& name) {
  const auto file = find_page_file(name);
  const auto type = page_content_type(name);
  if (!file || !type) {
    answer_error(response, 404, "not_found", "the page has no file " + name);
    return;
  }
  for (const auto& [header, value] : page_headers()) response.set_header(header, value);
  response.status = 200;
  response.set_content(std::string(file->body), *type);
}

}  // namespace

void add_page_routes(httplib::Server& server) {
  server.Get("/", [](const auto&, auto& response) { answer_file(response, "index.html"); });
  server.Get(R"(/page/([A-Za-z0-9_-]+\.[a-z]+))", [](const auto& request, auto& response) {
    answer_file(response, request.matches[1]);
  });
}

}  // namespace holdfast::service
