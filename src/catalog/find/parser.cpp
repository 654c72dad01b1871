// parser.cpp — recursive descent over find's arguments.
#include "catalog/find/parser.h"

#include <regex.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "catalog/find/actions.h"
#include "catalog/find/date_parse.h"
#include "catalog/find/mode.h"
#include "catalog/find/output_format.h"
#include "catalog/find/predicates.h"

namespace fathom::catalog::find {
namespace {

constexpr int64_t kDayNs = 86400LL * 1000000000LL;
constexpr int64_t kMinuteNs = 60LL * 1000000000LL;

bool IsOperand(std::string_view t) {
  return t == "(" || t == ")" || t == "!" || t == "," || (t.size() > 1 && t[0] == '-');
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "+N", "-N" or "N"; digits only after the sign.
template <typename T>
bool ParseNumber(std::string_view text, Number<T>& n, bool allow_fraction = false) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    n.cmp = text[0] == '+' ? Compare::kGreater : Compare::kLess;
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  std::string s(text);
  size_t dots = 0;
  for (char c : s) {
    if (c == '.' && allow_fraction && ++dots == 1) continue;
    if (c < '0' || c > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    n.value = std::strtod(s.c_str(), &end);
  } else {
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (v > static_cast<unsigned long long>(std::numeric_limits<T>::max())) return false;
    n.value = static_cast<T>(v);
  }
  return errno == 0 && end != nullptr && *end == '\0';
}

const std::map<std::string, unsigned long, std::less<>>& RegexTypes() {
  static const std::map<std::string, unsigned long, std::less<>> kTypes = {
      {"findutils-default", RE_SYNTAX_EMACS},
      {"emacs", RE_SYNTAX_EMACS},
      {"awk", RE_SYNTAX_AWK},
      {"gnu-awk", RE_SYNTAX_GNU_AWK},
      {"posix-awk", RE_SYNTAX_POSIX_AWK},
      {"grep", RE_SYNTAX_GREP},
      {"egrep", RE_SYNTAX_EGREP},
      {"posix-egrep", RE_SYNTAX_POSIX_EGREP},
      {"ed", RE_SYNTAX_ED},
      {"sed", RE_SYNTAX_SED},
      {"posix-basic", RE_SYNTAX_POSIX_BASIC},
      {"posix-minimal-basic", RE_SYNTAX_POSIX_MINIMAL_BASIC},
      {"posix-extended", RE_SYNTAX_POSIX_EXTENDED},
  };
  return kTypes;
}

class Parser {
 public:
  Parser(const std::vector<std::string>& args, const ParseEnvironment& env, std::vector<std::string>* warnings)
      : args_(args), env_(env), warnings_(warnings), origin_ns_(env.now_ns) {}

  Result<Expression> Run() {
    while (pos_ < args_.size() && !IsOperand(args_[pos_])) expr_.starts.push_back(args_[pos_++]);
    if (expr_.starts.empty()) expr_.starts.push_back(".");
    std::unique_ptr<ExprNode> root;
    if (pos_ < args_.size()) {
      FATHOM_ASSIGN_OR_RETURN(root, ParseComma());
      if (pos_ < args_.size()) {
        if (args_[pos_] == ")") return Status::Error("unbalanced parentheses: \")\" without a matching \"(\"");
        return Status::Error("paths must precede the expression: " + Quote(args_[pos_]) +
                             " (write the starting points first)");
      }
    } else {
      root = Leaf(ConstTest(true));
    }
    bool has_action = false;
    for (Predicate* p : expr_.predicates) has_action = has_action || p->IsAction();
    if (has_prune_ && has_delete_ && !explicit_depth_)
      return Status::Error("-delete turns on -depth, and -prune does nothing with -depth (give "
                           "-depth explicitly to go on anyway, or drop -prune)");
    if (!has_action && !expr_.options.count) {
      auto print = Leaf(PrintAction("-print", nullptr, '\n'));
      root = Join(ExprNode::Kind::kAnd, std::move(root), std::move(print));
    }
    if (expr_.options.sort && expr_.needs_walk)
      return Status::Error("-sort and -rsort cannot be combined with -prune or -quit (they need "
                           "the walk's order); drop one of them");
    expr_.root = std::move(root);
    return std::move(expr_);
  }

 private:
  bool AtEnd() const { return pos_ >= args_.size(); }
  const std::string& Peek() const { return args_[pos_]; }

  std::unique_ptr<ExprNode> Leaf(std::unique_ptr<Predicate> p) {
    expr_.predicates.push_back(p.get());
    auto n = std::make_unique<ExprNode>();
    n->kind = ExprNode::Kind::kPredicate;
    n->predicate = std::move(p);
    return n;
  }

  static std::unique_ptr<ExprNode> Join(ExprNode::Kind kind, std::unique_ptr<ExprNode> l, std::unique_ptr<ExprNode> r) {
    auto n = std::make_unique<ExprNode>();
    n->kind = kind;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  Result<std::unique_ptr<ExprNode>> ParseComma() {
    FATHOM_ASSIGN_OR_RETURN(auto left, ParseOr());
    while (!AtEnd() && Peek() == ",") {
      ++pos_;
      if (AtEnd() || Peek() == ")") return Status::Error("expected an expression after \",\"");
      FATHOM_ASSIGN_OR_RETURN(auto right, ParseOr());
      left = Join(ExprNode::Kind::kComma, std::move(left), std::move(right));
    }
    return left;
  }

  Result<std::unique_ptr<ExprNode>> ParseOr() {
    FATHOM_ASSIGN_OR_RETURN(auto left, ParseAnd());
    while (!AtEnd() && (Peek() == "-o" || Peek() == "-or")) {
      std::string op = args_[pos_++];
      if (AtEnd() || Peek() == ")" || Peek() == "," || Peek() == "-o" || Peek() == "-or" ||
          Peek() == "-a" || Peek() == "-and")
        return Status::Error("expected an expression after " + op);
      FATHOM_ASSIGN_OR_RETURN(auto right, ParseAnd());
      left = Join(ExprNode::Kind::kOr, std::move(left), std::move(right));
    }
    return left;
  }

  Result<std::unique_ptr<ExprNode>> ParseAnd() {
    if (!AtEnd() && (Peek() == "-a" || Peek() == "-and" || Peek() == "-o" || Peek() == "-or"))
      return Status::Error("expected an expression before " + Peek());
    FATHOM_ASSIGN_OR_RETURN(auto left, ParseUnary());
    while (!AtEnd() && Peek() != ")" && Peek() != "," && Peek() != "-o" && Peek() != "-or") {
      if (Peek() == "-a" || Peek() == "-and") {
        std::string op = args_[pos_++];
        if (AtEnd() || Peek() == ")" || Peek() == "," || Peek() == "-o" || Peek() == "-or" ||
            Peek() == "-a" || Peek() == "-and")
          return Status::Error("expected an expression after " + op);
      }
      FATHOM_ASSIGN_OR_RETURN(auto right, ParseUnary());
      left = Join(ExprNode::Kind::kAnd, std::move(left), std::move(right));
    }
    return left;
  }

  Result<std::unique_ptr<ExprNode>> ParseUnary() {
    if (AtEnd()) return Status::Error("expected an expression at the end of the command line");
    const std::string tok = Peek();
    if (tok == "!" || tok == "-not") {
      ++pos_;
      if (AtEnd() || Peek() == ")" || Peek() == "," || Peek() == "-o" || Peek() == "-or" ||
          Peek() == "-a" || Peek() == "-and")
        return Status::Error("expected an expression after " + tok);
      FATHOM_ASSIGN_OR_RETURN(auto operand, ParseUnary());
      auto n = std::make_unique<ExprNode>();
      n->kind = ExprNode::Kind::kNot;
      n->left = std::move(operand);
      return n;
    }
    if (tok == "(") {
      ++pos_;
      if (!AtEnd() && Peek() == ")") return Status::Error("empty parentheses: \"( )\" holds no expression");
      if (AtEnd()) return Status::Error("unbalanced parentheses: \"(\" without a matching \")\"");
      FATHOM_ASSIGN_OR_RETURN(auto inner, ParseComma());
      if (AtEnd() || Peek() != ")") return Status::Error("unbalanced parentheses: \"(\" without a matching \")\"");
      ++pos_;
      return inner;
    }
    if (tok == ")") return Status::Error("unbalanced parentheses: \")\" without a matching \"(\"");
    if (tok == ",") return Status::Error("expected an expression before \",\"");
    ++pos_;
    FATHOM_ASSIGN_OR_RETURN(auto pred, Primary(tok));
    return Leaf(std::move(pred));
  }

  Result<std::string> Arg(const std::string& option) {
    if (AtEnd()) return Status::Error("missing argument to " + option);
    return args_[pos_++];
  }

  Result<int64_t> DepthArg(const std::string& option) {
    FATHOM_ASSIGN_OR_RETURN(std::string a, Arg(option));
    Number<uint64_t> n;
    if (a.empty() || a[0] == '+' || a[0] == '-' || !ParseNumber(a, n) || n.value > INT32_MAX)
      return Status::Error(option + ": " + Quote(a) + " is not a non-negative whole number");
    return static_cast<int64_t>(n.value);
  }

  Result<Number<uint64_t>> NumberArg(const std::string& option) {
    FATHOM_ASSIGN_OR_RETURN(std::string a, Arg(option));
    Number<uint64_t> n;
    if (!ParseNumber(a, n)) return Status::Error(option + ": " + Quote(a) + " is not a number (use N, +N or -N)");
    return n;
  }

  Result<Attrs> Reference(const std::string& option, const std::string& path) {
    auto attrs = env_.reference(path);
    if (!attrs.ok()) return Status::Error(option + ": " + attrs.status().message());
    return attrs;
  }

  Result<std::shared_ptr<std::ostream>> OutputArg(const std::string& option) {
    FATHOM_ASSIGN_OR_RETURN(std::string path, Arg(option));
    auto it = outputs_.find(path);
    if (it != outputs_.end()) return it->second;
    auto file = env_.open_output(path);
    if (!file.ok()) return Status::Error(option + ": " + file.status().message());
    outputs_[path] = *file;
    return *file;
  }

  static int64_t Seconds(const Attrs& a, char which) {
    return which == 'a' ? a.atime_ns : which == 'c' ? a.ctime_ns : a.mtime_ns;
  }

  // The start of tomorrow in local time (GNU's -daystart origin).
  int64_t StartOfTomorrow() const {
    time_t now = static_cast<time_t>(env_.now_ns / 1000000000) + 86400;
    std::tm tm{};
    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&tm)) * 1000000000;
  }

  Result<std::unique_ptr<Predicate>> Option(std::function<void()> set) {
    set();
    return std::unique_ptr<Predicate>(ConstTest(true));
  }

  Result<std::unique_ptr<Predicate>> Primary(const std::string& t) {
    GlobalOptions& o = expr_.options;
    // Global and positional options: true wherever they stand.
    if (t == "-maxdepth" || t == "-mindepth") {
      FATHOM_ASSIGN_OR_RETURN(int64_t d, DepthArg(t));
      return Option([&] { (t == "-maxdepth" ? o.max_depth : o.min_depth) = static_cast<int>(d); });
    }
    if (t == "-depth" || t == "-d") return Option([&] { o.depth_first = explicit_depth_ = true; });
    if (t == "-xdev" || t == "-mount") return Option([&] { o.xdev = true; });
    if (t == "-daystart") return Option([&] { if (!daystart_) origin_ns_ = StartOfTomorrow(); daystart_ = true; });
    if (t == "-noleaf" || t == "-ignore_readdir_race" || t == "-noignore_readdir_race" || t == "-warn" ||
        t == "-nowarn")
      return Option([] {});
    if (t == "-follow" || t == "-L" || t == "-H")
      return Status::Error(t + ": following symbolic links is not supported by the catalog (drop " + t + ")");
    if (t == "-regextype") {
      FATHOM_ASSIGN_OR_RETURN(std::string type, Arg(t));
      auto it = RegexTypes().find(type);
      if (it == RegexTypes().end())
        return Status::Error("-regextype: unknown regular expression type " + Quote(type) +
                             " (use findutils-default, emacs, posix-basic, posix-extended, posix-egrep, "
                             "egrep, posix-awk, awk, gnu-awk, grep, sed, ed or posix-minimal-basic)");
      regex_syntax_ = it->second;
      return Option([] {});
    }
    // fathom's extras.
    if (t == "-count") return Option([&] { o.count = true; });
    if (t == "-sort" || t == "-rsort") {
      FATHOM_ASSIGN_OR_RETURN(std::string f, Arg(t));
      static const std::map<std::string, SortField, std::less<>> kFields = {
          {"name", SortField::kName}, {"path", SortField::kPath}, {"size", SortField::kSize},
          {"mtime", SortField::kMtime}, {"atime", SortField::kAtime}, {"ctime", SortField::kCtime},
          {"uid", SortField::kUid}, {"gid", SortField::kGid}};
      auto it = kFields.find(f);
      if (it == kFields.end())
        return Status::Error(t + ": unknown field " + Quote(f) + " (use name, path, size, mtime, atime, ctime, uid or gid)");
      return Option([&, field = it->second] { o.sort = field; o.reverse = t == "-rsort"; });
    }
    if (t == "-limit") {
      FATHOM_ASSIGN_OR_RETURN(int64_t n, DepthArg(t));
      return Option([&] { o.limit = static_cast<uint64_t>(n); });
    }
    if (t == "-fid") {
      FATHOM_ASSIGN_OR_RETURN(std::string fid, Arg(t));
      return FidTest(fid);
    }
    if (t == "-ost" || t == "-mdt") {
      FATHOM_ASSIGN_OR_RETURN(int64_t n, DepthArg(t));
      return t == "-ost" ? OstTest(static_cast<uint32_t>(n)) : MdtTest(static_cast<uint32_t>(n));
    }
    if (t == "-class") {
      FATHOM_ASSIGN_OR_RETURN(std::string name, Arg(t));
      if (env_.classes == nullptr) {
        return Status::Error(t + ": no file classes: give the policy configuration that defines " + Quote(name) +
                             " with --config FILE");
      }
      if (Status known = policy::RequireClass(*env_.classes, env_.classes_source, name); !known.ok()) {
        return Status::Error(t + ": " + known.message());
      }
      return ClassTest(name, *env_.classes, env_.now_ns);
    }
    if (t == "-pool") {
      FATHOM_ASSIGN_OR_RETURN(std::string pool, Arg(t));
      return PoolTest(pool);
    }
    // Tests.
    if (t == "-true" || t == "-false") return ConstTest(t == "-true");
    if (t == "-name" || t == "-iname" || t == "-path" || t == "-ipath" || t == "-wholename" ||
        t == "-iwholename" || t == "-lname" || t == "-ilname") {
      FATHOM_ASSIGN_OR_RETURN(std::string pattern, Arg(t));
      PatternOn on = t.find("name") == std::string::npos || t.find("wholename") != std::string::npos
                         ? PatternOn::kPath
                         : (t == "-lname" || t == "-ilname" ? PatternOn::kLinkTarget : PatternOn::kBaseName);
      return PatternTest(t, pattern, on, t[1] == 'i');
    }
    if (t == "-regex" || t == "-iregex") {
      FATHOM_ASSIGN_OR_RETURN(std::string pattern, Arg(t));
      return RegexTest(t, pattern, regex_syntax_, t == "-iregex");
    }
    if (t == "-type" || t == "-xtype") return TypeArg(t);
    if (t == "-user" || t == "-group") {
      FATHOM_ASSIGN_OR_RETURN(std::string name, Arg(t));
      bool group = t == "-group";
      std::optional<uint32_t> id = group ? env_.names->GroupId(name) : env_.names->UserId(name);
      Number<uint64_t> n;
      if (!id && !name.empty() && name[0] != '+' && name[0] != '-' && ParseNumber(name, n) && n.value <= UINT32_MAX)
        id = static_cast<uint32_t>(n.value);
      if (!id)
        return Status::Error(t + ": " + Quote(name) + " is not the name of a known " + (group ? "group" : "user") +
                             " (use a name from " + (group ? "/etc/group" : "/etc/passwd") + " or a numeric id)");
      return IdTest(t, group ? IdField::kGid : IdField::kUid, Number<uint64_t>{Compare::kEqual, *id});
    }
    if (t == "-uid" || t == "-gid" || t == "-links" || t == "-inum") {
      FATHOM_ASSIGN_OR_RETURN(auto n, NumberArg(t));
      IdField f = t == "-uid" ? IdField::kUid : t == "-gid" ? IdField::kGid : t == "-links" ? IdField::kLinks : IdField::kInode;
      return IdTest(t, f, n);
    }
    if (t == "-nouser" || t == "-nogroup") return NoOwnerTest(t == "-nogroup");
    if (t == "-size") return SizeArg(t);
    if (t == "-empty") return EmptyTest();
    if (t == "-perm") {
      FATHOM_ASSIGN_OR_RETURN(std::string mode, Arg(t));
      FATHOM_ASSIGN_OR_RETURN(PermSpec spec, ParsePerm(mode));
      return PermTest(spec);
    }
    if (t == "-mtime" || t == "-atime" || t == "-ctime" || t == "-mmin" || t == "-amin" || t == "-cmin") {
      FATHOM_ASSIGN_OR_RETURN(std::string a, Arg(t));
      Number<double> n;
      bool minutes = t.ends_with("min");
      if (!ParseNumber(a, n, true))
        return Status::Error(t + ": " + Quote(a) + " is not a number of " + (minutes ? "minutes" : "days") +
                             " (use N, +N or -N)");
      return AgeTest(t, t[1], n, minutes ? kMinuteNs : kDayNs, origin_ns_);
    }
    if (t == "-newer" || t == "-anewer" || t == "-cnewer") {
      FATHOM_ASSIGN_OR_RETURN(std::string file, Arg(t));
      FATHOM_ASSIGN_OR_RETURN(Attrs ref, Reference(t, file));
      return NewerTest(t, t == "-newer" ? 'm' : t[1], ref.mtime_ns);
    }
    if (t.size() == 8 && t.starts_with("-newer")) return NewerXYArg(t);
    if (t == "-samefile") {
      FATHOM_ASSIGN_OR_RETURN(std::string file, Arg(t));
      FATHOM_ASSIGN_OR_RETURN(Attrs ref, Reference(t, file));
      return SameFileTest(ref.dev, ref.ino);
    }
    if (t == "-readable") return AccessTest(t, R_OK);
    if (t == "-writable") return AccessTest(t, W_OK);
    if (t == "-executable") return AccessTest(t, X_OK);
    return Action(t);
  }

  Result<std::unique_ptr<Predicate>> Action(const std::string& t) {
    if (t == "-print") return PrintAction(t, nullptr, '\n');
    if (t == "-print0") return PrintAction(t, nullptr, '\0');
    if (t == "-fprint" || t == "-fprint0") {
      FATHOM_ASSIGN_OR_RETURN(auto file, OutputArg(t));
      return PrintAction(t, file, t == "-fprint" ? '\n' : '\0');
    }
    if (t == "-printf") {
      FATHOM_ASSIGN_OR_RETURN(std::string format, Arg(t));
      FATHOM_ASSIGN_OR_RETURN(auto compiled, PrintfFormat::Compile(format, t, warnings_));
      return PrintfAction(t, nullptr, std::move(compiled));
    }
    if (t == "-fprintf") {
      FATHOM_ASSIGN_OR_RETURN(auto file, OutputArg(t));
      FATHOM_ASSIGN_OR_RETURN(std::string format, Arg(t));
      FATHOM_ASSIGN_OR_RETURN(auto compiled, PrintfFormat::Compile(format, t, warnings_));
      return PrintfAction(t, file, std::move(compiled));
    }
    if (t == "-ls") return LsAction(t, nullptr, env_.now_ns);
    if (t == "-fls") {
      FATHOM_ASSIGN_OR_RETURN(auto file, OutputArg(t));
      return LsAction(t, file, env_.now_ns);
    }
    if (t == "-prune" || t == "-quit") {
      expr_.needs_walk = true;
      has_prune_ = has_prune_ || t == "-prune";
      return t == "-prune" ? PruneAction() : QuitAction();
    }
    if (t == "-delete") {
      expr_.options.depth_first = true;
      has_delete_ = true;
      return DeleteAction();
    }
    if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") return ExecArg(t);
    if (t.empty() || t[0] != '-')
      return Status::Error("paths must precede the expression: " + Quote(t) + " (write the starting points first)");
    return Status::Error("unknown predicate " + Quote(t) +
                         (t.size() > 1 && t[1] != '-'
                              ? std::string(" (a starting point that begins with - must be written ./") + t + ")"
                              : std::string(" (GNU find's tests and actions take one dash, e.g. -name)")));
  }

  Result<std::unique_ptr<Predicate>> ExecArg(const std::string& t) {
    ExecSpec spec;
    spec.name = t;
    spec.in_dir = t.ends_with("dir");
    spec.ask = t.starts_with("-ok");
    while (true) {
      if (AtEnd())
        return Status::Error(t + ": missing \";\" or \"+\" at the end of the command (write \\; in a shell)");
      std::string a = args_[pos_++];
      if (a == ";") break;
      if (a == "+" && !spec.argv.empty() && spec.argv.back() == "{}") {
        if (spec.ask) return Status::Error(t + ": the \"{} +\" form is not allowed (use \\; to ask once per file)");
        spec.batch = true;
        break;
      }
      spec.argv.push_back(a);
    }
    if (spec.argv.empty()) return Status::Error(t + ": missing command");
    if (spec.batch) {
      for (size_t i = 0; i + 1 < spec.argv.size(); ++i)
        if (spec.argv[i].find("{}") != std::string::npos)
          return Status::Error(t + ": only one \"{}\" is allowed with \"+\", right before it");
    }
    return ExecAction(std::move(spec));
  }

  Result<std::unique_ptr<Predicate>> TypeArg(const std::string& t) {
    FATHOM_ASSIGN_OR_RETURN(std::string a, Arg(t));
    std::vector<uint32_t> types;
    auto bad = [&] {
      return Status::Error(t + ": " + Quote(a) + " is not a type (use b, c, d, p, f, l, s or D, or a "
                               "comma-separated list of them like f,d)");
    };
    for (size_t i = 0; i < a.size(); i += 2) {
      if (i + 1 < a.size() && a[i + 1] != ',') return bad();
      if (i + 1 == a.size() - 1) return bad();  // a trailing comma
      uint32_t type = 0;
      switch (a[i]) {
        case 'b': type = S_IFBLK; break;
        case 'c': type = S_IFCHR; break;
        case 'd': type = S_IFDIR; break;
        case 'p': type = S_IFIFO; break;
        case 'f': type = S_IFREG; break;
        case 'l': type = S_IFLNK; break;
        case 's': type = S_IFSOCK; break;
        case 'D': type = 0xD000; break;  // Solaris doors: never on Linux
        default: return bad();
      }
      if (std::find(types.begin(), types.end(), type) != types.end())
        return Status::Error(t + ": type " + Quote(std::string(1, a[i])) + " is given twice in " + Quote(a));
      types.push_back(type);
    }
    if (types.empty()) return bad();
    return TypeTest(std::move(types), t == "-xtype");
  }

  Result<std::unique_ptr<Predicate>> SizeArg(const std::string& t) {
    FATHOM_ASSIGN_OR_RETURN(std::string a, Arg(t));
    std::string digits = a;
    int64_t unit = 512;
    if (!digits.empty()) {
      switch (digits.back()) {
        case 'c': unit = 1; break;
        case 'w': unit = 2; break;
        case 'b': unit = 512; break;
        case 'k': unit = 1024; break;
        case 'M': unit = 1024 * 1024; break;
        case 'G': unit = 1024 * 1024 * 1024; break;
        default: unit = 0;
      }
      if (unit != 0) digits.pop_back();
      else unit = 512;
    }
    Number<int64_t> n;
    if (!ParseNumber(digits, n)) return Status::Error(t + ": " + Quote(a) + " is not a size (use N[cwbkMG])");
    return SizeTest(n, unit);
  }

  Result<std::unique_ptr<Predicate>> NewerXYArg(const std::string& t) {
    char x = t[6], y = t[7];
    auto known = [](char c) { return c == 'a' || c == 'c' || c == 'm'; };
    if (x == 'B' || y == 'B')
      return Status::Error(t + ": birth times are not kept in the catalog (use a, c or m)");
    if (!known(x) || !(known(y) || y == 't'))
      return Status::Error("unknown predicate " + Quote(t) + " (use -newerXY with X in a, c, m and Y in a, c, m, t)");
    FATHOM_ASSIGN_OR_RETURN(std::string arg, Arg(t));
    int64_t ref = 0;
    if (y == 't') {
      auto date = ParseDate(arg);
      if (!date.ok()) return Status::Error(t + ": " + date.status().message());
      ref = *date;
    } else {
      FATHOM_ASSIGN_OR_RETURN(Attrs attrs, Reference(t, arg));
      ref = Seconds(attrs, y);
    }
    return NewerTest(t, x, ref);
  }

  const std::vector<std::string>& args_;
  const ParseEnvironment& env_;
  std::vector<std::string>* warnings_;
  size_t pos_ = 0;
  Expression expr_;
  int64_t origin_ns_;
  bool daystart_ = false;
  unsigned long regex_syntax_ = RE_SYNTAX_EMACS;
  bool explicit_depth_ = false;
  bool has_prune_ = false;
  bool has_delete_ = false;
  std::map<std::string, std::shared_ptr<std::ostream>> outputs_;
};

}  // namespace

Result<Expression> Parse(const std::vector<std::string>& args, const ParseEnvironment& env,
                         std::vector<std::string>* warnings) {
  return Parser(args, env, warnings).Run();
}

}  // namespace fathom::catalog::find
