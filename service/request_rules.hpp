// What is refused from a request's head alone, before its body is read:
// a header that decides access sent twice, a body larger than any settings
// file, a body that is not declared as JSON (a form post, say: 415, with
// what to send instead).
#pragma once

#include <cstddef>
#include <optional>

#include "service/http_message.hpp"

namespace holdfast::service {

std::optional<Response> head_refusal(const Request& request, std::size_t body_limit);

}  // namespace holdfast::service
