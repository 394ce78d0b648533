#include "service/request_rules.hpp"

#include <algorithm>
#include <cctype>

#include "service/answers.hpp"

namespace holdfast::service {

namespace {

std::string trimmed_lower(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  std::string out(text.substr(first, last - first + 1));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "application/json" and "application/json; charset=utf-8" are JSON.
bool declares_json(const std::string& content_type) {
  const std::size_t semicolon = content_type.find(';');
  if (trimmed_lower(content_type.substr(0, semicolon)) != "application/json") return false;
  if (semicolon == std::string::npos) return true;
  const std::string parameter = trimmed_lower(content_type.substr(semicolon + 1));
  return parameter.empty() || parameter == "charset=utf-8" || parameter == "charset=\"utf-8\"";
}

}  // namespace

std::optional<Response> head_refusal(const Request& request, std::size_t body_limit) {
  if (auto name = request.repeated_header()) {
    Response refusal = error_response(
        400, "repeated_header", "the header " + *name + " was sent more than once; send it once");
    refusal.close = true;
    return refusal;
  }
  const bool takes_body =
      request.method == "PUT" || request.method == "PATCH" || request.method == "POST";
  if (!takes_body) return std::nullopt;
  const auto length = request.header("Content-Length");
  const bool chunked = request.header("Transfer-Encoding").has_value();
  std::uint64_t size = 0;
  if (length) {
    const std::string text = trimmed_lower(*length);
    if (text.empty() || text.size() > 19 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
      return error_response(400, "bad_request", "Content-Length must be a number");
    }
    size = std::stoull(text);
  }
  if (size > body_limit) {
    return error_response(413, "too_large",
                          "the request body is " + std::to_string(size) +
                              " bytes, larger than any settings file (" +
                              std::to_string(body_limit) + " bytes)");
  }
  if (size == 0 && !chunked) return std::nullopt;
  const std::string type = request.header("Content-Type").value_or("");
  if (!declares_json(type)) {
    return error_response(415, "unsupported_media_type",
                          "the body must be JSON (UTF-8), sent with \"Content-Type: "
                          "application/json\"; this one was declared as " +
                              (type.empty() ? std::string("nothing") : "\"" + type + "\""));
  }
  return std::nullopt;
}

}  // namespace holdfast::service
