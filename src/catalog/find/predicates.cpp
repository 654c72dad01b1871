// predicates.cpp — find's tests over catalog attributes.
#include "catalog/find/predicates.h"

#include <fnmatch.h>
#include <regex.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/account_names.h"
#include "catalog/find/output_format.h"
#include "catalog/find/regex_cost.h"

namespace fathom::catalog::find {
namespace {

class FunctionTest final : public Predicate {
 public:
  FunctionTest(std::string name, std::function<bool(const Entry&, EvalContext&)> test,
               std::function<void(Selection&)> narrow, bool mode_suffices)
      : name_(std::move(name)), test_(std::move(test)), narrow_(std::move(narrow)), mode_suffices_(mode_suffices) {}
  bool Evaluate(const Entry& entry, EvalContext& ctx) override { return test_(entry, ctx); }
  bool ModeSuffices() const override { return mode_suffices_; }
  bool Narrow(Selection& selection) const override {
    if (!narrow_) return false;
    narrow_(selection);
    return true;
  }
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
  std::function<bool(const Entry&, EvalContext&)> test_;
  std::function<void(Selection&)> narrow_;
  bool mode_suffices_;
};

class RegexPredicate final : public Predicate {
 public:
  explicit RegexPredicate(std::string name) : name_(std::move(name)) {}
  ~RegexPredicate() override { regfree(&re_); }
  RegexPredicate(const RegexPredicate&) = delete;
  RegexPredicate& operator=(const RegexPredicate&) = delete;

