#include "launcher/gatekeeper/shell_words.hpp"

#include <algorithm>
#include <cctype>

namespace holdfast::gatekeeper::shell::detail {

namespace {

// A shell variable name: letters, digits and '_', not starting with a digit.
bool is_name(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) == 0 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

}  // namespace

Expanded expand(const Word& word, std::string_view pwd, std::string_view home) {
  Expanded e;
  for (std::size_t k = 0; k < word.parts.size(); ++k) {
    const WordPart& part = word.parts[k];
    switch (part.kind) {
      case WordPart::Kind::text: {
        std::string_view value = part.value;
        // bash also expands ~ after the = of an assignment-like word
        // (dd if=~/x): take that prefix as text first.
        if (k == 0 && !part.quoted) {
          const auto eq = value.find("=~");
          if (eq != std::string_view::npos && is_name(value.substr(0, eq)) &&
              (eq + 2 == value.size() || value[eq + 2] == '/')) {
            e.text += value.substr(0, eq + 1);
            value.remove_prefix(eq + 1);
          }
        }
        if (k == 0 && !part.quoted && value.starts_with('~')) {
          const auto slash = value.find('/');
          const std::string_view user =
              value.substr(1, slash == std::string_view::npos ? std::string_view::npos : slash - 1);
          if (user.empty()) {
            e.text += home;
            value.remove_prefix(1);
          } else {
            e.dynamic = true;
            if (e.why.empty()) e.why = "~" + std::string(user);
          }
        }
        e.text += value;
        if (!part.quoted && (value.find_first_of("*?[") != std::string_view::npos ||
                             (value.find('{') != std::string_view::npos &&
                              (value.find(',') != std::string_view::npos ||
                               value.find("..") != std::string_view::npos)))) {
          e.pattern = true;
        }
        break;
      }
      case WordPart::Kind::variable:
        if (part.value == "HOME") {
          e.text += home;
        } else if (part.value == "PWD") {
          e.text += pwd;
        } else {
          e.dynamic = true;
          e.splits = e.splits || !part.quoted;
          const std::string shown = part.value.empty() ? "${...}" : "$" + part.value;
          if (e.why.empty()) e.why = shown;
          e.text += shown;
        }
        break;
      case WordPart::Kind::substitution:
        e.dynamic = true;
        e.splits = e.splits || !part.quoted;
        if (e.why.empty()) e.why = "$(" + part.value + ")";
        e.substitutions.push_back(part.value);
        e.text += "$(" + part.value + ")";
        break;
    }
  }
  return e;
}

bool is_assignment(const Word& word) {
  if (word.parts.empty() || word.parts[0].kind != WordPart::Kind::text || word.parts[0].quoted) {
    return false;
  }
  const std::string& t = word.parts[0].value;
  const auto eq = t.find('=');
  return eq != std::string::npos && is_name(std::string_view(t).substr(0, eq));
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_device_without_effect(std::string_view path) {
  return path == "/dev/null" || path == "/dev/stdin" || path == "/dev/stdout" ||
         path == "/dev/stderr" || path == "/dev/tty" || path.starts_with("/dev/fd/");
}

}  // namespace holdfast::gatekeeper::shell::detail
