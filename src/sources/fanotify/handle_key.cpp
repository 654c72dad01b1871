#include "sources/fanotify/handle_key.h"

#include <cstring>

namespace fathom::fanotify_internal {

HandleKey MakeHandleKey(const void* fsid, int32_t handle_type, const void* bytes, size_t size) {
  HandleKey key;
  AssignHandleKey(key, fsid, handle_type, bytes, size);
  return key;
}

void AssignHandleKey(HandleKey& key, const void* fsid, int32_t handle_type, const void* bytes,
                     size_t size) {
  key.resize(kHandleKeyHeader + size);
  std::memcpy(key.data(), fsid, kFsidBytes);
  std::memcpy(key.data() + kFsidBytes, &handle_type, sizeof handle_type);
  if (size > 0) std::memcpy(key.data() + kHandleKeyHeader, bytes, size);
}

std::string_view KeyFsid(const HandleKey& key) {
  if (key.size() < kHandleKeyHeader) return {};
  return std::string_view(key).substr(0, kFsidBytes);
}

int32_t KeyHandleType(const HandleKey& key) {
  int32_t type = 0;
  if (key.size() >= kHandleKeyHeader) std::memcpy(&type, key.data() + kFsidBytes, sizeof type);
  return type;
}

std::string_view KeyHandleBytes(const HandleKey& key) {
  if (key.size() < kHandleKeyHeader) return {};
  return std::string_view(key).substr(kHandleKeyHeader);
}

}  // namespace fathom::fanotify_internal
