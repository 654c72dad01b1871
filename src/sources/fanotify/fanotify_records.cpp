#include "sources/fanotify/fanotify_records.h"

#include <fcntl.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include "fathom/config.h"

namespace fathom::fanotify_internal {
namespace {

// One FID-carrying info record: header, fsid, struct file_handle, then (for *_NAME types) a
// NUL-terminated name. Read with memcpy: the kernel only guarantees 4-byte alignment. The
// pointers and the name point into the read buffer.
struct FidInfo {
  uint8_t type = 0;
  const char* fsid = nullptr;
  int32_t handle_type = 0;
  const char* bytes = nullptr;
  uint32_t handle_bytes = 0;
  std::string_view name;

  void AssignKey(HandleKey& key) const {
    AssignHandleKey(key, fsid, handle_type, bytes, handle_bytes);
  }
};

bool DecodeFid(const char* p, size_t len, FidInfo& info) {
  fanotify_event_info_header hdr;
  if (len < sizeof hdr) return false;
  std::memcpy(&hdr, p, sizeof hdr);
  info.type = hdr.info_type;
  const size_t fsid_at = sizeof hdr;
  const size_t fh_at = fsid_at + kFsidBytes;
  if (len < fh_at + 2 * sizeof(uint32_t)) return false;
  std::memcpy(&info.handle_bytes, p + fh_at, sizeof info.handle_bytes);
  std::memcpy(&info.handle_type, p + fh_at + sizeof info.handle_bytes, sizeof info.handle_type);
  const size_t bytes_at = fh_at + 2 * sizeof(uint32_t);
  if (len < bytes_at + info.handle_bytes) return false;
  info.fsid = p + fsid_at;
  info.bytes = p + bytes_at;
  const size_t name_at = bytes_at + info.handle_bytes;
  info.name = std::string_view(p + name_at, strnlen(p + name_at, len - name_at));
  return true;
}

bool IsNamedType(uint8_t type) {
#if HAVE_FAN_RENAME
  if (type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME || type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME)
    return true;
#endif
  return type == FAN_EVENT_INFO_TYPE_DFID_NAME;
}

// Fills `r` (whose fields are empty) from the info records of one event.
void DecodeInfos(const char* rec, const fanotify_event_metadata& meta, RawRecord& r) {
  r.mask = meta.mask;
  r.pid = meta.pid;
  size_t at = meta.metadata_len;
  bool dir_self = false;
  while (meta.event_len - at >= sizeof(fanotify_event_info_header)) {
    fanotify_event_info_header hdr;
    std::memcpy(&hdr, rec + at, sizeof hdr);
    if (hdr.len == 0 || hdr.len > meta.event_len - at) break;
    FidInfo info;
    if ((hdr.info_type == FAN_EVENT_INFO_TYPE_FID || hdr.info_type == FAN_EVENT_INFO_TYPE_DFID ||
         IsNamedType(hdr.info_type)) &&
        DecodeFid(rec + at, hdr.len, info)) {
      if (info.type == FAN_EVENT_INFO_TYPE_FID) {
        info.AssignKey(r.object);
#if HAVE_FAN_RENAME
      } else if (info.type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME) {
        info.AssignKey(r.new_dir);
        r.new_name.assign(info.name);
#endif
      } else if (info.name.empty() || info.name == ".") {
        info.AssignKey(r.dir);  // the event is on this directory itself
        dir_self = true;
      } else {
        info.AssignKey(r.dir);
        r.name.assign(info.name);
      }
    }
    at += hdr.len;
  }
  if (dir_self && r.object.empty()) {
    r.object.swap(r.dir);
    r.dir.clear();
  }
}

}  // namespace

bool ParseRecordsInto(const void* buf, size_t size, pid_t skip_pid, std::deque<RawRecord>& slots,
                      size_t& count) {
  const char* base = static_cast<const char*>(buf);
  size_t pos = 0;
  while (size - pos >= sizeof(fanotify_event_metadata)) {
    fanotify_event_metadata meta;
    std::memcpy(&meta, base + pos, sizeof meta);
    if (meta.vers != FANOTIFY_METADATA_VERSION) return false;
    if (meta.event_len < meta.metadata_len || meta.event_len > size - pos) return true;
    const char* rec = base + pos;
    pos += meta.event_len;
    if (meta.fd >= 0) close(meta.fd);  // not expected in FID mode; never leak one
    if (meta.pid == skip_pid && !(meta.mask & FAN_Q_OVERFLOW)) continue;
    if (count == slots.size()) slots.emplace_back();
    RawRecord& r = slots[count++];
    r.dir.clear();
    r.name.clear();
    r.new_dir.clear();
    r.new_name.clear();
    r.object.clear();
    DecodeInfos(rec, meta, r);
  }
  return true;
}

}  // namespace fathom::fanotify_internal
