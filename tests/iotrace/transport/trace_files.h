// trace_files.h — what the transport tests share: trace files made by hand, frame by frame,
// and files compared byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "iotrace/trace_format.h"

namespace fathom::iotrace::testing {

// The 16-byte file header.
inline std::string FileHeader() {
  std::string header(format::kFileHeaderSize, '\0');
  format::PutFileHeader(reinterpret_cast<uint8_t*>(header.data()));
  return header;
}

// A frame around `payload`: magic, length, CRC-32 (made wrong when `bad_crc`), payload.
inline std::string Frame(const std::string& payload, bool bad_crc = false) {
  std::string frame(format::kFrameHeaderSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(frame.data());
  format::PutU32(p, format::kFrameMagic);
  format::PutU32(p + 4, static_cast<uint32_t>(payload.size()));
  const uint32_t crc =
      format::Crc32(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  format::PutU32(p + 8, bad_crc ? crc ^ 1u : crc);
  return frame + payload;
}

inline void Append(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << bytes;
  ASSERT_TRUE(out.good()) << path;
}

inline std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every regular file directly inside `dir`, by name, with its bytes.
inline std::map<std::string, std::string> FilesIn(const std::string& dir) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file())
      files[entry.path().filename().string()] = Contents(entry.path().string());
  }
  return files;
}

inline uint64_t TotalBytes(const std::map<std::string, std::string>& files) {
  uint64_t total = 0;
  for (const auto& [name, bytes] : files) total += bytes.size();
  return total;
}

}  // namespace fathom::iotrace::testing
