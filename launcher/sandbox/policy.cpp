#include "launcher/sandbox/policy.hpp"

#include <algorithm>
#include <map>

#include "base/name_table.hpp"
#include "base/sha256.hpp"
#include "launcher/sandbox/paths.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/key_path.hpp"

namespace holdfast::sandbox {

namespace {

// "none" is also read as deny (an alias in the settings schema).
constexpr NameRow<Access> kAccessNames[] = {
    {Access::read, "read"}, {Access::write, "write"}, {Access::deny, "deny"}};
constexpr NameRow<Network> kNetworkNames[] = {{Network::open, "open"}, {Network::closed, "closed"}};
// Not a value the policy's string form accepts: written as an object.
constexpr NameRow<Network> kNetworkDisplayNames[] = {
    {Network::open, "open"}, {Network::closed, "closed"}, {Network::allow_list, "allow-list"}};

}  // namespace

std::string_view access_name(Access access) { return name_in(kAccessNames, access); }

std::string_view network_name(Network network) { return name_in(kNetworkDisplayNames, network); }

std::string_view form_name(PolicyForm form) {
  switch (form) {
    case PolicyForm::builtin_default:
      return "built-in default";
    case PolicyForm::simple:
      return "simple";
    case PolicyForm::split:
      return "split";
  }
  return "split";
}

namespace {

constexpr std::string_view kPolicyKey = "tools.executionSandbox";

Refusal malformed(std::string path, const std::string& entry, std::string message) {
  return Refusal{"policy-malformed", std::move(path), printable_key(entry), std::move(message),
                 "correct tools.executionSandbox in the operator settings (holdfast settings "
                 "edit) and run holdfast settings validate"};
}

std::vector<Entry> simple_entries(std::string_view form, std::optional<settings::Scope> origin) {
  std::vector<Entry> out;
  // The workspace is named even when read-only: it may sit under /tmp,
  // which is otherwise a private tmpfs.
  out.push_back(Entry{":root", Access::read, ":root", origin});
  out.push_back(Entry{":workspace", form == "workspace-write" ? Access::write : Access::read,
                      ":workspace", origin});
  return out;
}

std::optional<settings::Scope> origin_of(const settings::Effective& effective,
                                         const settings::KeyPath& path) {
  const std::string dotted = settings::to_dotted(path);
  if (const auto it = effective.origins.find(dotted); it != effective.origins.end()) {
    return it->second;
  }
  // Origins are recorded per leaf; an object (the split filesystem) takes
  // the scope of a leaf below it (the policy comes whole from one scope).
  const auto below = effective.origins.lower_bound(dotted + ".");
  if (below != effective.origins.end() && below->first.starts_with(dotted + ".")) {
    return below->second;
  }
  return std::nullopt;
}

std::optional<Access> parse_access(const nlohmann::json& value) {
  if (!value.is_string()) return std::nullopt;
  const auto& text = value.get_ref<const std::string&>();
  if (text == "none") return Access::deny;
  return parse_in(kAccessNames, text);
}

// A limit: a whole number from 1 to `max`.
std::optional<std::uint64_t> limit_value(const nlohmann::json& value, const std::string& where,
                                         std::uint64_t max, std::vector<Refusal>& refusals) {
  // Settings read from text hold non-negative integers as unsigned; a
  // document built in code may hold them signed.
  if (value.is_number_integer() && value.get<std::int64_t>() >= 1 &&
      value.get<std::uint64_t>() <= max) {
    return value.get<std::uint64_t>();
  }
  refusals.push_back(
      malformed(where, "", "expected a whole number from 1 to " + std::to_string(max)));
  return std::nullopt;
}

void parse_limits(const nlohmann::json& value, const std::string& where, Limits& limits,
                  std::vector<Refusal>& refusals) {
  if (!value.is_object()) {
    refusals.push_back(malformed(where, "", "expected an object"));
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const std::string at = where + "." + key;
    if (key == "tmpfsMiB") {
      if (const auto v = limit_value(item, at, kMaxTmpfsMiB, refusals)) limits.tmpfs_mib = *v;
    } else if (key == "processes") {
      limits.processes = limit_value(item, at, kMaxProcesses, refusals);
    } else if (key == "memoryMiB") {
      limits.memory_mib = limit_value(item, at, kMaxMemoryMiB, refusals);
    } else if (key == "cpuSeconds") {
      limits.cpu_seconds = limit_value(item, at, kMaxCpuSeconds, refusals);
    } else if (key == "coreDumps") {
      if (item.is_boolean()) {
        limits.core_dumps = item.get<bool>();
      } else {
        refusals.push_back(malformed(at, "", "expected true or false"));
      }
    } else {
      refusals.push_back(malformed(
          at, "", "unknown key (known: tmpfsMiB, processes, memoryMiB, cpuSeconds, coreDumps)"));
    }
  }
}

}  // namespace

Policy default_policy() {
  Policy policy;
  policy.form = PolicyForm::builtin_default;
  policy.simple_filesystem = "workspace-write";
  policy.filesystem = simple_entries("workspace-write", std::nullopt);
  policy.protected_names = builtin_protected_names();
  policy.credential_stores = builtin_credential_stores();
  return policy;
}

namespace {
bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}
}  // namespace

