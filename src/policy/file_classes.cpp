// file_classes.cpp — FileClasses: each class a condition, or a union, intersection or
// complement of other classes, evaluated with classes named inside conditions answered by
// the same set.
#include "policy/file_classes_impl.h"

#include <algorithm>

namespace fathom::policy {

FileClasses::FileClasses() = default;
FileClasses::~FileClasses() = default;
FileClasses::FileClasses(FileClasses&&) noexcept = default;
FileClasses& FileClasses::operator=(FileClasses&&) noexcept = default;

bool FileClasses::Has(std::string_view name) const { return classes_.find(name) != classes_.end(); }

std::vector<std::string> FileClasses::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, unused] : classes_) names.push_back(name);
  return names;
}

bool FileClasses::Contains(std::string_view name, const condition::Subject& subject, int64_t now_ns) const {
  auto it = classes_.find(name);
  if (it == classes_.end()) return false;
  const Definition& d = *it->second;
  switch (d.kind) {
    case Definition::Kind::kCondition: {
      condition::Subject s = subject;
      s.in_class = [&](std::string_view other) { return Contains(other, subject, now_ns); };
      return d.condition->Matches(s, now_ns);
    }
    case Definition::Kind::kUnion:
      return std::any_of(d.members.begin(), d.members.end(),
                         [&](const std::string& m) { return Contains(m, subject, now_ns); });
    case Definition::Kind::kInter:
      return std::all_of(d.members.begin(), d.members.end(),
                         [&](const std::string& m) { return Contains(m, subject, now_ns); });
    case Definition::Kind::kNot:
      return !Contains(d.members.front(), subject, now_ns);
  }
  return false;
}

void FileClasses::Narrow(std::string_view name, catalog::Selection& selection, int64_t now_ns) const {
  auto it = classes_.find(name);
  if (it == classes_.end()) return;
  const Definition& d = *it->second;
  if (d.kind == Definition::Kind::kCondition) d.condition->Narrow(selection, now_ns);
  if (d.kind == Definition::Kind::kInter) {
    for (const std::string& m : d.members) Narrow(m, selection, now_ns);
  }
}

Status RequireClass(const FileClasses& classes, std::string_view source, std::string_view name) {
  if (classes.Has(name)) return Status::Ok();
  std::string known;
  for (const std::string& n : classes.Names()) known += (known.empty() ? "" : ", ") + n;
  return Status::Error(std::string(source) + " defines no file class \"" + std::string(name) + "\" (it defines: " +
                       (known.empty() ? "none" : known) + ")");
}

}  // namespace fathom::policy
