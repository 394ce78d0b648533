// Splitting a shell command line into simple commands, the way a POSIX
// shell (bash) would: separators && || ; | |& & and newlines, ( ) subshell
// and group parentheses, quotes, backslash escapes, here-documents and
// redirections. Expansions are not performed; they are kept as typed parts
// so the analysis can expand what it knows ($HOME, $PWD) and treat the rest
// as unanalysable.
//
// This is a pure function on a string. It never fails: what it cannot
// read (an unterminated quote, an unbalanced $( ) is reported in
// `problems`, and the caller must treat the command as unanalysable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace holdfast::gatekeeper::shell {

struct WordPart {
  enum class Kind {
    text,          // characters after quote removal
    variable,      // $NAME or ${NAME}; value is the name, "" for any other form
    substitution,  // $(...), `...`, <(...), >(...); value is the body
    arithmetic,    // $((...)), $[...]; value is the expression
    parameter,     // ${...} other than ${NAME}; value is the body
  };
  Kind kind = Kind::text;
  std::string value;
  bool quoted = false;  // inside '', "" or escaped: no globbing, no ~
};

struct Word {
  std::vector<WordPart> parts;
  std::string source;  // the word as typed
};

struct Redirect {
  // "<", ">", ">>", ">|", "<>", "&>", "&>>", ">&", "<&", "<<", "<<-", "<<<"
  std::string op;
  Word target;  // the file, fd, here-doc delimiter or here-string
};

struct SimpleCommand {
  std::vector<Word> words;
  std::vector<Redirect> redirects;
  std::string source;  // the command as typed, for messages
};

struct LexResult {
  std::vector<SimpleCommand> commands;
  std::vector<std::string> problems;  // non-empty: the line could not be read exactly
};

LexResult lex(std::string_view line);

}  // namespace holdfast::gatekeeper::shell
