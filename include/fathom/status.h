// status.h — errors as values.
//
// Status carries success or a human-readable error (what failed, on which path, and what to
// do) plus an optional std::error_code. Result<T> holds either a T or a non-ok Status.
// Both are [[nodiscard]] value types; they are not thread-safe but may be moved across threads.
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace fathom {

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok

  static Status Ok() { return Status(); }
  // A failure described by `message`; `code` optionally classifies it.
  static Status Error(std::string message, std::error_code code = {});
  // A failure of a system call: "<what>: <strerror(err)>".
  static Status FromErrno(int err, std::string_view what);

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }
  std::error_code code() const { return code_; }

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;

 private:
  bool failed_ = false;
  std::string message_;
  std::error_code code_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}   // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace fathom

#define FATHOM_CONCAT_INNER_(a, b) a##b
#define FATHOM_CONCAT_(a, b) FATHOM_CONCAT_INNER_(a, b)

// Returns the Status of `expr` from the enclosing function if it is not ok.
#define FATHOM_RETURN_IF_ERROR(expr)              \
  do {                                            \
    ::fathom::Status fathom_status_ = (expr);     \
    if (!fathom_status_.ok()) return fathom_status_; \
  } while (0)

// Evaluates a Result<T> `expr`; on error returns its Status, else moves the value into `lhs`.
#define FATHOM_ASSIGN_OR_RETURN(lhs, expr) \
  FATHOM_ASSIGN_OR_RETURN_IMPL_(FATHOM_CONCAT_(fathom_result_, __LINE__), lhs, expr)
#define FATHOM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
