// Key paths: dotted with \. escapes and JSON pointer spellings, and the
// get/set/unset helpers built on them.
#include "settings/key_path.hpp"

#include <gtest/gtest.h>

#include "settings/errors.hpp"

namespace holdfast::settings {
namespace {

using nlohmann::json;

TEST(KeyPath, DottedSplitsOnDots) {
  EXPECT_EQ(parse_key_path("tools.executionSandbox.network"),
            (KeyPath{"tools", "executionSandbox", "network"}));
  EXPECT_EQ(parse_key_path("launcher"), (KeyPath{"launcher"}));
}

TEST(KeyPath, BackslashDotIsADotInsideAKey) {
  EXPECT_EQ(parse_key_path("tools.executionSandbox.filesystem./code/\\.git"),
            (KeyPath{"tools", "executionSandbox", "filesystem", "/code/.git"}));
  EXPECT_EQ(parse_key_path("a\\.b\\.c"), (KeyPath{"a.b.c"}));
  // A backslash before any other character is kept as it is.
  EXPECT_EQ(parse_key_path("a\\b.c"), (KeyPath{"a\\b", "c"}));
}

TEST(KeyPath, BackslashBeforeADotOrABackslashIsEscapedByABackslash) {
  EXPECT_EQ(parse_key_path("a\\\\.b"), (KeyPath{"a\\", "b"}));
  EXPECT_EQ(parse_key_path("a\\\\\\.b"), (KeyPath{"a\\.b"}));
  // Keys that end in a backslash, or hold one before a dot (found by
  // fuzz/key_path.cpp: the dotted spelling read back as other keys).
  for (const KeyPath& path :
       {KeyPath{"toolsa\\", "exec\\.u\\t"}, KeyPath{"\\", "\\\\", "x"}, KeyPath{"a\\b", "c\\"},
        KeyPath{"\\."}, KeyPath{"/x", "/y"}, KeyPath{"\\/x"}, KeyPath{"\\"}}) {
    EXPECT_EQ(parse_key_path(to_dotted(path)), path) << to_dotted(path);
    EXPECT_EQ(pointer_to_dotted(to_pointer(path)), to_dotted(path));
  }
  EXPECT_EQ(to_dotted({"a\\b", "c"}), "a\\b.c");  // no escape where none is needed
  // A first key that starts with a slash is not read as a JSON pointer.
  EXPECT_EQ(to_dotted({"/x", "/y"}), "\\/x./y");
  EXPECT_EQ(parse_key_path("\\/x./y"), (KeyPath{"/x", "/y"}));
}

TEST(KeyPath, JsonPointerWithEscapes) {
  EXPECT_EQ(parse_key_path("/tools/executionSandbox"), (KeyPath{"tools", "executionSandbox"}));
  EXPECT_EQ(parse_key_path("/tools/executionSandbox/filesystem/~1code~1.git"),
            (KeyPath{"tools", "executionSandbox", "filesystem", "/code/.git"}));
  EXPECT_EQ(parse_key_path("/a~0b"), (KeyPath{"a~b"}));
}

TEST(KeyPath, MalformedPathsAreUsageErrors) {
  for (const char* text : {"", ".", "a..b", "a.", ".a", "/", "//a", "/a/", "/a~2"}) {
    EXPECT_THROW(parse_key_path(text), UsageError) << "\"" << text << "\"";
  }
  try {
    parse_key_path("a..b");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("empty key segment (write \\. for a dot inside a key)"),
              std::string::npos)
        << e.what();
  }
}

TEST(KeyPath, DottedAndPointerRoundTrip) {
  const KeyPath path{"tools", "executionSandbox", "filesystem", "/home/a.b~c"};
  EXPECT_EQ(to_dotted(path), "tools.executionSandbox.filesystem./home/a\\.b~c");
  EXPECT_EQ(to_pointer(path), "/tools/executionSandbox/filesystem/~1home~1a.b~0c");
  EXPECT_EQ(parse_key_path(to_dotted(path)), path);
  EXPECT_EQ(parse_key_path(to_pointer(path)), path);
  EXPECT_EQ(pointer_to_dotted(to_pointer(path)), to_dotted(path));
  EXPECT_EQ(pointer_to_dotted(""), "");
}

TEST(KeyPath, FindValue) {
  const json doc = {{"tools", {{"executionSandbox", {{"network", "closed"}}}}},
                    {"permissions", {{"deny", {"Bash"}}}}};
  ASSERT_NE(find_value(doc, {"tools", "executionSandbox", "network"}), nullptr);
  EXPECT_EQ(*find_value(doc, {"tools", "executionSandbox", "network"}), "closed");
  EXPECT_EQ(*find_value(doc, {}), doc);
  EXPECT_EQ(find_value(doc, {"tools", "missing"}), nullptr);
  // Through a non-object: not found (lists are not indexed by key paths).
  EXPECT_EQ(find_value(doc, {"permissions", "deny", "0"}), nullptr);
  EXPECT_EQ(find_value(doc, {"tools", "executionSandbox", "network", "x"}), nullptr);
}

TEST(KeyPath, SetCreatesIntermediateObjects) {
  json doc = json::object();
  set_value(doc, {"tools", "executionSandbox", "network"}, "closed");
  EXPECT_EQ(doc, json::parse(R"j({"tools":{"executionSandbox":{"network":"closed"}}})j"));
  set_value(doc, {"tools", "executionSandbox", "network"}, "open");
  set_value(doc, {"tools", "executionSandbox", "filesystem"}, "read-only");
  EXPECT_EQ(doc["tools"]["executionSandbox"],
            json::parse(R"j({"network":"open","filesystem":"read-only"})j"));
}

TEST(KeyPath, SetThroughANonObjectIsRefusedAndLeavesTheDocument) {
  json doc = {{"tools", "bwrap"}};
  const json before = doc;
  try {
    set_value(doc, {"tools", "executionSandbox"}, json::object());
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tools is a string, not an object"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(doc, before);
}

TEST(KeyPath, UnsetRemovesOneKeyOnly) {
  json doc = json::parse(R"j({"tools":{"executionSandbox":{"network":"closed"}},"launcher":{}})j");
  EXPECT_TRUE(unset_value(doc, {"tools", "executionSandbox", "network"}));
  // The emptied parent stays: only the key asked for goes.
  EXPECT_EQ(doc, json::parse(R"j({"tools":{"executionSandbox":{}},"launcher":{}})j"));
  EXPECT_FALSE(unset_value(doc, {"tools", "executionSandbox", "network"}));
  EXPECT_FALSE(unset_value(doc, {"nothing", "here"}));
  EXPECT_FALSE(unset_value(doc, {}));
  EXPECT_TRUE(unset_value(doc, {"launcher"}));
  EXPECT_FALSE(doc.contains("launcher"));
}

}  // namespace
}  // namespace holdfast::settings
