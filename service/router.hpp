// Which function answers a request: a method and a path pattern (a regular
// expression over the whole path; its groups land in Request::matches).
#pragma once

#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "service/http_message.hpp"

namespace holdfast::service {

using Handler = std::function<Response(Request&)>;

class Router {
 public:
  void add(std::string method, const std::string& pattern, Handler handler);

  // The matching route's answer; 404 for a path no route has, 405 (with
  // Allow) for a method the path does not take. Exceptions from the route
  // are the caller's (see answers.hpp: answer_exception).
  Response dispatch(Request& request) const;

 private:
  struct Route {
    std::string method;
    std::regex pattern;
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace holdfast::service
