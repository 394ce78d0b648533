#include "launcher/run/bubblewrap.hpp"

#include "settings/key_path.hpp"
#include "settings/scopes.hpp"

namespace holdfast::launcher {

const char* const kDefaultBubblewrap = HOLDFAST_DEFAULT_BWRAP;

namespace {

constexpr const char* kDoctorHint = "run `holdfast doctor` to check this host";

}  // namespace

BubblewrapChoice configured_bubblewrap(const settings::Effective& effective) {
  const auto* value = settings::find_value(effective.value, {"security", "bubblewrap"});
  if (value != nullptr && value->is_string()) {
    const auto origin = effective.origins.find("security.bubblewrap");
    return {value->get<std::string>(),
            "security.bubblewrap in the " +
                (origin == effective.origins.end()
                     ? std::string("operator")
                     : std::string(settings::scope_name(origin->second))) +
                " scope"};
  }
  return {kDefaultBubblewrap, "the build-time default"};
}

BubblewrapLookup find_bubblewrap(const settings::Effective& effective) {
  BubblewrapLookup found;
  found.choice = configured_bubblewrap(effective);
  found.lookup = find_trusted_executable(found.choice.path);
  return found;
}

bool operator_allows_unconfined(const settings::Effective& effective) {
  const auto* flag = settings::find_value(effective.value, {"security", "allowUnconfined"});
  return flag != nullptr && flag->is_boolean() && flag->get<bool>();
}

StartVerdict decide_start(const BubblewrapLookup& bubblewrap, const settings::Effective& effective,
                          bool sandbox_required) {
  const std::string& path = bubblewrap.choice.path;
  const std::string named = path + " (" + bubblewrap.choice.origin + ")";
  switch (bubblewrap.lookup.result) {
    case ExecutableLookup::Result::found:
      return {StartMode::sandboxed, "", ""};
    case ExecutableLookup::Result::untrusted:
      return {StartMode::refused,
              "the bubblewrap at " + named + " is not one holdfast trusts: " +
                  bubblewrap.lookup.problem + "; holdfast never runs a command unconfined instead",
              bubblewrap.lookup.remedy + "; " + kDoctorHint};
    case ExecutableLookup::Result::missing:
      break;
  }
  if (operator_allows_unconfined(effective) && !sandbox_required) {
    return {StartMode::unconfined,
            "WARNING: bubblewrap is not installed at " + named +
                " and security.allowUnconfined is set: running the command UNCONFINED",
            ""};
  }
  return {StartMode::refused,
          "bubblewrap (bwrap) is not installed at " + named +
              "; holdfast never runs a command unconfined unless an operator sets "
              "security.allowUnconfined" +
              (operator_allows_unconfined(effective) && sandbox_required
                   ? std::string(" (it is set, but this launch requires the sandbox)")
                   : std::string()),
          "install it (apt-get install bubblewrap), or name the bubblewrap to use with holdfast "
          "settings set --scope system security.bubblewrap '\"/usr/bin/bwrap\"'; " +
              std::string(kDoctorHint)};
}

namespace {

sandbox::Refusal refusal_for(const BubblewrapLookup& bubblewrap,
                             const settings::Effective& effective) {
  // As the library would decide: it never runs unconfined.
  const StartVerdict verdict = decide_start(bubblewrap, effective, /*sandbox_required=*/true);
  const bool missing = bubblewrap.lookup.result == ExecutableLookup::Result::missing;
  return {missing ? "bubblewrap-missing" : "bubblewrap-untrusted", bubblewrap.choice.path, "",
          verdict.message, verdict.remedy};
}

}  // namespace

NoTrustedBubblewrap::NoTrustedBubblewrap(BubblewrapLookup bubblewrap, settings::Effective effective)
    : sandbox::Refused({refusal_for(bubblewrap, effective)}),
      bubblewrap_(std::move(bubblewrap)),
      effective_(std::move(effective)) {}

}  // namespace holdfast::launcher
