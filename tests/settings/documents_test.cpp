// Malformed and wrong-typed documents: each is reported with a message that
// says what was wrong and the line and column where it is; nothing is
// repaired or treated as empty. Documents are written to real files and read
// back through read_scope_file, as the store and the launcher read them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "settings/schema.hpp"
#include "settings/scope_file.hpp"
#include "settings/store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace holdfast::settings {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

struct BadDocument {
  const char* name;
  std::string text;
  Severity severity;
  std::string key;      // key path of the finding ("" for the document)
  std::string message;  // substring of the message
  int line;
  int column;
};

void PrintTo(const BadDocument& row, std::ostream* os) { *os << row.name; }

// Every row is one finding that must be the first of its severity.
const std::vector<BadDocument>& bad_documents() {
  static const std::vector<BadDocument> rows = {
      // --- parse errors
      {"empty", "", Severity::error, "", "the file is empty", 1, 1},
      {"whitespace_only", "  \n\t\n", Severity::error, "", "the file is empty", 3, 1},
      {"comment_only", "// nothing here\n/* still nothing */\n", Severity::error, "",
       "write {} to mean no settings", 3, 1},
      {"truncated_open_brace", "{", Severity::error, "", "the document ends early (truncated?)", 1,
       2},
      {"truncated_mid_document",
       "{\n  \"tools\": {\n    \"executionSandbox\": {\n      \"network\": \"clo", Severity::error,
       "", "truncated?", 4, 22},
      {"truncated_after_key", "{\n  \"security\":", Severity::error, "", "truncated?", 2, 14},
      {"unterminated_string", "{\n  \"launcher\": \"abc\n}\n", Severity::error, "",
       "control character U+000A (LF) must be escaped", 2, 19},
      {"unterminated_block_comment", "{\n  \"a\": 1 /* open comment\n}\n", Severity::error, "",
       "not valid JSON", 2, 10},
      {"bad_literal_tru", "{\n  \"security\": {\"allowUnconfined\": tru}\n}\n", Severity::error, "",
       "invalid literal", 2, 38},
      {"bad_literal_nul", "{\"launcher\": nul}", Severity::error, "", "invalid literal", 1, 17},
      {"single_quotes", "{'tools': {}}", Severity::error, "", "invalid literal", 1, 2},
      {"missing_comma", "{\n  \"a\": 1\n  \"b\": 2\n}", Severity::error, "", "expected '}'", 3, 5},
      {"missing_colon", "{\"tools\" {}}", Severity::error, "", "expected ':'", 1, 10},
      {"leading_zero", "{\"$revision\": 01}", Severity::error, "", "not valid JSON", 1, 16},
      {"trailing_garbage", "{\"tools\": {}}\n}", Severity::error, "", "expected end of input", 2,
       1},
      {"two_documents", "{} {}", Severity::error, "", "expected end of input", 1, 4},
      {"lone_comma_object", "{,}", Severity::error, "", "not valid JSON", 1, 2},
      {"lone_comma_array", "{\"permissions\": {\"deny\": [,]}}", Severity::error, "",
       "not valid JSON", 1, 27},
      {"double_trailing_comma", "{\"a\": 1,,}", Severity::error, "", "not valid JSON", 1, 9},
      {"top_level_array", "[\"tools\"]", Severity::error, "",
       "expected a JSON object at the top level, found an array", 1, 1},
      {"top_level_string", "\n  \"closed\"\n", Severity::error, "",
       "expected a JSON object at the top level, found a string (\"closed\")", 2, 3},
      {"top_level_number", "42", Severity::error, "",
       "expected a JSON object at the top level, found an integer (42)", 1, 1},
      {"top_level_null", "null", Severity::error, "", "found a null", 1, 1},
      // --- schema errors (with comments and trailing commas around them,
      // which must not shift the reported positions)
      {"tools_not_object", "{\n  // the tools\n  \"tools\": \"bwrap\",\n}", Severity::error,
       "tools", "expected an object, found a string (\"bwrap\")", 3, 12},
      {"sandbox_not_object", "{\"tools\": {\"executionSandbox\": []}}", Severity::error,
       "tools.executionSandbox", "expected an object, found an array", 1, 32},
      {"sandbox_is_true", "{\"tools\": {\"executionSandbox\": true}}", Severity::error,
       "tools.executionSandbox", "expected an object, found a boolean (true)", 1, 32},
      {"network_bad_enum",
       "{\n  /* policy */ \"tools\": {\n    \"executionSandbox\": {\n      \"network\": "
       "\"half-open\", // no such mode\n    },\n  },\n}\n",
       Severity::error, "tools.executionSandbox.network",
       "expected one of \"open\" or \"closed\", found a string (\"half-open\")", 4, 18},
      {"network_wrong_type", "{\"tools\": {\"executionSandbox\": {\"network\": false}}}",
       Severity::error, "tools.executionSandbox.network",
       "expected one of \"open\" or \"closed\" or an object, found a boolean (false)", 1, 44},
      {"backend_bad_enum", "{\"tools\": {\"executionSandbox\": {\"backend\": \"docker\"}}}",
       Severity::error, "tools.executionSandbox.backend",
       "expected one of \"auto\" or \"bwrap\", found a string (\"docker\")", 1, 44},
      {"unix_sockets_wrong_type", "{\"tools\": {\"executionSandbox\": {\"unixSockets\": 0}}}",
       Severity::error, "tools.executionSandbox.unixSockets", "expected a string, found an integer",
       1, 48},
      {"unix_sockets_bad_enum", "{\"tools\": {\"executionSandbox\": {\"unixSockets\": \"block\"}}}",
       Severity::error, "tools.executionSandbox.unixSockets",
       "expected one of \"allow\", \"pairs\" or \"deny\"", 1, 48},
      {"limits_below_minimum",
       "{\"tools\": {\"executionSandbox\": {\"limits\": {\"tmpfsMiB\": 0}}}}", Severity::error,
       "tools.executionSandbox.limits.tmpfsMiB", "expected a value of at least 1, found 0", 1, 56},
      {"limits_unknown_key", "{\"tools\": {\"executionSandbox\": {\"limits\": {\"threads\": 9}}}}",
       Severity::error, "tools.executionSandbox.limits.threads",
       "unknown key \"threads\" in a policy object, which must be understood exactly; known keys: "
       "coreDumps, cpuSeconds, memoryMiB, processes, tmpfsMiB",
       1, 55},
      {"filesystem_bad_mode",
       "{\"tools\": {\"executionSandbox\": {\"filesystem\": \"read-write\"}}}", Severity::error,
       "tools.executionSandbox.filesystem",
       "expected one of \"read-only\" or \"workspace-write\", found a string (\"read-write\")", 1,
       47},
      {"filesystem_number", "{\"tools\": {\"executionSandbox\": {\"filesystem\": 7}}}",
       Severity::error, "tools.executionSandbox.filesystem",
       "expected one of \"read-only\" or \"workspace-write\" or an object, found an integer (7)", 1,
       47},
      {"filesystem_map_bad_access",
       "{\n  \"tools\": {\n    \"executionSandbox\": {\n      \"filesystem\": {\n        "
       "\":workspace\": \"write\",\n        \"/srv/data\": \"rw\",\n      },\n    },\n  },\n}\n",
       Severity::error, "tools.executionSandbox.filesystem./srv/data",
       "expected one of \"read\", \"write\", \"deny\" or \"none\", found a string (\"rw\")", 6, 22},
      {"filesystem_map_access_not_string",
       "{\"tools\": {\"executionSandbox\": {\"filesystem\": {\"/a.b\": true}}}}", Severity::error,
       "tools.executionSandbox.filesystem./a\\.b", "expected a string, found a boolean (true)", 1,
       56},
      {"sandbox_unknown_key",
       "{\"tools\": {\"executionSandbox\": {\"network\": \"closed\", \"netwrok\": \"open\"}}}",
       Severity::error, "tools.executionSandbox.netwrok",
       "unknown key \"netwrok\" in a policy object, which must be understood exactly; known keys: "
       "backend, filesystem, limits, network, unixSockets",
       1, 65},
      {"security_not_object", "{\"security\": \"strict\"}", Severity::error, "security",
       "expected an object, found a string", 1, 14},
      {"security_wrong_type", "{\"security\": {\"allowUnconfined\": \"yes\"}}", Severity::error,
       "security.allowUnconfined", "expected a boolean, found a string (\"yes\")", 1, 34},
      {"security_require_wrong_type", "{\"security\": {\"requireExecutionSandbox\": 1}}",
       Severity::error, "security.requireExecutionSandbox", "expected a boolean, found an integer",
       1, 42},
      {"security_unknown_key", "{\n  \"security\": {\n    \"requireSandbox\": true\n  }\n}",
       Severity::error, "security.requireSandbox",
       "unknown key \"requireSandbox\" in a policy object", 3, 23},
      {"permissions_not_object", "{\"permissions\": [\"Bash\"]}", Severity::error, "permissions",
       "expected an object, found an array", 1, 17},
      {"permissions_allow_string", "{\"permissions\": {\"allow\": \"Bash\"}}", Severity::error,
       "permissions.allow", "expected an array, found a string (\"Bash\")", 1, 27},
      {"permissions_deny_item_number", "{\"permissions\": {\"deny\": [\"Read(/etc)\",\n  5]}}",
       Severity::error, "permissions.deny.1", "expected a string, found an integer (5)", 2, 3},
      {"permissions_ask_object", "{\"permissions\": {\"ask\": {}}}", Severity::error,
       "permissions.ask", "expected an array, found an object", 1, 25},
      {"permissions_bad_default_mode", "{\"permissions\": {\"defaultMode\": \"always\"}}",
       Severity::error, "permissions.defaultMode",
       "expected one of \"plan\", \"default\", \"auto-edit\" or \"yolo\", found a string "
       "(\"always\")",
       1, 33},
      {"launch_records_wrong_type", "{\"launcher\": {\"launchRecords\": \"true\"}}",
       Severity::error, "launcher.launchRecords", "expected a boolean, found a string (\"true\")",
       1, 32},
      {"launcher_not_object", "{\"launcher\": 1}", Severity::error, "launcher",
       "expected an object, found an integer (1)", 1, 14},
      {"revision_negative", "{\"$revision\": -1}", Severity::error, "$revision",
       "expected a value of at least 0, found -1", 1, 15},
      {"revision_string", "{\"$revision\": \"3\"}", Severity::error, "$revision",
       "expected an integer, found a string (\"3\")", 1, 15},
      {"revision_fraction", "{\"$revision\": 1.5}", Severity::error, "$revision",
       "expected an integer, found a number (1.5)", 1, 15},
      {"duplicate_policy_key",
       "{\"tools\": {\"executionSandbox\": {\"network\": \"closed\",\n  \"network\": \"open\"}}}",
       Severity::error, "tools.executionSandbox.network",
       "duplicate key \"network\" (first at line 1, column 33)", 2, 3},
      {"duplicate_top_level_key", "{\"security\": {},\n\"security\": {}}", Severity::error,
       "security", "a key may appear only once", 2, 1},
      // --- unknown keys outside policy objects: warnings, the file stays valid
      {"unknown_top_level_key", "{\n  \"editor\": {\"fontSize\": 12}\n}", Severity::warning,
       "editor", "unknown key \"editor\" (ignored)", 2, 13},
      {"unknown_tools_key", "{\"tools\": {\"shell\": \"bash\"}}", Severity::warning, "tools.shell",
       "unknown key \"shell\" (ignored); known keys here: credentialStores, executionSandbox, "
       "protectedNames",
       1, 21},
      {"protected_names_unknown_key", "{\"tools\": {\"protectedNames\": {\"remove\": []}}}",
       Severity::error, "tools.protectedNames.remove", "known keys: add, lift", 1, 41},
      {"credential_stores_not_strings", "{\"tools\": {\"credentialStores\": {\"lift\": [1]}}}",
       Severity::error, "tools.credentialStores.lift.0", "expected a string, found an integer", 1,
       42},
      {"unknown_permissions_key", "{\"permissions\": {\"allowAll\": true}}", Severity::warning,
       "permissions.allowAll", "unknown key \"allowAll\"", 1, 30},
      {"unknown_launcher_key", "{\"launcher\": {\"records\": true}}", Severity::warning,
       "launcher.records", "known keys here: launchRecords", 1, 26},
  };
  return rows;
}

