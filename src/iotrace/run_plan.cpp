// run_plan.cpp — what `fathom io run` sets up before it starts the program.
#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "fathom/iotrace.h"

namespace fathom::iotrace {
namespace {

namespace fs = std::filesystem;

// argv[0] as exec would find it.
Result<std::string> Resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) {
      return Status::FromErrno(errno, "cannot run " + name);
    }
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return Status::Error("command not found: " + name + " (not in PATH)");
}

// False for an ELF executable without an interpreter (statically linked).
Result<bool> DynamicallyLinked(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::FromErrno(errno, "cannot read " + file);
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof(header));
  if (in.gcount() < 4 || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return true;  // a script: its interpreter is what runs
  }
  if (in.gcount() != sizeof(header) || header.e_ident[EI_CLASS] != ELFCLASS64) return true;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<uint64_t>(i) * header.e_phentsize));
    in.read(reinterpret_cast<char*>(&ph), sizeof(ph));
    if (!in) break;
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

std::string MadeUpJob() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
  return std::string(host) + "-" + when + "-" + std::to_string(getpid());
}

bool SafeJobName(const std::string& job) {
  if (job.empty() || job == "." || job == "..") return false;
  for (char c : job) {
    if (c == '/' || c == '\0') return false;
  }
  return true;
}

}  // namespace

Result<std::string> FindPreloadLibrary(const std::string& file, const char* variable) {
  if (const char* env = std::getenv(variable); env != nullptr && *env != '\0') {
    if (access(env, R_OK) != 0) {
      return Status::FromErrno(errno, std::string(variable) + " names " + env + ", which cannot be read");
    }
    return std::string(env);
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Status::Error("cannot find the fathom executable: " + ec.message(), ec);
  const fs::path dir = self.parent_path();
  for (const fs::path& candidate : {dir / "lib/fathom" / file, dir / "../lib/fathom" / file}) {
    if (fs::exists(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return Status::Error(file + " is not installed beside " + self.string() + " (looked in " +
                       (dir / "lib/fathom").string() + " and " + (dir / "../lib/fathom").string() +
                       "); install fathom (`make install`) or set " + variable);
}

Result<std::string> FindTracerLibrary() { return FindPreloadLibrary("libfathom-io.so", "FATHOM_IO_LIBRARY"); }

Result<RunPlan> PlanRun(const RunOptions& options) {
  if (options.command.empty()) return Status::Error("no command to run: give it after --");
  FATHOM_ASSIGN_OR_RETURN(const std::string program, Resolve(options.command[0]));
  FATHOM_ASSIGN_OR_RETURN(const bool dynamic, DynamicallyLinked(program));
  if (options.quantum_ms == 0) return Status::Error("--quantum-ms must be at least 1");
  RunPlan plan;
  FATHOM_ASSIGN_OR_RETURN(plan.library, options.library.empty() ? FindTracerLibrary()
                                                                 : Result<std::string>(options.library));
  if (!dynamic) {
    return Status::Error(program + " is statically linked: a static program does not load " +
                         fs::path(plan.library).filename().string() +
                         " (LD_PRELOAD), so it cannot be traced; link it dynamically to trace it");
  }
  plan.job = options.job;
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID"}) {
    const char* value = std::getenv(name);
    if (plan.job.empty() && value != nullptr && *value != '\0') plan.job = value;
  }
  if (plan.job.empty()) plan.job = MadeUpJob();
  if (!SafeJobName(plan.job)) {
    return Status::Error("job id '" + plan.job + "' cannot name a directory (it has a '/'); give --job");
  }
  std::error_code ec;
  plan.dir = (fs::absolute(options.out, ec) / plan.job).lexically_normal().string();
  if (ec) return Status::Error("cannot make " + options.out + " absolute: " + ec.message(), ec);
  fs::create_directories(plan.dir, ec);
  if (ec) {
    return Status::Error("cannot make the trace directory " + plan.dir + ": " + ec.message() +
                         "; choose another with --out", ec);
  }
  std::string preload = plan.library;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0') {
    preload += std::string(":") + existing;
  }
  plan.env = {"LD_PRELOAD=" + preload, "FATHOM_IO=1", "FATHOM_IO_DIR=" + plan.dir, "FATHOM_JOB_ID=" + plan.job,
              "FATHOM_IO_QUANTUM_MS=" + std::to_string(options.quantum_ms),
              std::string("FATHOM_IO_COMPRESS=") + (options.compress ? "1" : "0")};
  return plan;
}

}  // namespace fathom::iotrace
