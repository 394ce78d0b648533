#include "settings/schema.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "launcher/network/host_rule.hpp"
#include "settings/key_path.hpp"
#include "settings/permission_rule.hpp"

namespace holdfast::settings {

namespace {

constexpr const char* kSchemaText = R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://holdfast.invalid/schema/settings.json",
  "title": "holdfast settings",
  "description": "One settings scope of holdfast. Scopes merge in the order system-defaults < user < workspace < system.",
  "type": "object",
  "properties": {
    "$revision": {
      "description": "Save counter maintained by holdfast; each save increments it, up to 2^53 - 1 (a save there is refused, never wrapped). Do not edit by hand.",
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991
    },
    "tools": {
      "type": "object",
      "properties": {
        "executionSandbox": {
          "description": "The confinement policy for commands. Honoured only from operator scopes (system-defaults, user, system); the highest operator scope that sets it wins as a whole.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "filesystem": {
              "description": "Simple form (read-only | workspace-write) or split form: a map from a path or token (:root, :minimal, :workspace, :tmpdir, :home) to read | write | deny (none is an alias of deny).",
              "oneOf": [
                {"type": "string", "enum": ["read-only", "workspace-write"]},
                {
                  "type": "object",
                  "additionalProperties": {"type": "string", "enum": ["read", "write", "deny", "none"]}
                }
              ]
            },
            "network": {
              "description": "closed: empty network namespace and only local socket families. open: the host's network. An allow-list object: a network namespace of its own whose only way out is the launch's proxy (HTTP CONNECT, plain HTTP, SOCKS5) and DNS stub, to the hosts listed: entries host[:port] (443 when left out), *.domain (strict subdomains), **.domain (the domain and its subdomains), private:NAME (may resolve to private ranges), ip:ADDRESS:PORT; deny beats allow.",
              "oneOf": [
                {"type": "string", "enum": ["open", "closed"]},
                {
                  "type": "object",
                  "additionalProperties": false,
                  "properties": {
                    "allow": {"type": "array", "items": {"type": "string", "format": "holdfast-host-rule-allow"}},
                    "deny": {"type": "array", "items": {"type": "string", "format": "holdfast-host-rule-deny"}}
                  }
                }
              ]
            },
            "backend": {
              "description": "Accepted for settings shared with other agents; holdfast always uses bubblewrap.",
              "type": "string",
              "enum": ["auto", "bwrap"]
            },
            "unixSockets": {
              "description": "allow: any AF_UNIX socket, so every host Unix socket the filesystem policy shows is reachable (an explicit opt-in). pairs: only connected pairs (socketpair), no host socket. deny: none. Default: pairs with the network closed, allow with it open.",
              "type": "string",
              "enum": ["allow", "pairs", "deny"]
            },
            "limits": {
              "description": "Bounds on what the command uses. Processes and memory are bounded for the whole sandbox (a cgroup per launch) with built-in defaults; CPU time per process only when set.",
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "tmpfsMiB": {
                  "description": "Size of each private tmpfs (/tmp, /dev/shm) in MiB. Default 1024.",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1073741824
                },
                "processes": {
                  "description": "Processes and threads of the whole sandbox (cgroup pids.max). Default 4096. When set and the host cannot enforce it (no cgroup the caller may use), launches are refused.",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 4194304
                },
                "memoryMiB": {
                  "description": "Memory of the whole sandbox in MiB (cgroup memory limit: anonymous memory, tmpfs and /dev/shm files, memfds). Default: half of the host's memory. When set and the host cannot enforce it, launches are refused.",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1073741824
                },
                "coreDumps": {
                  "description": "Let crashes inside write core files (RLIMIT_CORE unlimited as inherited). Default false: core size 0, since the host's core handler runs outside the sandbox.",
                  "type": "boolean"
                },
                "cpuSeconds": {
                  "description": "RLIMIT_CPU per process: CPU seconds, then SIGKILL.",
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 2147483648
                }
              }
            }
          }
        },
        "protectedNames": {
          "description": "Names read-only in every writable directory (git, shell, editor, agent configuration; holdfast run --explain lists them). add: \".name\" in every directory or \"~/path\" in the home directory, from any scope. lift: built-in names given back to the command, from operator scopes only (a workspace scope's lift and scanLimit are ignored). Lists from all scopes are combined.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "add": {"type": "array", "items": {"type": "string"}},
            "lift": {"type": "array", "items": {"type": "string"}},
            "scanLimit": {"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Directories walked per launch below the writable directories to find existing protected names and repositories (default 10000); a launch whose walk does not finish is refused. Operator scopes only."}
          }
        },
        "credentialStores": {
          "description": "Credential stores hidden from every command (SSH and GPG keys, cloud and registry tokens, browser profiles, ...; holdfast run --explain lists them). add: an absolute path or \"~/path\" (in every home), from any scope. lift: an entry's name (ssh, aws, ...), from operator scopes only (a workspace scope's lift is ignored). Lists from all scopes are combined.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "add": {"type": "array", "items": {"type": "string"}},
            "lift": {"type": "array", "items": {"type": "string"}}
          }
        }
      }
    },
    "permissions": {
      "description": "Gatekeeper rules: Tool or Tool(specifier). Lists from all scopes are combined; a workspace scope may add deny and ask rules only.",
      "type": "object",
      "properties": {
        "allow": {"type": "array", "items": {"type": "string", "format": "holdfast-permission-rule"}},
        "ask": {"type": "array", "items": {"type": "string", "format": "holdfast-permission-rule"}},
        "deny": {"type": "array", "items": {"type": "string", "format": "holdfast-permission-rule"}},
        "defaultMode": {"type": "string", "enum": ["plan", "default", "auto-edit", "yolo"]}
      }
    },
    "security": {
      "description": "Operator safety switches. Honoured only from operator scopes.",
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "requireExecutionSandbox": {
          "description": "In a system scope: a missing effective tools.executionSandbox stops every launch.",
          "type": "boolean"
        },
        "allowUnconfined": {
          "description": "Permit running commands without a sandbox when bubblewrap is not installed at the configured path. Off unless set; never when the program there is not trusted.",
          "type": "boolean"
        },
        "bubblewrap": {
          "description": "The absolute path of the bubblewrap to execute (default: the build-time default, /usr/bin/bwrap). Never looked up on PATH; it must be owned by root in directories only root can write.",
          "type": "string"
        },
        "workspaceStrictModes": {
          "description": "Check the workspace and its parents at every launch as sshd's StrictModes does (owned by root or you, not writable by group or others unless sticky and root's). Default true; false weakens the launch: another user who can write the workspace can change what the next launch runs.",
          "type": "boolean"
        },
        "requireLandlock": {
          "description": "Refuse every launch on a host without Landlock, the sandbox's second layer (by default it is used where the kernel has it).",
          "type": "boolean"
        }
      }
    },
    "launcher": {
      "type": "object",
      "properties": {
        "launchRecords": {
          "description": "Append one JSON line per launch to $XDG_STATE_HOME/holdfast/launches.jsonl.",
          "type": "boolean"
        }
      }
    }
  }
})json";

