#include "condition/lexer.h"

#include <cctype>

namespace fathom::condition {
namespace {

bool OperatorChar(char c) { return c == '=' || c == '!' || c == '<' || c == '>'; }

}  // namespace

void Lexer::Skip() {
  while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) {
    if (text_[at_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++at_;
  }
}

Result<Token> Lexer::Next() {
  Skip();
  Token t;
  t.line = line_;
  t.column = column_;
  if (at_ == text_.size()) return t;
  const char c = text_[at_];
  auto take = [&](size_t n) {
    t.text = std::string(text_.substr(at_, n));
    at_ += n;
    column_ += static_cast<int>(n);
  };
  if (c == '(' || c == ')') {
    t.kind = c == '(' ? Token::Kind::kOpen : Token::Kind::kClose;
    take(1);
    return t;
  }
  if (OperatorChar(c)) {
    t.kind = Token::Kind::kOp;
    const bool two = at_ + 1 < text_.size() && text_[at_ + 1] == '=';
    if (c == '<' || c == '>') {
      take(two ? 2 : 1);
      return t;
    }
    if (!two) {
      return Status::Error(Where(t) + ": found '" + std::string(1, c) +
                           "', expected an operator (== != < <= > >=)");
    }
    take(2);
    return t;
  }
  if (c == '\'' || c == '"') {
    t.kind = Token::Kind::kString;
    size_t i = at_ + 1;
    int line = line_, column = column_ + 1;
    for (; i < text_.size() && text_[i] != c; ++i, ++column) {
      if (text_[i] == '\\' && i + 1 < text_.size()) ++i, ++column;
      if (text_[i] == '\n') ++line, column = 0;
      t.text.push_back(text_[i]);
    }
    if (i == text_.size()) {
      return Status::Error(Where(t) + ": found a string that does not end, expected its closing " +
                           std::string(1, c));
    }
    at_ = i + 1;
    line_ = line;
    column_ = column + 1;
    return t;
  }
  t.kind = Token::Kind::kWord;
  size_t n = 0;
  while (at_ + n < text_.size()) {
    const char d = text_[at_ + n];
    if (std::isspace(static_cast<unsigned char>(d)) || d == '(' || d == ')' || OperatorChar(d)) break;
    ++n;
  }
  take(n);
  return t;
}

std::string Where(const Token& token) {
  return "line " + std::to_string(token.line) + ", column " + std::to_string(token.column);
}

std::string Describe(const Token& token) {
  switch (token.kind) {
    case Token::Kind::kEnd: return "the end of the condition";
    case Token::Kind::kString: return "\"" + token.text + "\"";
    default: return "'" + token.text + "'";
  }
}

}  // namespace fathom::condition
