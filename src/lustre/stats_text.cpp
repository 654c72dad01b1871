// stats_text.cpp — reading Lustre's job_stats, generic lprocfs stats and brw_stats text.
#include "lustre/stats_text.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "lustre/number_text.h"

namespace fathom::lustre {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ReadUnsigned(std::string_view s, uint64_t* value) { return internal::ReadDec(Trim(s), value); }

// "1767225610.004211000 secs.nsecs", "1546300800.123456 secs.usecs", "1546300800": ns.
bool ReadTime(std::string_view s, uint64_t* ns) {
  s = Trim(s);
  const size_t space = s.find_first_of(" \t");
  if (space != std::string_view::npos) s = s.substr(0, space);
  const size_t dot = s.find('.');
  uint64_t seconds = 0, fraction = 0;
  if (!internal::ReadDec(s.substr(0, dot), &seconds) || seconds > std::numeric_limits<uint64_t>::max() / 1'000'000'000) {
    return false;
  }
  if (dot != std::string_view::npos) {
    std::string_view digits = s.substr(dot + 1);
    if (digits.empty() || digits.size() > 9 || !internal::ReadDec(digits, &fraction)) return false;
    for (size_t i = digits.size(); i < 9; ++i) fraction *= 10;
  }
  *ns = seconds * 1'000'000'000 + fraction;
  return true;
}

using Lines = std::vector<std::string_view>;
Lines SplitLines(std::string_view text) {
  Lines lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// "key: value" (or "key   : value" as 2.15 prints); false without a colon.
bool KeyValue(std::string_view line, std::string_view* key, std::string_view* value) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  *key = Trim(line.substr(0, colon));
  *value = Trim(line.substr(colon + 1));
  return !key->empty();
}

// Splits "a: 1, b: { c: 2 }, d: 3" at the commas outside braces.
std::vector<std::string_view> TopLevelFields(std::string_view s) {
  std::vector<std::string_view> fields;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{') ++depth;
    if (s[i] == '}') --depth;
    if (s[i] == ',' && depth == 0) {
      fields.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (start < s.size()) fields.push_back(Trim(s.substr(start)));
  return fields;
}

// "{ samples: 16, unit: bytes, min: 1, max: 2, sum: 3, sumsq: 4, hist: { 1M: 16 } }".
bool ReadCounter(std::string_view s, StatsCounter* c, std::string* error) {
  s = Trim(s);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') {
    *error = "a counter is not in braces";
    return false;
  }
  bool has_samples = false;
  for (std::string_view field : TopLevelFields(s.substr(1, s.size() - 2))) {
    std::string_view key, value;
    if (field.empty()) continue;
    if (!KeyValue(field, &key, &value)) {
      *error = "counter field '" + std::string(field) + "' has no ':'";
      return false;
    }
    uint64_t n = 0;
    if (key == "unit") {
      c->unit = std::string(value);
      continue;
    }
    if (key == "hist") {
      if (value.size() < 2 || value.front() != '{' || value.back() != '}') {
        *error = "hist is not in braces";
        return false;
      }
      for (std::string_view bucket : TopLevelFields(value.substr(1, value.size() - 2))) {
        std::string_view name, count;
        if (bucket.empty()) continue;
        if (!KeyValue(bucket, &name, &count) || !ReadUnsigned(count, &n)) {
          *error = "hist bucket '" + std::string(bucket) + "' is not NAME: COUNT";
          return false;
        }
        c->hist.emplace_back(std::string(name), n);
      }
      continue;
    }
    if (!ReadUnsigned(value, &n)) {
      *error = "counter field " + std::string(key) + " is not a number: '" + std::string(value) + "'";
      return false;
    }
    if (key == "samples") {
      c->samples = n;
      has_samples = true;
    } else if (key == "min") {
      c->min = n;
      c->has_range = true;
    } else if (key == "max") {
      c->max = n;
      c->has_range = true;
    } else if (key == "sum") {
      c->sum = n;
      c->has_sum = true;
    } else if (key == "sumsq") {
      c->sumsq = n;
      c->has_sumsq = true;
    }  // other numeric fields of a newer release are skipped
  }
  if (!has_samples) *error = "a counter without samples";
  return has_samples;
}

// A job id as 2.16 prints it: bare, or quoted with \xHH, \\ and \" escapes.
bool ReadJobId(std::string_view s, std::string* id) {
  s = Trim(s);
  if (s.empty() || s.front() != '"') {
    *id = std::string(s);
    return !s.empty();
  }
  if (s.size() < 2 || s.back() != '"') return false;
  s = s.substr(1, s.size() - 2);
  id->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      id->push_back(s[i]);
      continue;
    }
    if (i + 1 >= s.size()) return false;
    const char next = s[++i];
    if (next == 'x') {
      if (i + 2 >= s.size()) return false;
      const int hi = internal::HexValue(s[i + 1]);
      const int lo = internal::HexValue(s[i + 2]);
      if (hi < 0 || lo < 0) return false;
      id->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      id->push_back(next);
    }
  }
  return true;
}