// What validate() reads of the schema: the schema without what is there
// for people (each "description", and the whitespace). Every reader of
// settings parses it once per process, so it is made by the compiler: a
// quarter of the text, and a launch's snapshot 0.36 -> 0.30 ms
// (bench/compare-two-builds.sh, the builds with and without it).
struct CompactText {
  std::array<char, std::string_view(kSchemaText).size()> chars{};
  std::size_t size = 0;

  constexpr void append(std::string_view part) {
    for (const char c : part) chars[size++] = c;
  }
};

constexpr bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Past the closing quote of the JSON string that opens at `at`.
constexpr std::size_t past_string(std::string_view text, std::size_t at) {
  for (++at; text.at(at) != '"'; ++at) {
    if (text[at] == '\\') ++at;
  }
  return at + 1;
}

constexpr std::size_t past_space(std::string_view text, std::size_t at) {
  while (at < text.size() && is_json_space(text[at])) ++at;
  return at;
}

consteval CompactText without_descriptions(std::string_view text) {
  CompactText out;
  std::size_t at = 0;
  while ((at = past_space(text, at)) < text.size()) {
    if (text[at] != '"') {
      out.append(text.substr(at++, 1));
      continue;
    }
    const std::size_t end = past_string(text, at);
    const std::size_t colon = past_space(text, end);
    const std::size_t value = past_space(text, colon + 1);
    if (text.substr(at, end - at) == "\"description\"" && text.at(colon) == ':' &&
        text.at(value) == '"') {
      at = past_space(text, past_string(text, value));
      if (text.at(at) == ',') {
        ++at;  // a member follows: its comma goes too
      } else if (out.size > 0 && out.chars[out.size - 1] == ',') {
        --out.size;  // it was the last member: the comma before it goes
      }
      continue;
    }
    out.append(text.substr(at, end - at));
    at = end;
  }
  return out;
}

