// Fuzz target: key paths as typed on the command line (dotted or JSON
// pointer), and setting, finding and removing values by them.
//
// Properties: a path that parses survives its dotted and pointer spellings
// unchanged; a value set at a path is found there and can be removed.
#include "settings/key_path.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "settings/errors.hpp"

using holdfast::fuzz::check;
namespace settings = holdfast::settings;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  settings::KeyPath path;
  try {
    path = settings::parse_key_path(text);
  } catch (const settings::UsageError&) {
    return 0;
  }
  check(!path.empty(), "a path that parses has a segment");

  const std::string dotted = settings::to_dotted(path);
  check(settings::parse_key_path(dotted) == path, "the dotted spelling reads back");
  const std::string pointer = settings::to_pointer(path);
  check(settings::parse_key_path(pointer) == path, "the pointer spelling reads back");
  check(settings::pointer_to_dotted(pointer) == dotted, "pointer to dotted is the dotted spelling");

  nlohmann::json document = nlohmann::json::object();
  settings::set_value(document, path, 42);
  const nlohmann::json* found = settings::find_value(document, path);
  check(found != nullptr && *found == 42, "a value set is found");
  check(settings::unset_value(document, path), "a value set can be removed");
  check(settings::find_value(document, path) == nullptr, "a value removed is gone");
  return 0;
}
