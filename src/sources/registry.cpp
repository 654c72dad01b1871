#include <algorithm>

#include "fathom/source.h"

namespace fathom {

void SourceRegistry::Register(SourceInfo info) {
  infos_.push_back(std::move(info));
  std::stable_sort(infos_.begin(), infos_.end(),
                   [](const SourceInfo& a, const SourceInfo& b) { return a.priority > b.priority; });
}

std::vector<std::string> SourceRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& info : infos_) names.push_back(info.name);
  return names;
}

Status SourceRegistry::CheckSettings(const SourceOptions& opts) const {
  for (const auto& setting : opts.settings) {
    const std::string& key = setting.first;
    const bool known = std::any_of(infos_.begin(), infos_.end(), [&](const SourceInfo& info) {
      return std::find(info.settings.begin(), info.settings.end(), key) != info.settings.end();
    });
    if (known) continue;
    std::string valid;
    for (const auto& info : infos_) {
      for (const auto& k : info.settings) valid += (valid.empty() ? "" : ", ") + k;
    }
    return Status::Error("unknown setting '" + key + "' (valid: " + valid + ")");
  }
  for (const auto& info : infos_) {
    if (info.check_settings) FATHOM_RETURN_IF_ERROR(info.check_settings(opts));
  }
  return Status::Ok();
}

Result<std::unique_ptr<Source>> SourceRegistry::Create(
    const std::string& backend, const SourceOptions& opts,
    const std::function<void(const std::string&)>& log) const {
  if (backend != "auto") {
    for (const auto& info : infos_) {
      if (info.name != backend) continue;
      Status usable = info.detect(opts);
      if (!usable.ok()) return usable.WithContext("backend " + backend + " cannot be used");
      return info.create(opts);
    }
    std::string known;
    for (const auto& n : Names()) known += (known.empty() ? "" : ", ") + n;
    return Status::Error("unknown backend '" + backend + "' (known: auto, " + known + ")");
  }
  std::string reasons;
  for (const auto& info : infos_) {
    Status usable = info.auto_detect ? info.auto_detect(opts) : info.detect(opts);
    if (!usable.ok()) {
      log("backend " + info.name + " not used: " + usable.message());
      reasons += "\n  " + info.name + ": " + usable.message();
      continue;
    }
    log("backend " + info.name + " chosen");
    return info.create(opts);
  }
  return Status::Error("no backend can watch these paths:" + reasons);
}

}  // namespace fathom
