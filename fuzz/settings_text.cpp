// Fuzz target: bytes as a scope file holds them, read as the workspace scope
// (project content, the hostile one): JSONC normalisation, the bounds
// (size, nesting, key paths), parsing, locations, schema validation, the
// revision, and merging.
//
// Properties: every finding has a line and column; a file that reads is
// within the bounds; what a save would write (two-space JSON) reads back as
// the same document.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "settings/merge.hpp"
#include "settings/scope_file.hpp"

using holdfast::fuzz::check;
namespace settings = holdfast::settings;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  settings::ScopeFile file;
  file.scope = settings::Scope::workspace;
  file.path = "project/.holdfast/settings.json";
  file.exists = true;
  file.bytes.assign(reinterpret_cast<const char*>(data), size);
  settings::interpret_scope_bytes(file);
  for (const auto& d : file.diagnostics) {
    check(d.location.line > 0 && d.location.column > 0, "every finding is located");
    check(d.file == file.path, "every finding names the file");
  }
  if (!file.valid()) return 0;

  check(file.bytes.size() <= settings::kMaxSettingsFileBytes, "a file that reads is within size");
  check(file.document.is_object(), "a file that reads is an object");
  check(file.revision <= settings::kMaxRevision, "a revision that reads is in range");

  const settings::Effective effective = settings::merge_scopes({&file});
  check(effective.value.is_object(), "the merged settings are an object");

  settings::ScopeFile saved;
  saved.scope = file.scope;
  saved.path = file.path;
  saved.exists = true;
  saved.bytes = file.document.dump(2) + "\n";
  if (saved.bytes.size() <= settings::kMaxSettingsFileBytes) {
    settings::interpret_scope_bytes(saved);
    check(saved.valid(), "what a save writes reads back");
    check(saved.document == file.document, "what a save writes is the same document");
  }
  return 0;
}
