#include "race-harness/documents.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "base/fd.hpp"
#include "base/system_error.hpp"

namespace holdfast::race {

namespace {

std::string what_is_missing(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    return S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0 && errno == ENOENT
               ? "dangling symlink"
               : "file missing";
  }
  if (errno == ENOENT && ::stat(path.parent_path().c_str(), &st) != 0 && errno == ENOENT) {
    return "directory missing";
  }
  return "file missing";
}

// What the bytes a file held are to a reader that parses them and looks
// for the policy (an empty file is damaged: it does not parse).
NaiveReading judged(std::string bytes) {
  NaiveReading reading;
  reading.bytes = std::move(bytes);
  const auto document = nlohmann::json::parse(reading.bytes, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    reading.kind = NaiveReading::Kind::damaged;
    return reading;
  }
  reading.kind = is_strict_policy(document) ? NaiveReading::Kind::strict : NaiveReading::Kind::lax;
  reading.denies = has_deny_rule(document);
  const auto harness = document.find("raceHarness");
  if (harness != document.end() && harness->is_object()) {
    const auto generation = harness->find("generation");
    if (generation != harness->end() && generation->is_number_unsigned()) {
      reading.generation = generation->get<std::uint64_t>();
      reading.has_generation = true;
    }
  }
  return reading;
}

}  // namespace

nlohmann::json policy_document(std::uint64_t generation) {
  return {{"tools", {{"executionSandbox", {{"filesystem", "read-only"}, {"network", "closed"}}}}},
          {"permissions", {{"deny", {kDenyRule}}}},
          {"raceHarness", {{"generation", generation}}}};
}

std::string policy_text(std::uint64_t generation) {
  return policy_document(generation).dump(2) + "\n";
}

std::string policy_text_without_deny(std::uint64_t generation) {
  nlohmann::json document = policy_document(generation);
  document.erase("permissions");
  return document.dump(2) + "\n";
}

nlohmann::json workspace_document(std::uint64_t generation) {
  return {{"permissions", {{"deny", {kDenyRule}}}}, {"raceHarness", {{"generation", generation}}}};
}

std::string workspace_text(std::uint64_t generation) {
  return workspace_document(generation).dump(2) + "\n";
}

bool has_deny_rule(const nlohmann::json& settings) {
  if (!settings.is_object()) return false;
  const auto permissions = settings.find("permissions");
  if (permissions == settings.end() || !permissions->is_object()) return false;
  const auto deny = permissions->find("deny");
  if (deny == permissions->end() || !deny->is_array()) return false;
  for (const auto& rule : *deny) {
    if (rule == kDenyRule) return true;
  }
  return false;
}

bool is_strict_policy(const nlohmann::json& settings) {
  if (!settings.is_object()) return false;
  const auto tools = settings.find("tools");
  if (tools == settings.end() || !tools->is_object()) return false;
  const auto sandbox = tools->find("executionSandbox");
  if (sandbox == tools->end() || !sandbox->is_object()) return false;
  return sandbox->value("filesystem", nlohmann::json()) == "read-only" &&
         sandbox->value("network", nlohmann::json()) == "closed";
}

bool read_whole_file(const std::filesystem::path& path, std::string& out) {
  const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  try {
    out = base::read_all(fd.get(), path);
  } catch (const base::SystemError&) {
    out.clear();  // opened but unreadable: no document, as for this reader
  }
  return true;
}

NaiveReading read_naively(const std::filesystem::path& path) {
  NaiveReading reading;
  std::string bytes;
  if (!read_whole_file(path, bytes)) {
    // Any failure to open is "no settings" to this reader; the race shows
    // itself as ENOENT.
    reading.kind = NaiveReading::Kind::missing;
    reading.missing_what = what_is_missing(path);
    return reading;
  }
  return judged(std::move(bytes));
}

NaiveReading reading_of(std::string bytes) {
  if (!bytes.empty()) return judged(std::move(bytes));
  NaiveReading reading;
  reading.kind = NaiveReading::Kind::missing;
  reading.missing_what = "no policy read";
  return reading;
}

std::string describe(const NaiveReading& reading) {
  switch (reading.kind) {
    case NaiveReading::Kind::missing:
      return reading.missing_what;
    case NaiveReading::Kind::damaged:
      return "file damaged";
    case NaiveReading::Kind::lax:
      return "policy replaced";
    case NaiveReading::Kind::strict:
      break;
  }
  return "policy in force";
}

}  // namespace holdfast::race
