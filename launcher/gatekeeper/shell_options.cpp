#include "launcher/gatekeeper/shell_options.hpp"

namespace holdfast::gatekeeper::shell::detail {

namespace {

bool takes_value(std::string_view long_values, std::string_view name) {
  if (long_values.empty()) return false;
  const std::string needle = " " + std::string(name) + " ";
  return long_values.find(needle) != std::string_view::npos;
}

}  // namespace

Parsed parse_args(const std::vector<Expanded>& words, std::size_t from,
                  std::string_view short_values, std::string_view long_values,
                  bool stop_at_operand) {
  Parsed parsed;
  bool options_done = false;
  std::size_t i = from;
  for (; i < words.size(); ++i) {
    const std::string& t = words[i].text;
    if (options_done || t.size() < 2 || t[0] != '-') {
      if (stop_at_operand) break;
      parsed.operands.push_back(i);
      continue;
    }
    if (t == "--") {
      options_done = true;
      if (stop_at_operand) {
        ++i;
        break;
      }
      continue;
    }
    if (t.starts_with("--")) {
      const auto eq = t.find('=');
      Option option{t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2), "", -1, 0};
      if (eq != std::string::npos) {
        option.value = t.substr(eq + 1);
        option.word = static_cast<int>(i);
        option.offset = eq + 1;
      } else if (takes_value(long_values, option.name) && i + 1 < words.size()) {
        ++i;
        option.value = words[i].text;
        option.word = static_cast<int>(i);
      }
      parsed.options.push_back(option);
      continue;
    }
    for (std::size_t j = 1; j < t.size(); ++j) {
      Option option{std::string(1, t[j]), "", -1, 0};
      if (short_values.find(t[j]) != std::string_view::npos) {
        if (j + 1 < t.size()) {
          option.value = t.substr(j + 1);
          option.word = static_cast<int>(i);
          option.offset = j + 1;
        } else if (i + 1 < words.size()) {
          option.value = words[i + 1].text;
          option.word = static_cast<int>(i + 1);
          ++i;
        }
        parsed.options.push_back(option);
        break;
      }
      parsed.options.push_back(option);
    }
  }
  parsed.end = i;
  return parsed;
}

const Option* find_option(const Parsed& parsed, std::span<const std::string_view> names) {
  for (const Option& option : parsed.options) {
    for (std::string_view name : names) {
      if (!name.empty() && option.name == name) return &option;
    }
  }
  return nullptr;
}

}  // namespace holdfast::gatekeeper::shell::detail
