#include "wire/body_reader.h"

#include "core/varint.h"

namespace fathom::wire {

Status BodyReader::Fail(std::string_view what) const {
  std::string text = "wire: ";
  text += message_;
  text += ": ";
  text += what;
  return Status::Error(std::move(text));
}

Status BodyReader::U64(std::string_view field, uint64_t& v) {
  v = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ == body_.size()) {
      return Fail("field " + std::string(field) + " runs past the end of the frame");
    }
    const auto byte = static_cast<uint8_t>(body_[pos_++]);
    if (i == kMaxVarintBytes - 1 && byte > 1) break;  // bits beyond 64
    v |= uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) return Status::Ok();
  }
  return Fail("field " + std::string(field) + " is a varint longer than 64 bits");
}

Status BodyReader::U32(std::string_view field, uint32_t& v) {
  uint64_t wide = 0;
  FATHOM_RETURN_IF_ERROR(U64(field, wide));
  if (wide > UINT32_MAX) {
    return Fail("field " + std::string(field) + " is " + std::to_string(wide) +
                ", more than 32 bits");
  }
  v = static_cast<uint32_t>(wide);
  return Status::Ok();
}

Status BodyReader::Byte(std::string_view field, uint8_t& v) {
  if (pos_ == body_.size()) {
    return Fail("field " + std::string(field) + " runs past the end of the frame");
  }
  v = static_cast<uint8_t>(body_[pos_++]);
  return Status::Ok();
}

Status BodyReader::View(std::string_view field, std::string_view& v) {
  uint64_t n = 0;
  FATHOM_RETURN_IF_ERROR(U64(field, n));
  if (n > remaining()) {
    return Fail("field " + std::string(field) + " has length " + std::to_string(n) +
                " but only " + std::to_string(remaining()) + " bytes remain");
  }
  v = body_.substr(pos_, n);
  pos_ += n;
  return Status::Ok();
}

Status BodyReader::String(std::string_view field, std::string& v) {
  std::string_view view;
  FATHOM_RETURN_IF_ERROR(View(field, view));
  v.assign(view);
  return Status::Ok();
}

Status BodyReader::End() const {
  if (pos_ == body_.size()) return Status::Ok();
  return Fail(std::to_string(remaining()) + " trailing bytes after the last field");
}

}  // namespace fathom::wire
