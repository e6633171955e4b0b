//===- ErrorTesting.h - Checks of llvm::Error results -----------*- C++ -*-===//
//
// Part of sptune's unit tests. `EXPECT_TRUE(succeeded(f()))` prints the
// error's message when `f` fails; `failed(f())` is true for a failure and
// consumes it. (LLVM's own matchers live in LLVMTestingSupport, which the
// Debian packages do not ship.)
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_ERRORTESTING_H
#define SPTUNE_UNITTESTS_SUPPORT_ERRORTESTING_H

#include "sptune/Support/Error.h"

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <string>

namespace sptune {
namespace test {

inline ::testing::AssertionResult succeeded(llvm::Error error) {
  if (!error)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << llvm::toString(std::move(error));
}

/// For an Expected: checks it holds a value (the value stays in it).
template <typename T>
::testing::AssertionResult succeeded(llvm::Expected<T> &value) {
  return succeeded(value.takeError());
}

/// The value in `value`; a test failure naming the error, and T(), when it
/// holds none.
template <typename T> T value(llvm::Expected<T> value) {
  if (!value) {
    ADD_FAILURE() << llvm::toString(value.takeError());
    return T();
  }
  return std::move(*value);
}

inline bool failed(llvm::Error error) {
  if (!error)
    return false;
  llvm::consumeError(std::move(error));
  return true;
}

template <typename T> bool failed(llvm::Expected<T> &value) {
  return failed(value.takeError());
}

/// Old-style bridges for tests that look into messages: true on success;
/// on failure false with the message in `message` (and `out` reset).
inline bool ok(llvm::Error error, std::string &message) {
  return !takeErrorMessage(std::move(error), message);
}

template <typename T>
bool take(llvm::Expected<T> value, T &out, std::string &message) {
  std::optional<T> taken = takeValue(std::move(value), message);
  out = taken ? std::move(*taken) : T();
  return taken.has_value();
}

} // namespace test
} // namespace sptune

#endif // SPTUNE_UNITTESTS_SUPPORT_ERRORTESTING_H