constexpr CompactText kValidationSchema = without_descriptions(kSchemaText);

std::string type_of(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer";
    case nlohmann::json::value_t::number_float:
      return "number";
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return "value";
  }
}

bool has_type(const nlohmann::json& value, const std::string& type) {
  const std::string actual = type_of(value);
  return actual == type || (type == "number" && actual == "integer");
}

std::string article(const std::string& type) {
  return (type == "object" || type == "array" || type == "integer") ? "an " + type : "a " + type;
}

std::string describe_found(const nlohmann::json& value) {
  std::string out = article(type_of(value));
  if (value.is_primitive() && !value.is_null()) {
    std::string dumped = value.dump();
    if (dumped.size() > 40) dumped = dumped.substr(0, 37) + "...";
    out += " (" + dumped + ")";
  }
  return out;
}

std::string join_enum(const nlohmann::json& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i].dump();
  }
  return out;
}

std::string join_keys(const nlohmann::json& properties) {
  std::string out;
  for (const auto& [key, unused] : properties.items()) {
    if (!out.empty()) out += ", ";
    out += key;
  }
  return out;
}

class Validator {
 public:
  Validator(const LocationIndex& locations, const std::filesystem::path& file)
      : locations_(locations), file_(file) {}

  void check(const nlohmann::json& schema, const nlohmann::json& value, const KeyPath& path) {
    if (const auto one_of = schema.find("oneOf"); one_of != schema.end()) {
      check_one_of(*one_of, value, path);
      return;
    }
    if (const auto type = schema.find("type"); type != schema.end()) {
      if (!has_type(value, *type)) {
        report(Severity::error, path,
               "expected " + article(*type) + ", found " + describe_found(value));
        return;
      }
    }
    if (const auto values = schema.find("enum"); values != schema.end()) {
      if (std::find(values->begin(), values->end(), value) == values->end()) {
        report(Severity::error, path,
               "expected one of " + join_enum(*values) + ", found " + describe_found(value));
        return;
      }
    }
    if (const auto format = schema.find("format"); format != schema.end() && value.is_string()) {
      check_format(*format, value, path);
    }
    if (const auto minimum = schema.find("minimum");
        minimum != schema.end() && value.is_number() && value < *minimum) {
      report(Severity::error, path,
             "expected a value of at least " + minimum->dump() + ", found " + value.dump());
    }
    if (const auto maximum = schema.find("maximum");
        maximum != schema.end() && value.is_number() && value > *maximum) {
      report(Severity::error, path,
             "expected a value of at most " + maximum->dump() + ", found " + value.dump());
    }
    if (value.is_object()) check_object(schema, value, path);
    if (value.is_array()) {
      if (const auto items = schema.find("items"); items != schema.end()) {
        for (std::size_t i = 0; i < value.size(); ++i) {
          KeyPath item_path = path;
          item_path.push_back(std::to_string(i));
          check(*items, value[i], item_path);
        }
      }
    }
  }

  std::vector<Diagnostic> take() { return std::move(diagnostics_); }