  // nullptr when compiled, else glibc's message.
  const char* Compile(const std::string& pattern, unsigned long syntax) {
    re_syntax_options = syntax;
    return re_compile_pattern(pattern.data(), pattern.size(), &re_);
  }
  bool Evaluate(const Entry& entry, EvalContext&) override {
    regoff_t len = static_cast<regoff_t>(entry.path.size());
    return re_match(&re_, entry.path.data(), len, 0, nullptr) == len;
  }
  bool ModeSuffices() const override { return true; }
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
  re_pattern_buffer re_{};
};

void Tighten(std::optional<int64_t>& bound, int64_t v, bool is_min) {
  if (!bound) bound = v;
  else bound = is_min ? std::max(*bound, v) : std::min(*bound, v);
}

int64_t TimeOf(const Attrs& a, char which) {
  return which == 'a' ? a.atime_ns : which == 'c' ? a.ctime_ns : a.mtime_ns;
}

// Saturating a * b for the bounds of a selection.
int64_t Times(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return r;
}

}  // namespace

std::unique_ptr<Predicate> MakeTest(std::string name,
                                    std::function<bool(const Entry&, EvalContext&)> test,
                                    std::function<void(Selection&)> narrow, bool mode_suffices) {
  return std::make_unique<FunctionTest>(std::move(name), std::move(test), std::move(narrow), mode_suffices);
}

std::unique_ptr<Predicate> PatternTest(std::string name, std::string pattern, PatternOn on, bool icase) {
  int flags = icase ? FNM_CASEFOLD : 0;
  std::function<void(Selection&)> narrow;
  if (on == PatternOn::kBaseName) {
    narrow = [pattern, flags](Selection& s) {
      s.name_tests.push_back([pattern, flags](std::string_view n) {
        return fnmatch(pattern.c_str(), std::string(n).c_str(), flags) == 0;
      });
    };
  }
  return MakeTest(std::move(name), [pattern = std::move(pattern), on, flags](const Entry& e, EvalContext&) {
    switch (on) {
      case PatternOn::kBaseName:
        return fnmatch(pattern.c_str(), std::string(BaseName(e.path, true)).c_str(), flags) == 0;
      case PatternOn::kPath:
        return fnmatch(pattern.c_str(), std::string(e.path).c_str(), flags) == 0;
      case PatternOn::kLinkTarget:
        return S_ISLNK(e.node.attrs.mode) &&
               fnmatch(pattern.c_str(), e.node.attrs.symlink.c_str(), flags) == 0;
    }
    return false;
  }, std::move(narrow), on != PatternOn::kLinkTarget);
}

Result<std::unique_ptr<Predicate>> RegexTest(std::string name, const std::string& pattern,
                                             unsigned long syntax, bool icase) {
  // glibc needs about 40 MB for 2,048 positions where every one can be skipped (quadratic
  // beyond), 2 s for a?+?+?+?+?+?+?+?+, and overflows an 8 MiB stack near 30,000 nested
  // groups.
  constexpr double kMaxPositions = 2048;
  constexpr int kMaxDepth = 256;
  constexpr int kMaxRun = 4;
  const RegexCost cost = EstimateRegexCost(pattern);
  if (cost.longest_run > kMaxRun)
    return Status::Error(name + ": \"" + pattern + "\" has more than 4 repetition operators in a row " +
                         "(glibc's regex compiler would need time exponential in them; write one)");
  if (cost.positions > kMaxPositions)
    return Status::Error(name + ": \"" + pattern + "\" expands to more than 2048 positions once its " +
                         "repetitions are copied out (glibc's regex compiler needs memory growing with " +
                         "the square of them); use smaller repetition counts");
  if (cost.depth > kMaxDepth)
    return Status::Error(name + ": \"" + pattern + "\" nests groups more than 256 deep (glibc's regex " +
                         "compiler would overflow its stack)");
  auto p = std::make_unique<RegexPredicate>(name);
  if (const char* error = p->Compile(pattern, syntax | (icase ? RE_ICASE : 0)))
    return Status::Error(name + ": invalid regular expression \"" + pattern + "\": " + error);
  return std::unique_ptr<Predicate>(std::move(p));
}

std::unique_ptr<Predicate> TypeTest(std::vector<uint32_t> types, bool follow) {
  std::function<void(Selection&)> narrow;
  if (types.size() == 1 && !follow) narrow = [t = types[0]](Selection& s) { s.type = t; };
  return MakeTest(
      follow ? "-xtype" : "-type",
      [types = std::move(types), follow](const Entry& e, EvalContext& ctx) {
        uint32_t type = e.node.attrs.mode & S_IFMT;
        if (follow && type == S_IFLNK) {
          Followed target = ctx.stat_follow(e.abs_path);
          if (target.attrs) type = target.attrs->mode & S_IFMT;
        }
        return std::find(types.begin(), types.end(), type) != types.end();
      },
      std::move(narrow), !follow);
}

std::unique_ptr<Predicate> SizeTest(Number<int64_t> n, int64_t unit) {
  auto narrow = [n, unit](Selection& s) {
    switch (n.cmp) {
      case Compare::kGreater: Tighten(s.min_size, Times(n.value, unit) + 1, true); break;
      case Compare::kLess: Tighten(s.max_size, n.value <= 0 ? -1 : Times(n.value - 1, unit), false); break;
      case Compare::kEqual:
        Tighten(s.min_size, n.value <= 0 ? 0 : Times(n.value - 1, unit) + 1, true);
        Tighten(s.max_size, Times(n.value, unit), false);
        break;
    }
  };
  return MakeTest(
      "-size",
      [n, unit](const Entry& e, EvalContext&) {
        int64_t size = std::max<int64_t>(e.node.attrs.size, 0);
        return n.Holds(size / unit + (size % unit != 0 ? 1 : 0));
      },
      narrow);
}

std::unique_ptr<Predicate> AgeTest(std::string name, char which, Number<double> n, int64_t unit_ns,
                                   int64_t origin_ns) {
  // GNU's windows, ages in nanoseconds: in days, N is [N, N+1) days, +N is from N+1 days on,
  // -N is under N days; in minutes, N is (N-1, N] minutes, +N is over N, -N is under N.
  bool minutes = unit_ns < 86400LL * 1000000000LL;
  long double at_n = static_cast<long double>(n.value) * unit_ns;
  long double low = minutes ? at_n - unit_ns : at_n;   // the window for N
  long double high = minutes ? at_n : at_n + unit_ns;
  auto test = [which, n, low, high, at_n, minutes, origin_ns](const Entry& e, EvalContext&) {
    long double age = static_cast<long double>(origin_ns) - TimeOf(e.node.attrs, which);
    switch (n.cmp) {
      case Compare::kGreater: return minutes ? age > at_n : age >= high;
      case Compare::kLess: return age < at_n;
      case Compare::kEqual: return minutes ? (age > low && age <= high) : (age >= low && age < high);
    }
    return false;
  };
  std::function<void(Selection&)> narrow;
  if (which == 'm' && high < 9e18L && low > -9e18L) {
    // The window as mtimes, inclusive: origin - age.
    auto lo = static_cast<int64_t>(low), hi = static_cast<int64_t>(high), mid = static_cast<int64_t>(at_n);
    narrow = [n, lo, hi, mid, minutes, origin_ns](Selection& s) {
      switch (n.cmp) {
        case Compare::kGreater: Tighten(s.max_mtime_ns, origin_ns - (minutes ? mid + 1 : hi), false); break;
        case Compare::kLess: Tighten(s.min_mtime_ns, origin_ns - mid + 1, true); break;
        case Compare::kEqual:
          Tighten(s.min_mtime_ns, origin_ns - hi + (minutes ? 0 : 1), true);
          Tighten(s.max_mtime_ns, origin_ns - lo - (minutes ? 1 : 0), false);
          break;
      }
    };
  }
  return MakeTest(std::move(name), test, std::move(narrow));
}

std::unique_ptr<Predicate> NewerTest(std::string name, char which, int64_t ref_ns) {
  std::function<void(Selection&)> narrow;
  if (which == 'm' && ref_ns < INT64_MAX)
    narrow = [ref_ns](Selection& s) { Tighten(s.min_mtime_ns, ref_ns + 1, true); };
  return MakeTest(
      std::move(name),
      [which, ref_ns](const Entry& e, EvalContext&) { return TimeOf(e.node.attrs, which) > ref_ns; },
      std::move(narrow));
}

std::unique_ptr<Predicate> IdTest(std::string name, IdField field, Number<uint64_t> n) {
  std::function<void(Selection&)> narrow;
  if (n.cmp == Compare::kEqual && n.value <= UINT32_MAX) {
    if (field == IdField::kUid) narrow = [v = static_cast<uint32_t>(n.value)](Selection& s) { s.uid = v; };
    if (field == IdField::kGid) narrow = [v = static_cast<uint32_t>(n.value)](Selection& s) { s.gid = v; };
  }
  return MakeTest(
      std::move(name),
      [field, n](const Entry& e, EvalContext&) {
        const Attrs& a = e.node.attrs;
        switch (field) {
          case IdField::kUid: return n.Holds(a.uid);
          case IdField::kGid: return n.Holds(a.gid);
          case IdField::kLinks: return n.Holds(a.nlink);
          case IdField::kInode: return n.Holds(a.ino);
        }
        return false;
      },
      std::move(narrow));
}

std::unique_ptr<Predicate> PermTest(PermSpec spec) {
  return MakeTest("-perm", [spec](const Entry& e, EvalContext&) { return spec.Matches(e.node.attrs.mode); },
                  nullptr, /*mode_suffices=*/true);
}

std::unique_ptr<Predicate> NoOwnerTest(bool group) {
  return MakeTest(group ? "-nogroup" : "-nouser", [group](const Entry& e, EvalContext& ctx) {
    return group ? !ctx.names->GroupName(e.node.attrs.gid) : !ctx.names->UserName(e.node.attrs.uid);
  });
}

std::unique_ptr<Predicate> EmptyTest() {
  return MakeTest("-empty", [](const Entry& e, EvalContext& ctx) {
    const Attrs& a = e.node.attrs;
    if (S_ISREG(a.mode)) return a.size == 0;
    if (!S_ISDIR(a.mode)) return false;
    auto empty = ctx.dir_is_empty(e.node);
    if (!empty.ok()) {
      *ctx.err << "fathom find: -empty: " << empty.status().message() << "\n";
      ctx.exit_status = 1;
      return false;
    }
    return *empty;
  });
}

std::unique_ptr<Predicate> AccessTest(std::string name, int bit) {
  return MakeTest(std::move(name), [bit](const Entry& e, EvalContext& ctx) {
    std::optional<Attrs> target = e.node.attrs;
    if (S_ISLNK(e.node.attrs.mode)) target = ctx.stat_follow(e.abs_path).attrs;
    if (!target) return false;
    uint32_t mode = target->mode;
    if (ctx.uid == 0) return bit != X_OK || S_ISDIR(mode) || (mode & 0111) != 0;
    int shift = 0;
    if (target->uid == ctx.uid) shift = 6;
    else if (std::find(ctx.gids.begin(), ctx.gids.end(), target->gid) != ctx.gids.end()) shift = 3;
    uint32_t want = bit == R_OK ? 4 : bit == W_OK ? 2 : 1;
    return ((mode >> shift) & want) != 0;
  });
}

std::unique_ptr<Predicate> SameFileTest(uint64_t dev, uint64_t ino) {
  return MakeTest("-samefile", [dev, ino](const Entry& e, EvalContext&) {
    return e.node.attrs.dev == dev && e.node.attrs.ino == ino;
  });
}

std::unique_ptr<Predicate> ConstTest(bool value) {
  return MakeTest(value ? "-true" : "-false", [value](const Entry&, EvalContext&) { return value; }, nullptr,
                  /*mode_suffices=*/true);
}

std::unique_ptr<Predicate> FidTest(std::string fid) {
  return MakeTest("-fid", [fid = std::move(fid)](const Entry& e, EvalContext&) {
    return e.node.attrs.lustre && e.node.attrs.lustre->fid == fid;
  });
}

std::unique_ptr<Predicate> OstTest(uint32_t ost) {
  return MakeTest("-ost", [ost](const Entry& e, EvalContext&) {
    const auto& l = e.node.attrs.lustre;
    return l && std::find(l->osts.begin(), l->osts.end(), ost) != l->osts.end();
  });
}

std::unique_ptr<Predicate> ClassTest(std::string name, const policy::FileClasses& classes, int64_t now_ns) {
  auto narrow = [name, &classes, now_ns](Selection& s) { classes.Narrow(name, s, now_ns); };
  return MakeTest(
      "-class",
      [name, &classes, now_ns](const Entry& e, EvalContext& ctx) {
        condition::Subject s;
        s.path = e.abs_path;
        s.attrs = &e.node.attrs;
        s.user_name = [&](uint32_t uid) { return ctx.names->UserName(uid); };
        s.group_name = [&](uint32_t gid) { return ctx.names->GroupName(gid); };
        return classes.Contains(name, s, now_ns);
      },
      narrow);
}

std::unique_ptr<Predicate> PoolTest(std::string pool) {
  return MakeTest("-pool", [pool = std::move(pool)](const Entry& e, EvalContext&) {
    return e.node.attrs.lustre && e.node.attrs.lustre->pool == pool;
  });
}

std::unique_ptr<Predicate> MdtTest(uint32_t mdt) {
  return MakeTest("-mdt", [mdt](const Entry& e, EvalContext&) {
    return e.node.attrs.lustre && e.node.attrs.lustre->mdt_index == mdt;
  });
}

}  // namespace fathom::catalog::find