bool TimeKey(std::string_view key) { return key == "snapshot_time" || key == "start_time" || key == "elapsed_time"; }

// Sets a time field of the header; false if the value is not a time.
bool SetTime(std::string_view key, std::string_view value, uint64_t* snapshot, uint64_t* start, uint64_t* elapsed,
             bool* has_start) {
  uint64_t ns = 0;
  if (!ReadTime(value, &ns)) return false;
  if (key == "snapshot_time") *snapshot = ns;
  if (key == "start_time") {
    *start = ns;
    *has_start = true;
  }
  if (key == "elapsed_time") *elapsed = ns;
  return true;
}

}  // namespace

JobStatsText ParseJobStats(std::string_view text) {
  JobStatsText out;
  const Lines lines = SplitLines(text);
  auto problem = [&](size_t i, std::string message) { out.problems.push_back({i + 1, std::move(message)}); };
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.empty() || line == "job_stats:") continue;
    if (line.front() == '-') {
      std::string_view key, value;
      if (!KeyValue(line.substr(1), &key, &value) || key != "job_id") {
        problem(i, "a job entry that does not start with job_id");
        continue;
      }
      JobStatsEntry job;
      if (!ReadJobId(value, &job.job_id)) {
        problem(i, "job id '" + std::string(value) + "' cannot be read");
        continue;
      }
      out.jobs.push_back(std::move(job));
      continue;
    }
    std::string_view key, value;
    if (!KeyValue(line, &key, &value)) {
      problem(i, "'" + std::string(line) + "' is not NAME: VALUE");
      continue;
    }
    if (out.jobs.empty()) {
      problem(i, std::string(key) + " before any job_id");
      continue;
    }
    JobStatsEntry& job = out.jobs.back();
    if (TimeKey(key)) {
      if (!SetTime(key, value, &job.snapshot_ns, &job.start_ns, &job.elapsed_ns, &job.has_start)) {
        problem(i, std::string(key) + " '" + std::string(value) + "' is not a time");
      }
      continue;
    }
    if (value.empty() || value.front() != '{') continue;  // a scalar field of a newer release
    StatsCounter counter;
    std::string error;
    if (!ReadCounter(value, &counter, &error)) {
      problem(i, std::string(key) + ": " + error);
      continue;
    }
    job.counters[std::string(key)] = std::move(counter);
  }
  return out;
}

LprocfsStats ParseLprocfsStats(std::string_view text) {
  LprocfsStats out;
  const Lines lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.empty()) continue;
    std::vector<std::string_view> words;
    for (size_t at = 0; at < line.size();) {
      const size_t start = line.find_first_not_of(" \t", at);
      if (start == std::string_view::npos) break;
      const size_t end = line.find_first_of(" \t", start);
      words.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      at = end == std::string_view::npos ? line.size() : end;
    }
    std::string_view name = words[0];
    if (!name.empty() && name.back() == ':') name.remove_suffix(1);
    if (TimeKey(name)) {
      if (words.size() < 2 ||
          !SetTime(name, words[1], &out.snapshot_ns, &out.start_ns, &out.elapsed_ns, &out.has_start)) {
        out.problems.push_back({i + 1, std::string(name) + " has no time"});
      }
      continue;
    }
    // name N samples [unit] [min max sum [sumsq]]
    StatsCounter c;
    if (name.empty() || words.size() < 4 || words[2] != "samples" || !ReadUnsigned(words[1], &c.samples) ||
        words[3].size() < 2 || words[3].front() != '[' || words[3].back() != ']') {
      out.problems.push_back({i + 1, "'" + std::string(line) + "' is not NAME COUNT samples [UNIT] ..."});
      continue;
    }
    c.unit = std::string(words[3].substr(1, words[3].size() - 2));
    uint64_t v[4] = {};
    const size_t numbers = words.size() - 4;
    bool ok = numbers == 0 || numbers == 3 || numbers == 4;
    for (size_t k = 0; ok && k < numbers; ++k) ok = ReadUnsigned(words[4 + k], &v[k]);
    if (!ok) {
      out.problems.push_back({i + 1, "the figures of " + std::string(name) + " are not min max sum [sumsq]"});
      continue;
    }
    if (numbers >= 3) {
      c.has_range = c.has_sum = true;
      c.min = v[0];
      c.max = v[1];
      c.sum = v[2];
    }
    if (numbers == 4) {
      c.has_sumsq = true;
      c.sumsq = v[3];
    }
    out.counters[std::string(name)] = std::move(c);
  }
  return out;
}

