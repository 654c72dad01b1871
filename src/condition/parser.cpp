// parser.cpp — Condition::Parse: recursive descent over the lexer's tokens, each comparison's
// value checked and converted for its criterion.
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "condition/condition_tree.h"
#include "condition/lexer.h"
#include "condition/units.h"

namespace fathom::condition {
namespace {

using Node = Condition::Node;

bool Keyword(const Token& t, std::string_view word) {
  if (t.kind != Token::Kind::kWord || t.text.size() != word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(t.text[i])) != word[i]) return false;
  }
  return true;
}

std::optional<Op> ParseOp(std::string_view text) {
  static constexpr std::array<std::pair<const char*, Op>, 6> kOps = {
      {{"==", Op::kEq}, {"!=", Op::kNe}, {"<", Op::kLt}, {"<=", Op::kLe}, {">", Op::kGt}, {">=", Op::kGe}}};
  for (const auto& [text_op, op] : kOps) {
    if (text == text_op) return op;
  }
  return std::nullopt;
}

std::optional<uint32_t> TypeBits(std::string_view v) {
  static constexpr std::array<std::pair<const char*, uint32_t>, 9> kTypes = {
      {{"file", S_IFREG}, {"dir", S_IFDIR}, {"directory", S_IFDIR}, {"symlink", S_IFLNK},
       {"chr", S_IFCHR}, {"blk", S_IFBLK}, {"fifo", S_IFIFO}, {"sock", S_IFSOCK}, {"socket", S_IFSOCK}}};
  for (const auto& [name, bits] : kTypes) {
    if (v == name) return bits;
  }
  return std::nullopt;
}

