#include "lustre_sim/fuse/control_xattr.h"

#include <charconv>

namespace fathom::lustre_sim {

std::string EncodeMkdirRequest(const MkdirRequest& request) {
  char mode[16];
  auto [end, ec] = std::to_chars(mode, mode + sizeof(mode), request.mode, 8);
  (void)ec;
  return std::to_string(request.mdt) + " " + std::string(mode, end) + " " + request.name;
}

Result<MkdirRequest> DecodeMkdirRequest(std::string_view value) {
  auto bad = [&](std::string_view why) {
    return Status::Error("bad mkdir request '" + std::string(value) + "': " + std::string(why));
  };
  MkdirRequest request;
  size_t sp1 = value.find(' ');
  if (sp1 == std::string_view::npos) return bad("expected 'MDT MODE NAME'");
  size_t sp2 = value.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return bad("expected 'MDT MODE NAME'");
  std::string_view mdt = value.substr(0, sp1);
  std::string_view mode = value.substr(sp1 + 1, sp2 - sp1 - 1);
  request.name = std::string(value.substr(sp2 + 1));
  auto r1 = std::from_chars(mdt.data(), mdt.data() + mdt.size(), request.mdt, 10);
  if (r1.ec != std::errc() || r1.ptr != mdt.data() + mdt.size() || request.mdt < 0) {
    return bad("MDT index is not a number");
  }
  auto r2 = std::from_chars(mode.data(), mode.data() + mode.size(), request.mode, 8);
  if (r2.ec != std::errc() || r2.ptr != mode.data() + mode.size() || request.mode > 07777) {
    return bad("mode is not an octal number");
  }
  if (request.name.empty() || request.name == "." || request.name == ".." ||
      request.name.find('/') != std::string::npos || request.name.find('\0') != std::string::npos) {
    return bad("the name must be one path component");
  }
  return request;
}

std::string EncodeSetstripeRequest(const SetstripeRequest& request) {
  const LayoutSpec& l = request.layout;
  return std::to_string(l.stripe_count) + " " + std::to_string(l.stripe_size) + " " +
         std::to_string(l.stripe_offset) + " " + (l.pool.empty() ? std::string("-") : l.pool) + " " + request.name;
}

Result<SetstripeRequest> DecodeSetstripeRequest(std::string_view value) {
  auto bad = [&](std::string_view why) {
    return Status::Error("bad setstripe request '" + std::string(value) + "': " + std::string(why));
  };
  std::string_view fields[4];
  std::string_view rest = value;
  for (auto& field : fields) {
    size_t sp = rest.find(' ');
    if (sp == std::string_view::npos) return bad("expected 'COUNT SIZE OFFSET POOL NAME'");
    field = rest.substr(0, sp);
    rest.remove_prefix(sp + 1);
  }
  SetstripeRequest request;
  auto number = [](std::string_view text, auto& out) {
    auto r = std::from_chars(text.data(), text.data() + text.size(), out, 10);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
  };
  if (!number(fields[0], request.layout.stripe_count)) return bad("stripe count is not a number");
  if (!number(fields[1], request.layout.stripe_size)) return bad("stripe size is not a number");
  if (!number(fields[2], request.layout.stripe_offset)) return bad("stripe offset is not a number");
  if (fields[3] != "-") request.layout.pool = std::string(fields[3]);
  request.name = std::string(rest);
  if (request.name.empty() || request.name == "." || request.name == ".." ||
      request.name.find('/') != std::string::npos || request.name.find('\0') != std::string::npos) {
    return bad("the name must be one path component");
  }
  return request;
}

std::string EncodeStatsRequest(const StatsRequest& request) {
  switch (request.kind) {
    case StatsRequest::Kind::kDump:
      return "dump";
    case StatsRequest::Kind::kClear:
      return std::string("clear ") + (request.ost ? "ost " : "mdt ") + std::to_string(request.index) + " " + request.job;
    case StatsRequest::Kind::kDelay:
      return "delay " + std::to_string(request.index) + " " + std::to_string(request.value);
    case StatsRequest::Kind::kCleanup:
      return "cleanup " + std::to_string(request.value);
  }
  return "";
}

Result<StatsRequest> DecodeStatsRequest(std::string_view value) {
  auto bad = [&](std::string_view why) {
    return Status::Error("bad statistics request '" + std::string(value) + "': " + std::string(why));
  };
  auto word = [&](std::string_view& rest) {
    const size_t sp = rest.find(' ');
    std::string_view w = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    return w;
  };
  auto number = [](std::string_view text, auto& out) {
    auto r = std::from_chars(text.data(), text.data() + text.size(), out, 10);
    return !text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size();
  };
  std::string_view rest = value;
  const std::string_view verb = word(rest);
  StatsRequest request;
  if (verb == "dump" && rest.empty()) return request;
  if (verb == "clear") {
    request.kind = StatsRequest::Kind::kClear;
    const std::string_view target = word(rest);
    if (target != "ost" && target != "mdt") return bad("expected 'clear ost|mdt INDEX JOB'");
    request.ost = target == "ost";
    if (!number(word(rest), request.index) || request.index < 0) return bad("the index is not a number");
    if (rest.empty()) return bad("no job");
    request.job = std::string(rest);
    return request;
  }
  if (verb == "delay") {
    request.kind = StatsRequest::Kind::kDelay;
    if (!number(word(rest), request.index) || request.index < 0) return bad("the OST index is not a number");
    if (!number(rest, request.value)) return bad("the delay is not a number of microseconds");
    return request;
  }
  if (verb == "cleanup") {
    request.kind = StatsRequest::Kind::kCleanup;
    if (!number(rest, request.value)) return bad("the interval is not a number of seconds");
    return request;
  }
  return bad("expected dump, clear, delay or cleanup");
}

}  // namespace fathom::lustre_sim
