#include "service/router.hpp"

#include "service/answers.hpp"

namespace holdfast::service {

void Router::add(std::string method, const std::string& pattern, Handler handler) {
  routes_.push_back(Route{std::move(method), std::regex(pattern), std::move(handler)});
}

Response Router::dispatch(Request& request) const {
  std::string allowed;
  for (const Route& route : routes_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, route.pattern)) continue;
    if (route.method != request.method) {
      allowed += (allowed.empty() ? "" : ", ") + route.method;
      continue;
    }
    request.matches.assign(match.begin() + 1, match.end());
    return route.handler(request);
  }
  if (!allowed.empty()) {
    Response response =
        error_response(405, "method_not_allowed",
                       request.method + " is not answered at " + request.path + "; use " + allowed);
    response.set_header("Allow", allowed);
    return response;
  }
  return error_response(404, "not_found",
                        "no such resource: " + request.path + " (the API is under /api/v1)");
}

}  // namespace holdfast::service
