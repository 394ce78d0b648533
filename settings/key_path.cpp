#include "settings/key_path.hpp"

#include "settings/errors.hpp"

namespace holdfast::settings {

namespace {

KeyPath parse_pointer(std::string_view text) {
  KeyPath path;
  try {
    const nlohmann::json::json_pointer pointer{std::string(text)};
    // json_pointer has no public segment accessor in 3.11; walk via parent.
    auto p = pointer;
    while (!p.empty()) {
      path.insert(path.begin(), p.back());
      p.pop_back();
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("invalid key path \"" + std::string(text) + "\": " + e.what());
  }
  return path;
}

// In the dotted spelling a backslash escapes a dot, a backslash, and a
// slash at the very start (which would otherwise make the text a JSON
// pointer); before anything else it stands for itself.
bool is_escape(std::string_view text, std::size_t i) {
  if (text[i] != '\\' || i + 1 >= text.size()) return false;
  const char next = text[i + 1];
  return next == '.' || next == '\\' || (next == '/' && i == 0);
}

}  // namespace

KeyPath parse_key_path(std::string_view text) {
  if (text.empty()) throw UsageError("empty key path; write a key such as tools.executionSandbox");
  KeyPath path = text.front() == '/' ? parse_pointer(text) : KeyPath{};
  if (text.front() != '/') {
    std::string segment;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (is_escape(text, i)) {
        segment += text[i + 1];
        ++i;
      } else if (text[i] == '.') {
        path.push_back(std::move(segment));
        segment.clear();
      } else {
        segment += text[i];
      }
    }
    path.push_back(std::move(segment));
  }
  for (const auto& segment : path) {
    if (segment.empty()) {
      throw UsageError("invalid key path \"" + std::string(text) +
                       "\": empty key segment (write \\. for a dot inside a key)");
    }
  }
  return path;
}

std::string to_dotted(const KeyPath& path) {
  std::string out;
  for (std::size_t s = 0; s < path.size(); ++s) {
    if (s > 0) out += '.';
    const std::string& segment = path[s];
    for (std::size_t i = 0; i < segment.size(); ++i) {
      // What follows this character in the spelling: the next one of the
      // key, or the separator. A backslash is escaped only where it would
      // otherwise escape what follows (see is_escape).
      const char c = segment[i];
      const char next = i + 1 < segment.size() ? segment[i + 1] : s + 1 < path.size() ? '.' : '\0';
      const bool at_start = out.empty();
      const bool escape = c == '.' || (c == '/' && at_start) ||
                          (c == '\\' && (next == '.' || next == '\\' || (next == '/' && at_start)));
      if (escape) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string pointer_escape(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string to_pointer(const KeyPath& path) {
  std::string out;
  for (const auto& segment : path) out += "/" + pointer_escape(segment);
  return out;
}

std::string pointer_to_dotted(std::string_view pointer) {
  return pointer.empty() ? std::string() : to_dotted(parse_pointer(pointer));
}

const nlohmann::json* find_value(const nlohmann::json& document, const KeyPath& path) {
  const nlohmann::json* node = &document;
  for (const auto& segment : path) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(segment);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void set_value(nlohmann::json& document, const KeyPath& path, nlohmann::json value) {
  nlohmann::json* node = &document;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (node->is_null()) *node = nlohmann::json::object();
    if (!node->is_object()) {
      throw UsageError("cannot set " + to_dotted(path) + ": " +
                       to_dotted(KeyPath(path.begin(), path.begin() + static_cast<long>(i))) +
                       " is a " + node->type_name() + ", not an object");
    }
    node = &(*node)[path[i]];
  }
  *node = std::move(value);
}

bool unset_value(nlohmann::json& document, const KeyPath& path) {
  if (path.empty()) return false;
  nlohmann::json* parent = &document;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (!parent->is_object()) return false;
    const auto it = parent->find(path[i]);
    if (it == parent->end()) return false;
    parent = &*it;
  }
  return parent->is_object() && parent->erase(path.back()) > 0;
}

}  // namespace holdfast::settings
