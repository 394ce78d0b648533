// Fuzz target: the confinement policy as the operator writes it
// (tools.executionSandbox), from settings text through the bounded reader,
// to the policy value, its canonical form and its digest.
//
// Properties: the canonical form of a policy reads back as the same policy
// (normal forms are stable); every entry expands to absolute paths.
#include "launcher/sandbox/policy.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "launcher/sandbox/refusal.hpp"
#include "settings/jsonc.hpp"

using holdfast::fuzz::check;
namespace sandbox = holdfast::sandbox;
namespace settings = holdfast::settings;

namespace {

// The effective settings of a user scope file that sets `policy`.
settings::Effective effective_with(const nlohmann::json& policy) {
  settings::ScopeFile file;
  file.scope = settings::Scope::user;
  file.exists = true;
  file.document = {{"tools", {{"executionSandbox", policy}}}};
  return settings::merge_scopes({&file});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string why;
  (void)sandbox::normalize_entry_key(text, why);

  nlohmann::json written;
  try {
    written = settings::parse_settings_text(text, "settings.json").value;
  } catch (const settings::InvalidSettings&) {
    return 0;
  }
  sandbox::Policy policy;
  try {
    policy = sandbox::policy_from_settings(effective_with(written));
  } catch (const sandbox::Refused& refused) {
    check(!refused.refusals().empty(), "a refusal says why");
    return 0;
  }
  const std::string canonical = sandbox::canonical_text(policy);
  // The canonical form also names the protected names and the credential
  // stores, which come from tools.protectedNames and the built-in lists, not
  // from tools.executionSandbox: only the sandbox's own keys are read back.
  nlohmann::json sandbox_keys = sandbox::canonical_json(policy);
  sandbox_keys.erase("protectedNames");
  sandbox_keys.erase("credentialStores");
  const sandbox::Policy again = sandbox::policy_from_settings(effective_with(sandbox_keys));
  check(sandbox::canonical_text(again) == canonical, "the canonical form reads back the same");
  check(sandbox::policy_digest(again) == sandbox::policy_digest(policy),
        "equal policies, equal digests");

  const sandbox::TokenValues tokens{"/home/me/project", "/tmp", "/home/me", {"/usr", "/etc"}};
  for (const auto& entry : policy.filesystem) {
    for (const auto& path : sandbox::expand_key(entry, tokens)) {
      check(!path.empty() && path.front() == '/', "an entry expands to absolute paths");
    }
  }
  return 0;
}