std::string printable_key(std::string_view written) {
  std::string out;
  for (const char c : written) {
    if (!is_control(c)) {
      out += c;
      continue;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(c);
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

std::optional<std::string> normalize_entry_key(std::string_view written, std::string& why) {
  if (const auto at = std::find_if(written.begin(), written.end(), is_control);
      at != written.end()) {
    why = "the path contains a control character (byte " +
          printable_key(std::string_view(&*at, 1)) + " at offset " +
          std::to_string(at - written.begin()) +
          "); bubblewrap would see the path cut or changed there. Write the path without it";
    return std::nullopt;
  }
  std::string_view text = written;
  std::string base;
  if (text == "~" || text.starts_with("~/")) {
    base = ":home";
    text.remove_prefix(1);
  } else if (text.starts_with("~")) {
    why = "\"~user\" is not supported; write the absolute path";
    return std::nullopt;
  } else if (text.starts_with(":")) {
    const std::size_t slash = text.find('/');
    base = std::string(text.substr(0, slash));
    if (std::find(std::begin(kTokens), std::end(kTokens), base) == std::end(kTokens)) {
      why = "unknown token " + base + " (known: :root, :minimal, :workspace, :tmpdir, :home)";
      return std::nullopt;
    }
    text = slash == std::string_view::npos ? std::string_view{} : text.substr(slash);
    if (base == ":minimal" && !split_path(text).empty()) {
      why = ":minimal names several directories and takes no sub-path";
      return std::nullopt;
    }
  } else if (!text.starts_with("/")) {
    why = "a path must be absolute, start with ~/ or with a token such as :workspace";
    return std::nullopt;
  }
  // Normalise the (relative) rest; ".." is never resolved lexically.
  const auto rest = normalize_absolute(std::string("/") + std::string(text));
  if (!rest) {
    why = "\"..\" is not allowed in a path entry; write the path without it";
    return std::nullopt;
  }
  // "/" and ":root" are one key; ":root/x" is "/x".
  if (base.empty() || base == ":root") return *rest == "/" ? std::string(":root") : *rest;
  return *rest == "/" ? base : base + *rest;
}

Policy policy_from_settings(const settings::Effective& effective) {
  const nlohmann::json* sandbox =
      settings::find_value(effective.value, {"tools", "executionSandbox"});
  std::vector<Refusal> refusals;
  Policy policy = default_policy();
  // Every scope extends these two lists, with or without a policy.
  policy.protected_names = protected_names_from_settings(effective, refusals);
  policy.credential_stores = credential_stores_from_settings(effective, refusals);
  if (sandbox == nullptr) {
    if (!refusals.empty()) throw Refused(std::move(refusals));
    return policy;
  }
  const std::string where(kPolicyKey);
  if (!sandbox->is_object()) {
    refusals.push_back(malformed(where, "", "expected an object"));
    throw Refused(std::move(refusals));
  }
  policy.filesystem_origin = policy.network_origin = policy.unix_sockets_origin = std::nullopt;

  if (const auto it = sandbox->find("filesystem"); it != sandbox->end()) {
    const settings::KeyPath fs_path = {"tools", "executionSandbox", "filesystem"};
    policy.filesystem_origin = origin_of(effective, fs_path);
    if (it->is_string()) {
      const auto& form = it->get_ref<const std::string&>();
      if (form != "read-only" && form != "workspace-write") {
        refusals.push_back(malformed(where + ".filesystem", form,
                                     "expected \"read-only\", \"workspace-write\" or an object"));
      }
      policy.form = PolicyForm::simple;
      policy.simple_filesystem = form;
      policy.filesystem = simple_entries(form, policy.filesystem_origin);
    } else if (it->is_object()) {
      policy.form = PolicyForm::split;
      policy.simple_filesystem.clear();
      std::map<std::string, Entry> entries;
      for (const auto& [written, value] : it->items()) {
        std::string why;
        const auto key = normalize_entry_key(written, why);
        const auto access = parse_access(value);
        if (!key) {
          refusals.push_back(malformed(where + ".filesystem", written, why));
          continue;
        }
        if (!access) {
          refusals.push_back(malformed(where + ".filesystem", written,
                                       "access must be \"read\", \"write\", \"deny\" or \"none\""));
          continue;
        }
        settings::KeyPath entry_path = fs_path;
        entry_path.push_back(written);
        Entry entry{*key, *access, written, origin_of(effective, entry_path)};
        // Two spellings of one key ("/a", "/a/"): the tie order decides.
        auto [slot, inserted] = entries.emplace(*key, entry);
        if (!inserted && entry.access > slot->second.access) slot->second = entry;
      }
      policy.filesystem.clear();
      for (auto& [key, entry] : entries) policy.filesystem.push_back(std::move(entry));
    } else {
      refusals.push_back(malformed(where + ".filesystem", "", "expected a string or an object"));
    }
  } else {
    policy.form = PolicyForm::simple;  // operator policy without filesystem: default form
  }

  if (const auto it = sandbox->find("network"); it != sandbox->end()) {
    policy.network_origin = origin_of(effective, {"tools", "executionSandbox", "network"});
    const auto network =
        it->is_string() ? parse_in(kNetworkNames, it->get<std::string>()) : std::nullopt;
    if (network) {
      policy.network = *network;
    } else if (it->is_object()) {
      try {
        const std::string origin =
            policy.network_origin ? std::string(settings::scope_name(*policy.network_origin)) : "";
        policy.network_rules = network::parse_network_rules(*it, origin, where + ".network");
        policy.network = Network::allow_list;
      } catch (const network::InvalidHostRule& e) {
        // "WHERE.allow[2]: WHAT": the located path is the refusal's path.
        const std::string_view what = e.what();
        const std::size_t colon = what.find(": ");
        refusals.push_back(colon == std::string_view::npos
                               ? malformed(where + ".network", "", std::string(what))
                               : malformed(std::string(what.substr(0, colon)), "",
                                           std::string(what.substr(colon + 2))));
      }
    } else {
      refusals.push_back(
          malformed(where + ".network", "",
                    "expected " + alternatives(kNetworkNames) +
                        " or an allow-list object {\"allow\": [...], \"deny\": [...]}"));
    }
  }
  if (const auto it = sandbox->find("unixSockets"); it != sandbox->end()) {
    policy.unix_sockets_origin = origin_of(effective, {"tools", "executionSandbox", "unixSockets"});
    const auto sockets =
        it->is_string() ? parse_in(kUnixSocketsNames, it->get<std::string>()) : std::nullopt;
    if (sockets) {
      policy.unix_sockets = *sockets;
    } else {
      refusals.push_back(
          malformed(where + ".unixSockets", "", "expected " + alternatives(kUnixSocketsNames)));
    }
  } else {
    // Host sockets are services; with the network closed none is reachable
    // unless the operator says so. With it open the host is reachable anyway.
    policy.unix_sockets = policy.network == Network::open ? UnixSockets::allow : UnixSockets::pairs;
  }
  if (const auto it = sandbox->find("limits"); it != sandbox->end()) {
    policy.limits_origin = origin_of(effective, {"tools", "executionSandbox", "limits"});
    parse_limits(*it, where + ".limits", policy.limits, refusals);
  }
  if (const auto it = sandbox->find("backend"); it != sandbox->end()) {
    if (*it == "auto" || *it == "bwrap") {
      policy.backend = it->get<std::string>();
    } else {
      refusals.push_back(
          malformed(where + ".backend", "",
                    "expected \"auto\" or \"bwrap\" (holdfast only uses bubblewrap)"));
    }
  }
  for (const auto& [key, value] : sandbox->items()) {
    if (key != "filesystem" && key != "network" && key != "unixSockets" && key != "backend" &&
        key != "limits") {
      refusals.push_back(malformed(where + "." + key, "", "unknown key"));
    }
  }
  if (!refusals.empty()) throw Refused(std::move(refusals));
  return policy;
}

nlohmann::json network_json(const Policy& policy) {
  if (policy.network != Network::allow_list) return std::string(network_name(policy.network));
  const auto texts = [](const std::vector<network::HostRule>& rules) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& rule : rules) out.push_back(rule.text);
    return out;
  };
  return {{"allow", texts(policy.network_rules.allow)}, {"deny", texts(policy.network_rules.deny)}};
}

nlohmann::json canonical_json(const Policy& policy) {
  nlohmann::json filesystem = nlohmann::json::object();
  for (const auto& entry : policy.filesystem) {
    filesystem[entry.key] = std::string(access_name(entry.access));
  }
  nlohmann::json limits = {{"tmpfsMiB", policy.limits.tmpfs_mib}};
  if (policy.limits.processes) limits["processes"] = *policy.limits.processes;
  if (policy.limits.memory_mib) limits["memoryMiB"] = *policy.limits.memory_mib;
  if (policy.limits.cpu_seconds) limits["cpuSeconds"] = *policy.limits.cpu_seconds;
  if (policy.limits.core_dumps) limits["coreDumps"] = true;
  if (policy.protected_names.scan_limit != kDefaultScanLimit) {
    limits["protectedNamesScanLimit"] = policy.protected_names.scan_limit;
  }
  nlohmann::json names = nlohmann::json::array();
  for (const auto& name : policy.protected_names.names) names.push_back(written_name(name));
  nlohmann::json stores = nlohmann::json::object();
  for (const auto& store : policy.credential_stores.stores) stores[store.name] = store.paths;
  return nlohmann::json{{"filesystem", std::move(filesystem)},
                        {"network", network_json(policy)},
                        {"unixSockets", std::string(unix_sockets_name(policy.unix_sockets))},
                        {"limits", std::move(limits)},
                        {"protectedNames", std::move(names)},
                        {"credentialStores", std::move(stores)}};
}

std::string canonical_text(const Policy& policy) {
  // nlohmann::json objects are std::map-backed: keys come out sorted.
  return canonical_json(policy).dump();
}

std::string policy_digest(const Policy& policy) {
  return "sha256:" + base::sha256_hex(canonical_text(policy));
}

std::vector<std::string> expand_key(const Entry& entry, const TokenValues& tokens) {
  const std::string& key = entry.key;
  if (key.starts_with("/")) return {key};
  const std::size_t slash = key.find('/');
  const std::string token = key.substr(0, slash);
  const std::string rest = slash == std::string::npos ? std::string() : key.substr(slash);
  if (token == ":root") return {"/"};
  if (token == ":minimal") return tokens.minimal;
  std::string base;
  if (token == ":workspace") {
    base = tokens.workspace;
  } else if (token == ":tmpdir") {
    base = tokens.tmpdir;
  } else if (token == ":home") {
    if (tokens.home.empty()) {
      throw Refused(
          {Refusal{"home-unknown", key, entry.written,
                   "the entry names the home directory but HOME is not set",
                   "set HOME to an absolute path or write the entry as an absolute path"}});
    }
    base = tokens.home;
  } else {
    throw Refused({malformed(key, entry.written, "unknown token " + token)});
  }
  return {join_path(base, rest)};
}

}  // namespace holdfast::sandbox
