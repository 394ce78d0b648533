#include "launcher/sandbox/credential_stores.hpp"

#include <algorithm>
#include <charconv>

#include "launcher/sandbox/paths.hpp"

namespace holdfast::sandbox {

namespace {

constexpr CredentialRow kBuiltinCredentials[] = {
    {"ssh", "~/.ssh", "~/.ssh/known_hosts ~/.ssh/config",
     "SSH private keys (id_*, and any key file the config names); known_hosts and config hold "
     "no secret and stay readable"},
    {"gnupg", "~/.gnupg", "", "GnuPG private keys and trust database"},
    {"aws", "~/.aws", "", "AWS access keys (credentials) and SSO token cache"},
    {"azure", "~/.azure", "", "Azure CLI access and refresh tokens"},
    {"gcloud", "~/.config/gcloud", "",
     "Google Cloud access and refresh tokens, application default credentials"},
    {"kube", "~/.kube", "", "Kubernetes cluster credentials (tokens, client keys) in config"},
    {"docker", "~/.docker/config.json", "", "container registry logins"},
    {"netrc", "~/.netrc", "", "passwords for hosts (curl, git, ftp)"},
    {"git-credentials", "~/.git-credentials ~/.config/git/credentials", "",
     "passwords and tokens of git's store helper"},
    {"gh", "~/.config/gh", "", "GitHub CLI tokens (hosts.yml)"},
    {"hub", "~/.config/hub", "", "hub's GitHub tokens"},
    {"glab", "~/.config/glab-cli", "", "GitLab CLI tokens"},
    {"npm", "~/.npmrc", "", "npm registry tokens (_authToken)"},
    {"pypi", "~/.pypirc", "", "PyPI upload tokens"},
    {"cargo", "~/.cargo/credentials ~/.cargo/credentials.toml", "", "crates.io tokens"},
    {"terraform", "~/.terraform.d/credentials.tfrc.json", "", "Terraform Cloud tokens"},
    {"vault", "~/.vault-token", "", "HashiCorp Vault token"},
    {"password-store", "~/.password-store", "", "pass's password store"},
    {"keyrings", "~/.local/share/keyrings", "", "GNOME Keyring's stored secrets"},
    {"chromium", "~/.config/chromium", "", "Chromium profile: cookies, saved passwords, sessions"},
    {"chrome", "~/.config/google-chrome", "",
     "Google Chrome profile: cookies, saved passwords, sessions"},
    {"firefox", "~/.mozilla", "", "Firefox profiles: cookies, saved passwords, sessions"},
    {"codex", "~/.codex/auth.json", "", "Codex's API key or ChatGPT tokens"},
    {"claude", "~/.claude/.credentials.json", "", "Claude Code's OAuth tokens"},
    {"qwen", "~/.qwen/oauth_creds.json", "", "Qwen Code's OAuth tokens"},
    {"gemini", "~/.gemini/oauth_creds.json", "", "Gemini CLI's OAuth tokens"},
    {"copilot", "~/.config/github-copilot", "", "GitHub Copilot's tokens"},
    {"shadow", "/etc/shadow /etc/gshadow", "", "the system's password hashes"},
    {"ssh-host-keys",
     "/etc/ssh/ssh_host_rsa_key /etc/ssh/ssh_host_ecdsa_key /etc/ssh/ssh_host_ed25519_key "
     "/etc/ssh/ssh_host_dsa_key",
     "", "this machine's SSH host private keys (a copy impersonates the machine)"},
};

const settings::KeyPath kStoresKey = {"tools", "credentialStores"};

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

CredentialStore from_row(const CredentialRow& row) {
  return CredentialStore{std::string(row.name), words(row.paths), words(row.keep_readable),
                         std::string(row.reason), std::nullopt};
}

// "~/x" or "/x" in normal form, or nullopt with `why` set.
std::optional<std::string> parse_added(std::string_view text, std::string& why) {
  std::string prefix;
  if (text.starts_with("~/")) {
    prefix = "~";
    text.remove_prefix(1);
  } else if (!text.starts_with("/")) {
    why = "a credential store is an absolute path or one in every home (\"~/...\")";
    return std::nullopt;
  }
  const auto normal = normalize_absolute(text);
  if (!normal) {
    why = "\"..\" is not allowed; write the path without it";
    return std::nullopt;
  }
  if (*normal == "/") {
    why = "the whole " + std::string(prefix.empty() ? "file system" : "home") +
          " cannot be a credential store; name the file or directory that holds the secret";
    return std::nullopt;
  }
  return prefix + *normal;
}

}  // namespace

std::span<const CredentialRow> builtin_credential_rows() { return kBuiltinCredentials; }

CredentialStores builtin_credential_stores() {
  CredentialStores out;
  for (const auto& row : kBuiltinCredentials) out.stores.push_back(from_row(row));
  return out;
}

CredentialStores credential_stores_from_settings(const settings::Effective& effective,
                                                 std::vector<Refusal>& refusals) {
  CredentialStores out = builtin_credential_stores();
  const ListSettings list = read_list_settings(effective, kStoresKey, refusals);
  // Additions first, so that an operator may lift one added by a lower scope.
  for (const auto& item : list.add) {
    std::string why;
    const auto path = parse_added(item.text, why);
    if (!path) {
      refusals.push_back(malformed_list(list.add_key, item.text, why));
      continue;
    }
    const bool known =
        std::any_of(out.stores.begin(), out.stores.end(), [&](const CredentialStore& s) {
          return s.name == item.text ||
                 std::find(s.paths.begin(), s.paths.end(), *path) != s.paths.end();
        });
    if (known) continue;
    out.stores.push_back(CredentialStore{
        item.text, {*path}, {}, "added by the " + origin_text(item.origin), item.origin});
  }
  for (const auto& item : list.lift) {
    const auto it = std::find_if(out.stores.begin(), out.stores.end(),
                                 [&](const CredentialStore& s) { return s.name == item.text; });
    if (it == out.stores.end()) {
      const bool lifted = std::any_of(out.lifted.begin(), out.lifted.end(),
                                      [&](const LiftedStore& l) { return l.name == item.text; });
      if (lifted) continue;
      std::string names;
      for (const auto& row : kBuiltinCredentials) {
        names += (names.empty() ? "" : ", ") + std::string(row.name);
      }
      refusals.push_back(malformed_list(list.lift_key, item.text,
                                        "no credential store has this name (built in: " + names +
                                            "; an added one is named by its path as written)"));
      continue;
    }
    out.lifted.push_back(LiftedStore{item.text, item.origin});
    out.stores.erase(it);
  }
  return out;
}

std::vector<std::string> login_homes(std::string_view passwd) {
  std::vector<std::string> homes;
  std::size_t start = 0;
  while (start < passwd.size() && homes.size() < kMaxHomes) {
    std::size_t end = passwd.find('\n', start);
    if (end == std::string_view::npos) end = passwd.size();
    const std::string_view line = passwd.substr(start, end - start);
    start = end + 1;
    // name:password:uid:gid:gecos:home:shell
    std::string_view fields[7];
    std::size_t count = 0;
    std::size_t at = 0;
    while (count < 7) {
      const std::size_t colon = line.find(':', at);
      fields[count++] = line.substr(at, colon == std::string_view::npos ? line.npos : colon - at);
      if (colon == std::string_view::npos) break;
      at = colon + 1;
    }
    if (count < 6) continue;
    unsigned long uid = 0;
    const auto [ptr, error] =
        std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), uid);
    if (error != std::errc() || ptr != fields[2].data() + fields[2].size()) continue;
    if (uid != 0 && (uid < 1000 || uid > 59999)) continue;
    const auto home = normalize_absolute(fields[5]);
    if (!home || *home == "/") continue;
    if (std::find(homes.begin(), homes.end(), *home) == homes.end()) homes.push_back(*home);
  }
  return homes;
}

}  // namespace holdfast::sandbox
