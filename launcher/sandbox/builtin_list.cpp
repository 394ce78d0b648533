#include "launcher/sandbox/builtin_list.hpp"

#include <algorithm>

#include "launcher/sandbox/policy.hpp"

namespace holdfast::sandbox {

Refusal malformed_list(const settings::KeyPath& key, const std::string& entry,
                       std::string message) {
  return Refusal{
      "policy-malformed", settings::to_dotted(key), printable_key(entry), std::move(message),
      "correct " + settings::to_dotted(key) +
          " in the settings (holdfast settings edit) and run holdfast settings validate"};
}

std::string origin_text(const std::optional<settings::Scope>& origin) {
  return origin ? std::string(settings::scope_name(*origin)) + " scope" : "built in";
}

namespace {

std::optional<settings::Scope> element_origin(const settings::Effective& effective,
                                              const settings::KeyPath& list, std::size_t index) {
  const auto it = effective.origins.find(settings::to_dotted(list) + "." + std::to_string(index));
  if (it == effective.origins.end()) return std::nullopt;
  return it->second;
}

std::vector<ListItem> read_strings(const settings::Effective& effective,
                                   const settings::KeyPath& list, const nlohmann::json& value,
                                   std::vector<Refusal>& refusals) {
  std::vector<ListItem> out;
  if (!value.is_array()) {
    refusals.push_back(malformed_list(list, "", "expected a list of strings"));
    return out;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string() || value[i].get_ref<const std::string&>().empty()) {
      refusals.push_back(malformed_list(list, value[i].dump(), "expected a non-empty string"));
      continue;
    }
    const auto& text = value[i].get_ref<const std::string&>();
    if (std::any_of(text.begin(), text.end(), [](char c) {
          const auto byte = static_cast<unsigned char>(c);
          return byte < 0x20 || byte == 0x7f;
        })) {
      refusals.push_back(malformed_list(list, text, "the name contains a control character"));
      continue;
    }
    out.push_back(ListItem{text, element_origin(effective, list, i)});
  }
  return out;
}

}  // namespace

ListSettings read_list_settings(const settings::Effective& effective, const settings::KeyPath& key,
                                std::vector<Refusal>& refusals,
                                std::span<const std::string_view> own_members) {
  ListSettings out;
  out.add_key = out.lift_key = key;
  out.add_key.push_back("add");
  out.lift_key.push_back("lift");
  const nlohmann::json* value = settings::find_value(effective.value, key);
  if (value == nullptr) return out;
  if (!value->is_object()) {
    refusals.push_back(malformed_list(key, "", "expected an object with \"add\" and \"lift\""));
    return out;
  }
  for (const auto& [member, item] : value->items()) {
    settings::KeyPath list = key;
    list.push_back(member);
    if (member == "add") {
      out.add = read_strings(effective, list, item, refusals);
      if (out.add.size() > kMaxListAdditions) {
        refusals.push_back(malformed_list(list, "",
                                          "at most " + std::to_string(kMaxListAdditions) +
                                              " additions (over all scopes): each one costs "
                                              "every launch a look at the host"));
        out.add.clear();
      }
    } else if (member == "lift") {
      out.lift = read_strings(effective, list, item, refusals);
    } else if (std::find(own_members.begin(), own_members.end(), member) == own_members.end()) {
      std::string known = "add, lift";
      for (const auto own : own_members) known += ", " + std::string(own);
      refusals.push_back(malformed_list(list, "", "unknown key (known: " + known + ")"));
    }
  }
  return out;
}

}  // namespace holdfast::sandbox
