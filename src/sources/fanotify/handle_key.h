// handle_key.h — a file handle as a hashable, comparable byte string.
//
// Layout: the file system's fsid (8 bytes), the handle type (4 bytes, host order), then the
// handle bytes. Two keys are equal exactly when fanotify (or name_to_handle_at) named the same
// object on the same file system. Plain values; no sharing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fathom::fanotify_internal {

using HandleKey = std::string;

inline constexpr size_t kFsidBytes = 8;
inline constexpr size_t kHandleKeyHeader = kFsidBytes + sizeof(int32_t);

HandleKey MakeHandleKey(const void* fsid, int32_t handle_type, const void* bytes, size_t size);
// MakeHandleKey() into an existing key, reusing its storage (no allocation once it is large
// enough).
void AssignHandleKey(HandleKey& key, const void* fsid, int32_t handle_type, const void* bytes,
                     size_t size);
// The fsid part of a key (empty for a malformed key).
std::string_view KeyFsid(const HandleKey& key);
int32_t KeyHandleType(const HandleKey& key);
// The handle bytes (what struct file_handle::f_handle holds).
std::string_view KeyHandleBytes(const HandleKey& key);

}  // namespace fathom::fanotify_internal
