// The lexer on its own: separators, quoting, expansions kept as parts.
#include "launcher/gatekeeper/shell_lexer.hpp"

#include <gtest/gtest.h>

#include "launcher/gatekeeper/shell_analysis.hpp"
#include "launcher/gatekeeper/url_host.hpp"

namespace holdfast::gatekeeper::shell {
namespace {

std::vector<std::vector<std::string>> words_of(const std::string& line) {
  std::vector<std::vector<std::string>> out;
  for (const auto& command : lex(line).commands) {
    std::vector<std::string> words;
    for (const auto& word : command.words) {
      std::string text;
      for (const auto& part : word.parts) text += part.value;
      words.push_back(text);
    }
    out.push_back(words);
  }
  return out;
}

using Commands = std::vector<std::vector<std::string>>;

TEST(Lexer, Separators) {
  EXPECT_EQ(words_of("a && b || c ; d | e |& f & g\nh"),
            (Commands{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}}));
  EXPECT_EQ(words_of("(a; b) && { c; }"), (Commands{{"a"}, {"b"}, {"{", "c"}, {"}"}}));
}

TEST(Lexer, Quotes) {
  EXPECT_EQ(words_of("echo 'a;b' \"c;d\" e\\;f"), (Commands{{"echo", "a;b", "c;d", "e;f"}}));
  EXPECT_EQ(words_of("echo 'a\\' ; touch x"), (Commands{{"echo", "a\\"}, {"touch", "x"}}));
  EXPECT_EQ(words_of("echo \"a\\\"b\""), (Commands{{"echo", "a\"b"}}));
  EXPECT_EQ(words_of("echo $'a\\'b' x"), (Commands{{"echo", "a'b", "x"}}));
  EXPECT_EQ(words_of("echo ''"), (Commands{{"echo", ""}}));
}

TEST(Lexer, Redirections) {
  const auto lexed = lex("cat <in >out 2>>err &>all 2>&1");
  ASSERT_EQ(lexed.commands.size(), 1u);
  const auto& r = lexed.commands[0].redirects;
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].op, "<");
  EXPECT_EQ(r[1].op, ">");
  EXPECT_EQ(r[2].op, ">>");
  EXPECT_EQ(r[3].op, "&>");
  EXPECT_EQ(r[4].op, ">&");
}

TEST(Lexer, ExpansionsAreParts) {
  const auto lexed = lex("echo $HOME ${X} $(a b) `c` \"$Y\"");
  const auto& words = lexed.commands.at(0).words;
  ASSERT_EQ(words.size(), 6u);
  EXPECT_EQ(words[1].parts[0].kind, WordPart::Kind::variable);
  EXPECT_EQ(words[1].parts[0].value, "HOME");
  EXPECT_EQ(words[2].parts[0].value, "X");
  EXPECT_EQ(words[3].parts[0].kind, WordPart::Kind::substitution);
  EXPECT_EQ(words[3].parts[0].value, "a b");
  EXPECT_EQ(words[4].parts[0].value, "c");
  EXPECT_TRUE(words[5].parts[0].quoted);
}

TEST(Lexer, HereDocumentBodyIsSkipped) {
  EXPECT_EQ(words_of("cat <<EOF\nrm -rf /\nEOF\necho after"),
            (Commands{{"cat"}, {"echo", "after"}}));
}

TEST(Lexer, ProblemsAreReported) {
  EXPECT_FALSE(lex("echo 'abc").problems.empty());
  EXPECT_FALSE(lex("echo \"abc").problems.empty());
  EXPECT_FALSE(lex("echo $(abc").problems.empty());
  EXPECT_FALSE(lex("cat <<EOF\nno end").problems.empty());
  EXPECT_TRUE(lex("echo ok").problems.empty());
}

TEST(Analysis, MapsOperations) {
  const auto analysis = analyse("cp a b/c && cd /x && rm y", {"/ws", "/home/me"});
  ASSERT_EQ(analysis.commands.size(), 3u);
  const auto& cp = analysis.commands[0].ops;
  ASSERT_EQ(cp.size(), 3u);
  EXPECT_EQ(cp[0].kind, OpKind::read);
  EXPECT_EQ(cp[0].target, "/ws/a");
  EXPECT_EQ(cp[1].kind, OpKind::write);
  EXPECT_EQ(cp[1].target, "/ws/b/c");
  // b/c may be a directory: then b/c/a is written.
  EXPECT_EQ(cp[2].kind, OpKind::write);
  EXPECT_EQ(cp[2].target, "/ws/b/c/a");
  // After the cd, both the old and the new directory are possible.
  const auto& rm = analysis.commands[2].ops;
  ASSERT_EQ(rm.size(), 2u);
  EXPECT_EQ(rm[0].kind, OpKind::edit);
  EXPECT_EQ(rm[0].target, "/ws/y");
  EXPECT_EQ(rm[1].target, "/x/y");
}

TEST(Analysis, UrlHost) {
  EXPECT_EQ(url_host("https://user:pw@Docs.Example.COM:8443/a?b"), "docs.example.com");
  EXPECT_EQ(url_host("example.com/x"), "example.com");
  EXPECT_EQ(url_host("http://[::1]:80/"), "::1");
  EXPECT_EQ(url_host("git://Host.example/x"), "host.example");
  EXPECT_EQ(url_host("mailto:someone@example.com"), "");
  EXPECT_EQ(url_host("example.com:8443/x"), "example.com");
}

// The forms a WHATWG parser (browsers, Node's fetch) forgives, each of
// which reaches evil.com: a domain rule must see evil.com too.
TEST(Analysis, UrlHostAsFetchersParseIt) {
  for (const char* url : {"http:/evil.com/x", "https:evil.com", "https:\\\\evil.com\\x",
                          "HTTPS://EVIL.COM", "https:///evil.com/x", "https://evil.com\\@good.com/",
                          "https://ev%69l.com/", "  https://evil.com/ ", "ht\ttps://ev\nil.com/",
                          "//evil.com/x", "wss:evil.com", "https://evil.com./"}) {
    EXPECT_EQ(url_host(url), "evil.com") << url;
  }
}

// Hosts a domain rule cannot judge come back empty ("no host"): IDNA maps
// fullwidth letters and ideographic full stops to another name.
TEST(Analysis, UrlHostThatRulesCannotJudgeIsEmpty) {
  for (const char* url : {"https://\xef\xbd\x85vil.com/",
                          "https://evil\xe3\x80\x82"
                          "com/",
                          "https://ev%C3%AFl.com/", "https://[::1/", "https://[fe80::1%25eth0]/"}) {
    EXPECT_EQ(url_host(url), "") << url;
  }
}

}  // namespace
}  // namespace holdfast::gatekeeper::shell
