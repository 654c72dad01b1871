#include "fathom/status.h"

#include <cstring>

namespace fathom {

Status Status::Error(std::string message, std::error_code code) {
  Status s;
  s.failed_ = true;
  s.message_ = std::move(message);
  s.code_ = code;
  return s;
}

Status Status::FromErrno(int err, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  return Error(std::move(msg), std::error_code(err, std::generic_category()));
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  Status s = *this;
  s.message_ = std::string(context) + ": " + message_;
  return s;
}

}  // namespace fathom
