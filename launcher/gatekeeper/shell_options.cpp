#include "launcher/gatekeeper/shell_options.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace holdfast::gatekeeper::shell::detail {

namespace {

OptionSpec compile_token(std::string_view token, std::string_view name) {
  OptionSpec spec;
  const auto eq = name.find('=');
  spec.name = name.substr(0, eq);
  if (spec.name.empty())
    throw std::logic_error("option table: empty name in " + std::string(token));
  if (eq == std::string_view::npos) return spec;
  std::string_view rest = name.substr(eq + 1);
  spec.arity = Arity::required;
  if (rest.starts_with('?')) {
    spec.arity = Arity::optional;
    rest.remove_prefix(1);
  } else if (rest.starts_with('2')) {
    spec.arity = Arity::two;
    rest.remove_prefix(1);
  }
  if (rest.size() > 1 ||
      (rest.size() == 1 && std::string_view("RWEXCLSU").find(rest[0]) == std::string_view::npos)) {
    throw std::logic_error("option table: bad effect in " + std::string(token));
  }
  if (!rest.empty()) spec.effect = static_cast<ValueEffect>(rest[0]);
  return spec;
}

const OptionSpec* find_short(const OptionTable& table, char c) {
  for (const OptionSpec& spec : table.shorts) {
    if (spec.name[0] == c) return &spec;
  }
  return nullptr;
}

// getopt_long's lookup: an exact name wins; otherwise a unique prefix.
// Several prefixes that name options of the same kind and effect count as
// one (getopt takes the first of identical options too).
const OptionSpec* find_long(const OptionTable& table, std::string_view name) {
  const OptionSpec* found = nullptr;
  bool ambiguous = false;
  for (const OptionSpec& spec : table.longs) {
    if (spec.name == name) return &spec;
    if (table.style == ParseStyle::exact || !spec.name.starts_with(name)) continue;
    if (found != nullptr && (found->arity != spec.arity || found->effect != spec.effect)) {
      ambiguous = true;
    }
    if (found == nullptr) found = &spec;
  }
  return ambiguous ? nullptr : found;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

}  // namespace

OptionTable compile_options(std::string_view spec, ParseStyle style) {
  OptionTable table;
  table.style = style;
  std::size_t i = 0;
  while (i < spec.size()) {
    const std::size_t begin = spec.find_first_not_of(' ', i);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(spec.find(' ', begin), spec.size());
    const std::string_view token = spec.substr(begin, end - begin);
    i = end;
    if (token == "-#") {
      table.numeric = true;
    } else if (token.starts_with("--")) {
      table.longs.push_back(compile_token(token, token.substr(2)));
    } else if (token.starts_with('-') && token.size() >= 2) {
      OptionSpec s = compile_token(token, token.substr(1));
      if (s.name.size() != 1)
        throw std::logic_error("option table: bad short option " + std::string(token));
      table.shorts.push_back(s);
    } else {
      throw std::logic_error("option table: bad token " + std::string(token));
    }
  }
  return table;
}

Parsed parse_args(const std::vector<Expanded>& words, std::size_t from, const OptionTable& table,
                  bool stop_at_operand) {
  Parsed parsed;
  bool options_done = false;
  std::size_t i = from;
  auto take_next = [&](Option& option) {
    if (i + 1 < words.size()) {
      ++i;
      option.value = words[i].text;
      option.word = static_cast<int>(i);
    }
  };
  for (; i < words.size(); ++i) {
    const std::string& t = words[i].text;
    if (options_done || t.size() < 2 || t[0] != '-') {
      if (stop_at_operand || (table.style == ParseStyle::first && !options_done)) {
        if (stop_at_operand) break;
        options_done = true;
      }
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
      const std::string_view typed =
          std::string_view(t).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const OptionSpec* spec = find_long(table, typed);
      if (spec == nullptr || (spec->arity == Arity::flag && eq != std::string::npos)) {
        parsed.unknown.push_back(t);
        continue;
      }
      Option option{std::string(spec->name), "", -1, 0, spec, "", -1};
      if (spec->arity == Arity::two) {
        // --rawfile NAME FILE: the second value is the one with an effect.
        if (eq != std::string::npos) {
          option.value2 = t.substr(eq + 1);
          option.word2 = static_cast<int>(i);
        } else if (i + 1 < words.size()) {
          ++i;
          option.value2 = words[i].text;
          option.word2 = static_cast<int>(i);
        }
        take_next(option);
      } else if (eq != std::string::npos) {
        option.value = t.substr(eq + 1);
        option.word = static_cast<int>(i);
        option.offset = eq + 1;
      } else if (spec->arity == Arity::required) {
        take_next(option);
      }
      parsed.options.push_back(std::move(option));
      continue;
    }
    if (table.numeric && all_digits(std::string_view(t).substr(1))) {
      parsed.options.push_back({"#", t.substr(1), static_cast<int>(i), 1, nullptr, "", -1});
      continue;
    }
    for (std::size_t j = 1; j < t.size(); ++j) {
      const OptionSpec* spec = find_short(table, t[j]);
      if (spec == nullptr) {
        parsed.unknown.push_back("-" + std::string(1, t[j]) + " (in " + t + ")");
        continue;
      }
      Option option{std::string(spec->name), "", -1, 0, spec, "", -1};
      if (spec->arity == Arity::flag) {
        parsed.options.push_back(std::move(option));
        continue;
      }
      if (j + 1 < t.size()) {
        option.value = t.substr(j + 1);
        option.word = static_cast<int>(i);
        option.offset = j + 1;
      } else if (spec->arity != Arity::optional) {
        take_next(option);
      }
      parsed.options.push_back(std::move(option));
      break;
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