// An account's id: a number, or a name looked up (nullopt: no such account).
std::optional<int64_t> AccountId(const std::string& v, bool group) {
  if (auto n = ParseCount(v); n && *n <= UINT32_MAX) return *n;
  if (group) {
    struct group g, *found = nullptr;
    std::array<char, 16384> buffer;
    if (getgrnam_r(v.c_str(), &g, buffer.data(), buffer.size(), &found) == 0 && found) return found->gr_gid;
  } else {
    struct passwd p, *found = nullptr;
    std::array<char, 16384> buffer;
    if (getpwnam_r(v.c_str(), &p, buffer.data(), buffer.size(), &found) == 0 && found) return found->pw_uid;
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, int first_line, int first_column) : lexer_(text, first_line, first_column) {}

  Result<std::shared_ptr<const Node>> Parse() {
    FATHOM_RETURN_IF_ERROR(Advance());
    FATHOM_ASSIGN_OR_RETURN(auto root, Or());
    if (token_.kind != Token::Kind::kEnd) {
      return Expected(token_.kind == Token::Kind::kClose ? "no ')' here: it closes no '('"
                                                          : "'and', 'or' or the end of the condition");
    }
    return root;
  }

 private:
  Status Advance() {
    FATHOM_ASSIGN_OR_RETURN(token_, lexer_.Next());
    return Status::Ok();
  }
  Status Expected(std::string_view what) const {
    return Status::Error(Where(token_) + ": found " + Describe(token_) + ", expected " + std::string(what));
  }
  static std::shared_ptr<const Node> Join(Node::Kind kind, std::shared_ptr<const Node> l, std::shared_ptr<const Node> r) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  // One precedence level: `next` operands joined by `keyword`, left to right.
  using Level = Result<std::shared_ptr<const Node>> (Parser::*)();
  Result<std::shared_ptr<const Node>> Chain(std::string_view keyword, Node::Kind kind, Level next) {
    FATHOM_ASSIGN_OR_RETURN(auto left, (this->*next)());
    while (Keyword(token_, keyword)) {
      FATHOM_RETURN_IF_ERROR(Advance());
      FATHOM_ASSIGN_OR_RETURN(auto right, (this->*next)());
      left = Join(kind, std::move(left), std::move(right));
    }
    return left;
  }
  Result<std::shared_ptr<const Node>> Or() { return Chain("or", Node::Kind::kOr, &Parser::And); }
  Result<std::shared_ptr<const Node>> And() { return Chain("and", Node::Kind::kAnd, &Parser::Unary); }

  Result<std::shared_ptr<const Node>> Unary() {
    if (++depth_ > kMaxDepth) return Expected("fewer nested 'not' and parentheses (at most 200)");
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    if (Keyword(token_, "not")) {
      FATHOM_RETURN_IF_ERROR(Advance());
      FATHOM_ASSIGN_OR_RETURN(auto operand, Unary());
      return Join(Node::Kind::kNot, std::move(operand), nullptr);
    }
    if (token_.kind == Token::Kind::kOpen) {
      FATHOM_RETURN_IF_ERROR(Advance());
      FATHOM_ASSIGN_OR_RETURN(auto inner, Or());
      if (token_.kind != Token::Kind::kClose) return Expected("')', 'and' or 'or'");
      FATHOM_RETURN_IF_ERROR(Advance());
      return inner;
    }
    return Comparison();
  }

  Result<std::shared_ptr<const Node>> Comparison() {
    if (++comparisons_ > kMaxComparisons) return Expected("fewer comparisons (at most 4096 in one condition)");
    if (token_.kind != Token::Kind::kWord || Keyword(token_, "and") || Keyword(token_, "or")) {
      return Expected("a criterion (" + CriterionNames() + "), 'not' or '('");
    }
    auto n = std::make_shared<Node>();
    n->criterion = FindCriterion(token_.text);
    if (n->criterion == nullptr) return Expected("a criterion (" + CriterionNames() + ")");
    if (n->criterion->criterion == Criterion::kXattr) n->attribute = token_.text.substr(6);
    const std::string criterion = token_.text;
    FATHOM_RETURN_IF_ERROR(Advance());
    std::optional<Op> op = token_.kind == Token::Kind::kOp ? ParseOp(token_.text) : std::nullopt;
    if (!op) return Expected("a comparison operator (== != < <= > >=) after " + criterion);
    n->op = *op;
    const ValueKind kind = n->criterion->kind;
    const bool equality_only = kind == ValueKind::kGlob || kind == ValueKind::kType ||
                               kind == ValueKind::kAccount || kind == ValueKind::kClass ||
                               kind == ValueKind::kMember || kind == ValueKind::kMode;
    if (equality_only && *op != Op::kEq && *op != Op::kNe) {
      return Expected("== or != (" + criterion + " is compared by equality)");
    }
    FATHOM_RETURN_IF_ERROR(Advance());
    if (token_.kind != Token::Kind::kWord && token_.kind != Token::Kind::kString) {
      return Expected("a value for " + criterion);
    }
    n->value = token_.text;
    FATHOM_RETURN_IF_ERROR(Value(*n, criterion));
    FATHOM_RETURN_IF_ERROR(Advance());
    return std::shared_ptr<const Node>(std::move(n));
  }

  // Checks and converts the value of `n` for its criterion.
  Status Value(Node& n, const std::string& criterion) {
    const std::string& v = n.value;
    switch (n.criterion->kind) {
      case ValueKind::kGlob: {
        const Criterion c = n.criterion->criterion;
        const bool path = c == Criterion::kTree || c == Criterion::kPath;
        if (path && (v.empty() || v.front() != '/')) return Expected("an absolute path (or glob) for " + criterion);
        n.glob = Glob::Compile(v, path ? Glob::Mode::kPath : Glob::Mode::kName, c == Criterion::kIname);
        return Status::Ok();
      }
      case ValueKind::kType: {
        auto bits = TypeBits(v);
        if (!bits) return Expected("a type (file dir symlink chr blk fifo sock)");
        n.number = *bits;
        return Status::Ok();
      }
      case ValueKind::kAccount: {
        const bool group = n.criterion->criterion == Criterion::kGroup;
        Glob glob = Glob::Compile(v, Glob::Mode::kName);
        if (v.empty()) return Expected(std::string("a ") + (group ? "group" : "user") + " name or number");
        if (!glob.literal()) {
          n.glob = std::move(glob);
        } else if (auto id = AccountId(v, group)) {
          n.number = *id;
        } else {
          n.no_account = true;
        }
        return Status::Ok();
      }
      case ValueKind::kCount:
      case ValueKind::kMember: {
        auto count = ParseCount(v);
        if (!count) return Expected("a whole number for " + criterion);
        n.number = *count;
        return Status::Ok();
      }
      case ValueKind::kSize: {
        auto size = ParseSize(v);
        if (!size) return Expected("a size for " + criterion + " (a number, then B K M G T P or E, or KB MB ...)");
        n.number = *size;
        return Status::Ok();
      }
      case ValueKind::kAge: {
        auto age = ParseDuration(v);
        if (!age) return Expected("a duration for " + criterion + " (a number, then s min h d w or y)");
        n.number = *age;
        return Status::Ok();
      }
      case ValueKind::kMode: {
        std::string_view digits = v;
        n.mode_form = !v.empty() && (v[0] == '-' || v[0] == '/') ? v[0] : '=';
        if (n.mode_form != '=') digits.remove_prefix(1);
        int64_t bits = 0;
        bool octal = !digits.empty() && digits.size() <= 5;
        for (size_t i = 0; octal && i < digits.size(); ++i) {
          octal = digits[i] >= '0' && digits[i] <= '7';
          bits = bits * 8 + (digits[i] - '0');
        }
        if (!octal || bits > 07777) {
          return Expected("permission bits in octal for " + criterion + ": 0644 (exactly), -0750 (all of them) or "
                          "/0022 (any of them)");
        }
        n.number = bits;
        return Status::Ok();
      }
      case ValueKind::kClass:
        if (v.empty() || !Glob::Compile(v, Glob::Mode::kName).literal()) {
          return Expected("a file class's name (no wildcards)");
        }
        return Status::Ok();
    }
    return Status::Ok();
  }

  static constexpr int kMaxDepth = 200;
  static constexpr int kMaxComparisons = 4096;
  int comparisons_ = 0;
  Lexer lexer_;
  Token token_;
  int depth_ = 0;
};

}  // namespace

Result<Condition> Condition::Parse(std::string_view text, std::string_view source, int first_line,
                                   int first_column) {
  Parser parser(text, first_line, first_column);
  auto root = parser.Parse();
  if (!root.ok()) return Status::Error(std::string(source) + ": " + root.status().message());
  return Condition(std::move(root).value());
}

}  // namespace fathom::condition