 private:
  void check_object(const nlohmann::json& schema, const nlohmann::json& value,
                    const KeyPath& path) {
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    for (const auto& [key, member] : value.items()) {
      KeyPath member_path = path;
      member_path.push_back(key);
      if (properties != schema.end() && properties->contains(key)) {
        check((*properties)[key], member, member_path);
      } else if (additional != schema.end() && additional->is_object()) {
        check(*additional, member, member_path);
      } else if (additional != schema.end() && *additional == false) {
        report(Severity::error, member_path,
               "unknown key \"" + key + "\" in a policy object, which must be understood " +
                   "exactly; known keys: " + join_keys(*properties));
      } else if (properties != schema.end()) {
        report(Severity::warning, member_path,
               "unknown key \"" + key + "\" (ignored); known keys here: " + join_keys(*properties));
      }
    }
  }

  // The string formats holdfast defines; a format it does not know is an
  // annotation (as JSON Schema has it).
  void check_format(const nlohmann::json& format, const nlohmann::json& value,
                    const KeyPath& path) {
    if (format == "holdfast-host-rule-allow" || format == "holdfast-host-rule-deny") {
      check_host_rule(
          format == "holdfast-host-rule-allow" ? network::RuleList::allow : network::RuleList::deny,
          value.get_ref<const std::string&>(), path);
      return;
    }
    if (format != "holdfast-permission-rule") return;
    const RuleParse parsed = parse_rule_syntax(value.get_ref<const std::string&>());
    if (!parsed.rule) {
      report(Severity::error, path,
             "expected a permission rule, Tool or Tool(specifier), found " +
                 value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ": " +
                 parsed.problem);
    }
  }

  void check_host_rule(network::RuleList list, const std::string& entry, const KeyPath& path) {
    try {
      (void)network::parse_host_rule(entry, list);
    } catch (const network::InvalidHostRule& e) {
      report(
          Severity::error, path,
          "expected a host entry (host[:port], *.domain, **.domain, private:NAME, "
          "ip:ADDRESS:PORT), found " +
              nlohmann::json(entry).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
              ": " + e.what());
    }
  }

  void check_one_of(const nlohmann::json& alternatives, const nlohmann::json& value,
                    const KeyPath& path) {
    // Pick the alternative whose type matches and report its findings; with
    // no type match, say which types were expected.
    std::string expected;
    for (const auto& alternative : alternatives) {
      const std::string type = alternative.value("type", "");
      if (has_type(value, type)) {
        check(alternative, value, path);
        return;
      }
      if (!expected.empty()) expected += " or ";
      expected +=
          alternative.contains("enum") ? "one of " + join_enum(alternative["enum"]) : article(type);
    }
    report(Severity::error, path, "expected " + expected + ", found " + describe_found(value));
  }

  void report(Severity severity, const KeyPath& path, std::string message) {
    Location location;
    if (const auto it = locations_.find(to_pointer(path)); it != locations_.end()) {
      location = it->second;
    }
    diagnostics_.push_back(
        Diagnostic{severity, file_, location, to_dotted(path), std::move(message)});
  }

  const LocationIndex& locations_;
  const std::filesystem::path& file_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace

const nlohmann::json& settings_schema() {
  static const nlohmann::json schema = nlohmann::json::parse(kSchemaText);
  return schema;
}

const nlohmann::json& validation_schema() {
  static const nlohmann::json schema = nlohmann::json::parse(
      std::string_view(kValidationSchema.chars.data(), kValidationSchema.size));
  return schema;
}

std::vector<Diagnostic> validate(const nlohmann::json& document, const LocationIndex& locations,
                                 const std::filesystem::path& file) {
  Validator validator(locations, file);
  if (!document.is_object()) {
    Location location;
    if (const auto it = locations.find(""); it != locations.end()) location = it->second;
    return {
        Diagnostic{Severity::error, file, location, "",
                   "expected a JSON object at the top level, found " + describe_found(document)}};
  }
  validator.check(validation_schema(), document, {});
  return validator.take();
}

}  // namespace holdfast::settings
