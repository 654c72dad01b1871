// lexer.h — the condition language's tokens: bare words (anything up to white space, a
// parenthesis or an operator character), quoted strings ('...' or "...", `\` escapes the next
// character), the six comparison operators, parentheses. Each with its line and column
// (from 1; a tab counts one column). The caller's thread.
#pragma once

#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::condition {

struct Token {
  enum class Kind { kWord, kString, kOp, kOpen, kClose, kEnd } kind = Kind::kEnd;
  std::string text;  // a string's unquoted value; the operator; the word
  int line = 1, column = 1;
};

class Lexer {
 public:
  Lexer(std::string_view text, int first_line, int first_column)
      : text_(text), line_(first_line), column_(first_column) {}
  // The next token; an error (naming its line and column) for an unterminated string or a
  // lone '!', '=' that is not an operator.
  Result<Token> Next();

 private:
  void Skip();
  std::string_view text_;
  size_t at_ = 0;
  int line_ = 1, column_ = 1;
};

// "line L, column C" of a token, for messages.
std::string Where(const Token& token);
// How a token reads in a message: 'word', "string", the end of the condition.
std::string Describe(const Token& token);

}  // namespace fathom::condition