class BadDocumentTest : public ::testing::TestWithParam<BadDocument> {};

TEST_P(BadDocumentTest, IsReportedWithMessageAndLocation) {
  const BadDocument& row = GetParam();
  TempDir dir;
  const auto path = dir / "settings.json";
  write_file(path, row.text);

  const ScopeFile file = detail::read_scope_file_once(Scope::user, path);
  ASSERT_TRUE(file.exists);
  EXPECT_EQ(file.bytes, row.text);

  const Diagnostic* found = nullptr;
  for (const auto& d : file.diagnostics) {
    if (d.severity == row.severity) {
      found = &d;
      break;
    }
  }
  ASSERT_NE(found, nullptr) << "no finding of the expected severity";
  EXPECT_EQ(found->file, path);
  EXPECT_EQ(found->key_path, row.key);
  EXPECT_NE(found->message.find(row.message), std::string::npos)
      << "message: " << found->message << "\nwanted: " << row.message;
  EXPECT_EQ(found->location.line, row.line) << found->to_string();
  EXPECT_EQ(found->location.column, row.column) << found->to_string();

  // The printed form names the file, the position and the key.
  const std::string printed = found->to_string();
  EXPECT_TRUE(printed.starts_with(path.string() + ":" + std::to_string(row.line) + ":" +
                                  std::to_string(row.column) + ": "))
      << printed;

  if (row.severity == Severity::error) {
    // Never treated as "no settings": the document is not exposed.
    EXPECT_FALSE(file.valid());
    EXPECT_TRUE(file.document.empty());
    EXPECT_THROW(require_valid(file), InvalidSettings);
  } else {
    EXPECT_TRUE(file.valid()) << printed;
    EXPECT_FALSE(file.document.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadDocumentTest, ::testing::ValuesIn(bad_documents()),
                         [](const ::testing::TestParamInfo<BadDocument>& info) {
                           return std::string(info.param.name);
                         });

// What validate() reads is the published schema without its descriptions:
// the compiler's cut (schema.cpp) drops each description member, its
// comma, and nothing else.
nlohmann::json without_descriptions(nlohmann::json schema) {
  if (schema.is_object()) {
    if (const auto it = schema.find("description"); it != schema.end() && it->is_string()) {
      schema.erase(it);
    }
    for (auto& [key, value] : schema.items()) value = without_descriptions(value);
  } else if (schema.is_array()) {
    for (auto& value : schema) value = without_descriptions(value);
  }
  return schema;
}

TEST(Documents, ValidationSchemaIsThePublishedOneWithoutItsDescriptions) {
  EXPECT_EQ(validation_schema(), without_descriptions(settings_schema()));
  EXPECT_NE(validation_schema(), settings_schema());  // there were descriptions to drop
}

// Comments and trailing commas are accepted; values after them are located
// where they really are in the file.
TEST(Documents, CommentsAndTrailingCommasAreAcceptedWithTrueLocations) {
  TempDir dir;
  const auto path = dir / "settings.json";
  const std::string text =
      "// holdfast settings\n"                                                     // line 1
      "{\n"                                                                        // line 2
      "  /* the policy,\n"                                                         // line 3
      "     on two lines */ \"tools\": {\n"                                        // line 4
      "    \"executionSandbox\": {\n"                                              // line 5
      "      \"network\": \"closed\", // no network\n"                             // line 6
      "      \"filesystem\": {\":workspace\": \"write\", \"/etc\": \"read\",},\n"  // line 7
      "    },\n"                                                                   // line 8
      "  },\n"                                                                     // line 9
      "  \"permissions\": {\"deny\": [\"Bash(rm)\", \"Read(/etc/shadow)\",],},\n"  // line 10
      "  \"$revision\": 7, /* trailing */\n"                                       // line 11
      "}\n";
  write_file(path, text);
  const ScopeFile file = detail::read_scope_file_once(Scope::user, path);
  ASSERT_TRUE(file.valid()) << (file.diagnostics.empty() ? "" : file.diagnostics[0].to_string());
  EXPECT_TRUE(file.diagnostics.empty());
  EXPECT_EQ(file.revision, 7U);
  EXPECT_EQ(file.document["tools"]["executionSandbox"]["network"], "closed");
  EXPECT_EQ(file.document["permissions"]["deny"].size(), 2U);

  const auto at = [&](const std::string& pointer) {
    const auto it = file.locations.find(pointer);
    return it == file.locations.end() ? std::pair{0, 0}
                                      : std::pair{it->second.line, it->second.column};
  };
  EXPECT_EQ(at("/tools"), std::pair(4, 31));
  EXPECT_EQ(at("/tools/executionSandbox"), std::pair(5, 25));
  EXPECT_EQ(at("/tools/executionSandbox/network"), std::pair(6, 18));
  EXPECT_EQ(at("/tools/executionSandbox/filesystem/~1etc"), std::pair(7, 53));
  EXPECT_EQ(at("/permissions/deny/1"), std::pair(10, 40));
  EXPECT_EQ(at("/$revision"), std::pair(11, 16));

  // The same text with a schema error after the comments: the location is
  // still the true one.
  std::string bad = text;
  bad.replace(bad.find("\"closed\""), 8, "\"shut\"  ");
  write_file(path, bad);
  const ScopeFile invalid = detail::read_scope_file_once(Scope::user, path);
  ASSERT_FALSE(invalid.valid());
  EXPECT_EQ(invalid.diagnostics[0].location.line, 6);
  EXPECT_EQ(invalid.diagnostics[0].location.column, 18);
}

// A comment marker inside a string is text, not a comment.
TEST(Documents, CommentMarkersInsideStringsAreText) {
  TempDir dir;
  const auto path = dir / "settings.json";
  write_file(path,
             "{\"permissions\": {\"deny\": [\"Read(//server/share)\", \"Bash(echo /* x */)\", "
             "\"Bash(a,])\"]}}");
  const ScopeFile file = detail::read_scope_file_once(Scope::user, path);
  ASSERT_TRUE(file.valid());
  EXPECT_EQ(file.document["permissions"]["deny"][0], "Read(//server/share)");
  EXPECT_EQ(file.document["permissions"]["deny"][1], "Bash(echo /* x */)");
  EXPECT_EQ(file.document["permissions"]["deny"][2], "Bash(a,])");
}

// A save into a file that is invalid is refused and leaves every byte as it
// was: the person's text is never reset or "repaired".
TEST(Documents, SaveIntoInvalidFileIsRefusedAndBytesUnchanged) {
  for (const auto& row : bad_documents()) {
    if (row.severity != Severity::error) continue;
    TempDir dir;
    ScopePaths paths;
    paths.system_dir = dir / "system";
    paths.config_dir = dir / "user";
    std::filesystem::create_directories(paths.config_dir);
    const auto path = *paths.file(Scope::user);
    write_file(path, row.text);
    Store store(paths);
    try {
      store.set(Scope::user, parse_key_path("tools.executionSandbox.network"), "closed");
      ADD_FAILURE() << row.name << ": the save was not refused";
    } catch (const InvalidSettings& e) {
      EXPECT_NE(std::string(e.what()).find("refusing to save into a file that is invalid"),
                std::string::npos)
          << row.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_file(path), row.text) << row.name;
    EXPECT_TRUE(testing::names_starting_with(dir / "user", ".settings.json.holdfast-tmp.").empty())
        << row.name;
  }
}

// A change that would make a valid file invalid is refused before anything
// is written.
TEST(Documents, ChangeThatWouldMakeTheFileInvalidIsRefused) {
  TempDir dir;
  ScopePaths paths;
  paths.system_dir = dir / "system";
  paths.config_dir = dir / "user";
  Store store(paths);
  store.set(Scope::user, parse_key_path("tools.executionSandbox.network"), "closed");
  const std::string before = read_file(*paths.file(Scope::user));
  try {
    store.set(Scope::user, parse_key_path("tools.executionSandbox.network"), "sometimes");
    ADD_FAILURE() << "an invalid value was saved";
  } catch (const InvalidSettings& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of \"open\" or \"closed\""),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing was saved"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(*paths.file(Scope::user)), before);
}

}  // namespace
}  // namespace holdfast::settings
