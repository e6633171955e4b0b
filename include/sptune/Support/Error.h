//===- Error.h - The library-edge error convention --------------*- C++ -*-===//
//
// Part of sptune. Public functions report failure as llvm::Error or
// llvm::Expected<T> carrying the message a user reads (`path:LINE: ...`,
// `illegal: ...`); passes report diagnostics. These helpers make and take
// such errors where a caller keeps the message as text (a tool printing it,
// a worker sending it back, a record storing it).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_ERROR_H
#define SPTUNE_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace sptune {

/// An error whose message is `message` (no error code: sptune's errors are
/// read by people, not matched by callers).
inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Consumes `error`: true, with its message in `message`, if it is a
/// failure; false, leaving `message` alone, if it is a success.
inline bool takeErrorMessage(llvm::Error error, std::string &message) {
  if (!error)
    return false;
  message = llvm::toString(std::move(error));
  return true;
}

/// The value in `value`, or nullopt with the error's message in `message`.
template <typename T>
std::optional<T> takeValue(llvm::Expected<T> value, std::string &message) {
  if (!value) {
    message = llvm::toString(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

/// The message of `error`, or "" for a success (consumes it).
inline std::string errorMessage(llvm::Error error) {
  std::string message;
  takeErrorMessage(std::move(error), message);
  return message;
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_ERROR_H
