#include "sources/fanotify/fanotify_records.h"

#include <fcntl.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include <cstring>

#include "fathom/config.h"

namespace fathom::fanotify_internal {
namespace {

// One FID-carrying info record: header, fsid, struct file_handle, then (for *_NAME types) a
// NUL-terminated name. Read with memcpy: the kernel only guarantees 4-byte alignment.
struct FidInfo {
  uint8_t type = 0;
  HandleKey key;
  std::string name;
};

bool DecodeFid(const char* p, size_t len, FidInfo& info) {
  fanotify_event_info_header hdr;
  if (len < sizeof hdr) return false;
  std::memcpy(&hdr, p, sizeof hdr);
  info.type = hdr.info_type;
  const size_t fsid_at = sizeof hdr;
  const size_t fh_at = fsid_at + kFsidBytes;
  if (len < fh_at + 2 * sizeof(uint32_t)) return false;
  uint32_t handle_bytes = 0;
  int32_t handle_type = 0;
  std::memcpy(&handle_bytes, p + fh_at, sizeof handle_bytes);
  std::memcpy(&handle_type, p + fh_at + sizeof handle_bytes, sizeof handle_type);
  const size_t bytes_at = fh_at + 2 * sizeof(uint32_t);
  if (len < bytes_at + handle_bytes) return false;
  info.key = MakeHandleKey(p + fsid_at, handle_type, p + bytes_at, handle_bytes);
  const size_t name_at = bytes_at + handle_bytes;
  info.name.assign(p + name_at, strnlen(p + name_at, len - name_at));
  return true;
}

bool IsNamedType(uint8_t type) {
#if HAVE_FAN_RENAME
  if (type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME || type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME)
    return true;
#endif
  return type == FAN_EVENT_INFO_TYPE_DFID_NAME;
}

}  // namespace

bool ParseRecords(const void* buf, size_t size, pid_t skip_pid, std::vector<RawRecord>& out) {
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
    RawRecord r;
    r.mask = meta.mask;
    r.pid = meta.pid;
    size_t at = meta.metadata_len;
    bool dir_self = false;
    while (meta.event_len - at >= sizeof(fanotify_event_info_header)) {
      fanotify_event_info_header hdr;
      std::memcpy(&hdr, rec + at, sizeof hdr);
      if (hdr.len == 0 || hdr.len > meta.event_len - at) break;
      FidInfo info;
      if (hdr.info_type == FAN_EVENT_INFO_TYPE_FID || hdr.info_type == FAN_EVENT_INFO_TYPE_DFID ||
          IsNamedType(hdr.info_type)) {
        if (DecodeFid(rec + at, hdr.len, info)) {
          if (info.type == FAN_EVENT_INFO_TYPE_FID) {
            r.object = std::move(info.key);
#if HAVE_FAN_RENAME
          } else if (info.type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME) {
            r.new_dir = std::move(info.key);
            r.new_name = std::move(info.name);
#endif
          } else if (info.name.empty() || info.name == ".") {
            r.dir = std::move(info.key);  // the event is on this directory itself
            dir_self = true;
          } else {
            r.dir = std::move(info.key);
            r.name = std::move(info.name);
          }
        }
      }
      at += hdr.len;
    }
    if (dir_self && r.object.empty()) {
      r.object = std::move(r.dir);
      r.dir.clear();
    }
    out.push_back(std::move(r));
  }
  return true;
}

}  // namespace fathom::fanotify_internal
