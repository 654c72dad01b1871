// actions.cpp — printing, pruning, deleting and running commands.
#include "catalog/find/actions.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace fathom::catalog::find {
namespace {

std::ostream& Stream(const std::shared_ptr<std::ostream>& file, EvalContext& ctx) {
  return file ? *file : *ctx.out;
}

class PrintPredicate final : public Predicate {
 public:
  PrintPredicate(std::string name, std::function<void(const Entry&, EvalContext&, std::ostream&)> print,
                 std::shared_ptr<std::ostream> file, bool path_only = false)
      : name_(std::move(name)), print_(std::move(print)), file_(std::move(file)), path_only_(path_only) {}
  bool ModeSuffices() const override { return path_only_; }
  bool Evaluate(const Entry& entry, EvalContext& ctx) override {
    print_(entry, ctx, Stream(file_, ctx));
    return true;
  }
  bool IsAction() const override { return true; }
  Status Finish(EvalContext&) override {
    if (file_) file_->flush();
    if (file_ && !*file_) return Status::Error(name_ + ": cannot write the output file");
    return Status::Ok();
  }
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
  std::function<void(const Entry&, EvalContext&, std::ostream&)> print_;
  std::shared_ptr<std::ostream> file_;
  bool path_only_;  // prints the path alone
};

// -prune and -quit: true, and set a flag the driver reads. Not actions for GNU's rule on
// the default -print, but they have effects.
class FlagPredicate final : public Predicate {
 public:
  FlagPredicate(std::string name, bool EvalContext::*flag) : name_(std::move(name)), flag_(flag) {}
  bool Evaluate(const Entry&, EvalContext& ctx) override {
    ctx.*flag_ = true;
    return true;
  }
  bool HasSideEffects() const override { return true; }
  bool ModeSuffices() const override { return true; }
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
  bool EvalContext::*flag_;
};

class DeletePredicate final : public Predicate {
 public:
  bool Evaluate(const Entry& e, EvalContext& ctx) override {
    if (!StillTheSame(e, ctx, "-delete")) return false;
    std::string abs(e.abs_path);
    int rc = S_ISDIR(e.node.attrs.mode) ? rmdir(abs.c_str()) : unlink(abs.c_str());
    if (rc == 0) return true;
    *ctx.err << "fathom find: cannot delete '" << e.path << "': " << std::strerror(errno) << "\n";
    ctx.exit_status = 1;
    return false;
  }
  bool IsAction() const override { return true; }
  std::string_view Name() const override { return "-delete"; }
};

// Runs argv (in `dir` when not empty); returns its exit status, or -1 when it could not run.
int RunCommand(const std::vector<std::string>& argv, const std::string& dir, EvalContext& ctx) {
  ctx.out->flush();
  std::cout.flush();
  std::fflush(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!dir.empty() && chdir(dir.c_str()) != 0) _exit(127);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReplaceBraces(const std::string& arg, std::string_view path) {
  std::string out;
  size_t i = 0;
  while (true) {
    size_t k = arg.find("{}", i);
    if (k == std::string::npos) break;
    out.append(arg, i, k - i);
    out.append(path);
    i = k + 2;
  }
  out.append(arg, i, std::string::npos);
  return out;
}

class ExecPredicate final : public Predicate {
 public:
  explicit ExecPredicate(ExecSpec spec) : spec_(std::move(spec)) {}

  bool Evaluate(const Entry& e, EvalContext& ctx) override {
    if (!StillTheSame(e, ctx, spec_.name)) return false;
    std::string dir;
    std::string path(e.path);
    if (spec_.in_dir) {
      std::string_view abs = e.abs_path;
      size_t slash = abs.rfind('/');
      dir = slash == 0 ? "/" : std::string(abs.substr(0, slash));
      path = "./" + std::string(abs.substr(slash + 1));
    }
    if (spec_.batch) {
      if (pending_dir_ != dir || pending_bytes_ + path.size() > kBatchBytes) Flush(ctx);
      pending_dir_ = dir;
      pending_bytes_ += path.size() + 1;
      pending_.push_back(std::move(path));
      return true;
    }
    std::vector<std::string> argv;
    for (const auto& a : spec_.argv) argv.push_back(ReplaceBraces(a, path));
    if (spec_.ask && !Confirm(argv, ctx)) return false;
    return RunCommand(argv, dir, ctx) == 0;
  }
  Status Finish(EvalContext& ctx) override {
    Flush(ctx);
    return Status::Ok();
  }
  bool IsAction() const override { return true; }
  std::string_view Name() const override { return spec_.name; }

 private:
  static constexpr size_t kBatchBytes = 128 * 1024;

  void Flush(EvalContext& ctx) {
    if (pending_.empty()) return;
    std::vector<std::string> argv(spec_.argv.begin(), spec_.argv.end() - 1);  // the last is "{}"
    argv.insert(argv.end(), pending_.begin(), pending_.end());
    int rc = RunCommand(argv, pending_dir_, ctx);
    if (rc != 0) ctx.exit_status = 1;
    pending_.clear();
    pending_bytes_ = 0;
  }

  static bool Confirm(const std::vector<std::string>& argv, EvalContext& ctx) {
    *ctx.err << "< ";
    for (size_t i = 0; i < argv.size(); ++i) *ctx.err << (i ? " " : "") << argv[i];
    *ctx.err << " > ? ";
    ctx.err->flush();
    char line[256];
    if (std::fgets(line, sizeof line, stdin) == nullptr) return false;
    return line[0] == 'y' || line[0] == 'Y';
  }

  ExecSpec spec_;
  std::vector<std::string> pending_;
  std::string pending_dir_;
  size_t pending_bytes_ = 0;
};

}  // namespace

bool StillTheSame(const Entry& e, EvalContext& ctx, std::string_view action) {
  struct stat st {};
  std::string abs(e.abs_path);
  const Attrs& a = e.node.attrs;
  if (lstat(abs.c_str(), &st) == 0 && st.st_dev == a.dev && st.st_ino == a.ino &&
      (st.st_mode & S_IFMT) == (a.mode & S_IFMT))
    return true;
  *ctx.err << "fathom find: " << action << ": skipping '" << e.path
           << "': it is no longer what the catalog recorded (the catalog is behind the file "
              "system; let it catch up or rescan)\n";
  return false;
}

std::unique_ptr<Predicate> PrintAction(std::string name, std::shared_ptr<std::ostream> file, char terminator) {
  return std::make_unique<PrintPredicate>(
      std::move(name),
      [terminator](const Entry& e, EvalContext&, std::ostream& os) { os << e.path << terminator; },
      std::move(file), /*path_only=*/true);
}

std::unique_ptr<Predicate> PrintfAction(std::string name, std::shared_ptr<std::ostream> file, PrintfFormat format) {
  return std::make_unique<PrintPredicate>(
      std::move(name),
      [format = std::move(format)](const Entry& e, EvalContext& ctx, std::ostream& os) {
        std::string text;
        format.Render(e, ctx, text);
        os << text;
      },
      std::move(file));
}

std::unique_ptr<Predicate> LsAction(std::string name, std::shared_ptr<std::ostream> file, int64_t now_ns) {
  return std::make_unique<PrintPredicate>(
      std::move(name),
      [now_ns](const Entry& e, EvalContext& ctx, std::ostream& os) { os << LsLine(e, ctx, now_ns); },
      std::move(file));
}

std::unique_ptr<Predicate> PruneAction() {
  return std::make_unique<FlagPredicate>("-prune", &EvalContext::prune);
}

std::unique_ptr<Predicate> QuitAction() {
  return std::make_unique<FlagPredicate>("-quit", &EvalContext::quit);
}

std::unique_ptr<Predicate> DeleteAction() { return std::make_unique<DeletePredicate>(); }

std::unique_ptr<Predicate> ExecAction(ExecSpec spec) { return std::make_unique<ExecPredicate>(std::move(spec)); }

}  // namespace fathom::catalog::find
