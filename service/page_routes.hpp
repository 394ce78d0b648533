// Serves the operator's settings page: GET / is the page, GET /page/NAME
// its other files, all from the program itself. They hold no secret, so
// they are answered before any credential is asked for (access.hpp).
#pragma once

#include <optional>
#include <string>

#include "service/http_message.hpp"

namespace holdfast::service {

// True for the paths of the page's files (/ and /page/NAME).
bool is_page_path(const std::string& path);

// The answer for a page path: the file with its headers, or 404.
Response page_file_response(const std::string& path);

}  // namespace holdfast::service