BrwStats ParseBrwStats(std::string_view text) {
  BrwStats out;
  const Lines lines = SplitLines(text);
  std::string block;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.empty()) continue;
    std::string_view key, value;
    if (KeyValue(line, &key, &value) && TimeKey(key)) {
      uint64_t unused_start = 0, unused_elapsed = 0;
      bool has_start = false;
      if (!SetTime(key, value, &out.snapshot_ns, &unused_start, &unused_elapsed, &has_start)) {
        out.problems.push_back({i + 1, std::string(key) + " has no time"});
      }
      continue;
    }
    if (TimeKey(line.substr(0, line.find_first_of(" \t")))) {  // "snapshot_time   1.2 secs.nsecs"
      uint64_t unused = 0;
      bool has_start = false;
      const std::string_view name = line.substr(0, line.find_first_of(" \t"));
      SetTime(name, line.substr(name.size()), &out.snapshot_ns, &unused, &unused, &has_start);
      continue;
    }
    const size_t bar = line.find('|');
    if (bar == std::string_view::npos) {
      out.problems.push_back({i + 1, "'" + std::string(line) + "' is neither a block header nor a row"});
      continue;
    }
    const std::string_view left = Trim(line.substr(0, bar));
    if (left == "read") continue;  // "read | write" above each block's header
    if (line.find('%') != std::string_view::npos) {  // "pages per bulk r/w     rpcs  % cum % | ..."
      const size_t columns = left.find("  ");
      block = std::string(Trim(left.substr(0, columns)));
      out.blocks[block];
      continue;
    }
    // "256:		        12 100 100   |   40 100 100"
    const size_t colon = left.find(':');
    uint64_t read = 0, write = 0;
    const std::string_view right = Trim(line.substr(bar + 1));
    auto first_number = [](std::string_view s, uint64_t* n) {
      s = Trim(s);
      return ReadUnsigned(s.substr(0, s.find_first_of(" \t")), n);
    };
    if (block.empty() || colon == std::string_view::npos || !first_number(left.substr(colon + 1), &read) ||
        !first_number(right, &write)) {
      out.problems.push_back({i + 1, "'" + std::string(line) + "' is not a row BUCKET: READ ... | WRITE ..."});
      continue;
    }
    out.blocks[block].push_back({std::string(Trim(left.substr(0, colon))), read, write});
  }
  return out;
}

JobStatsChange DiffJobStats(const JobStatsText& before, const JobStatsText& after) {
  JobStatsChange change;
  std::map<std::string, const JobStatsEntry*> old_jobs;
  for (const JobStatsEntry& j : before.jobs) old_jobs[j.job_id] = &j;
  std::map<std::string, bool> seen;
  for (const JobStatsEntry& now : after.jobs) {
    seen[now.job_id] = true;
    JobStatsDelta delta;
    delta.job_id = now.job_id;
    auto it = old_jobs.find(now.job_id);
    const JobStatsEntry* then = it != old_jobs.end() ? it->second : nullptr;
    bool reset = then == nullptr || (now.has_start && then->has_start && now.start_ns != then->start_ns) ||
                 now.snapshot_ns < then->snapshot_ns;
    for (const auto& [name, c] : now.counters) {
      if (reset || then == nullptr) break;
      auto old = then->counters.find(name);
      if (old != then->counters.end() &&
          (c.samples < old->second.samples || c.sum < old->second.sum || c.sumsq < old->second.sumsq)) {
        reset = true;
      }
    }
    delta.reset = then != nullptr && reset;
    delta.interval_ns = then != nullptr && !reset ? now.snapshot_ns - then->snapshot_ns : now.elapsed_ns;
    for (const auto& [name, c] : now.counters) {
      StatsCounter d = c;
      if (then != nullptr && !reset) {
        auto old = then->counters.find(name);
        if (old != then->counters.end()) {
          d.samples -= old->second.samples;
          d.sum -= old->second.sum;
          d.sumsq -= old->second.sumsq;
          for (auto& [bucket, n] : d.hist) {
            for (const auto& [old_bucket, old_n] : old->second.hist) {
              if (old_bucket == bucket && old_n <= n) n -= old_n;
            }
          }
        }
      }
      delta.counters[name] = std::move(d);
    }
    change.jobs.push_back(std::move(delta));
  }
  for (const JobStatsEntry& j : before.jobs) {
    if (!seen.count(j.job_id)) change.expired.push_back(j.job_id);
  }
  return change;
}

}  // namespace fathom::lustre
