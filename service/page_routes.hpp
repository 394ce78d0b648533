// Serves the operator's settings page: GET / is the page, GET /page/NAME
// its other files, all from the program itself.
#pragma once

#include <httplib.h>

namespace holdfast::service {

void add_page_routes(httplib::Server& server);

}  // namespace holdfast::service
