// body_reader.h — the reading half of the wire encoding: bounds-checked fields of one message.
//
// A BodyReader walks one frame's body and never reads outside it. Each read names its field,
// so a failure reads "wire: Batch: field from_position runs past the end of the frame".
// Views returned by View() point into the frame. One thread; the frame must outlive the reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::wire {

class BodyReader {
 public:
  // `message` names the message in errors ("Batch").
  BodyReader(std::string_view body, std::string_view message) : body_(body), message_(message) {}

  Status U64(std::string_view field, uint64_t& v);
  Status U32(std::string_view field, uint32_t& v);
  Status Byte(std::string_view field, uint8_t& v);
  // A length-prefixed byte string, as a view into the frame.
  Status View(std::string_view field, std::string_view& v);
  Status String(std::string_view field, std::string& v);
  // Fails when bytes remain after the last field.
  Status End() const;

  size_t remaining() const { return body_.size() - pos_; }
  // "wire: <message>: <what>"
  Status Fail(std::string_view what) const;

 private:
  std::string_view body_;
  size_t pos_ = 0;
  std::string_view message_;
};

}  // namespace fathom::wire
