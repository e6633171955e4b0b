//===- TorchGuard.h - The exception boundary around LibTorch ----*- C++ -*-===//
//
// Part of sptune. Private to cost-model/lib. LibTorch reports errors by
// throwing (c10::Error, std::bad_alloc, ...), while the cost model's callers
// (the passes, the tools) are built with -fno-exceptions: an exception that
// crosses the public headers (Model.h, Trainer.h, CostModel.h) terminates
// them. Every public entry point that reaches LibTorch therefore runs its
// LibTorch work through `guardTorch`, which turns any exception into an
// llvm::Error naming the operation; the entry point then reports it in its
// own convention (null, empty, false, an error string).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_LIB_TORCHGUARD_H
#define SPTUNE_COSTMODEL_LIB_TORCHGUARD_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <c10/util/Exception.h>

#include <exception>
#include <new>
#include <string>
#include <type_traits>

namespace sptune {
namespace torchimpl {

/// What `guardTorch` returns for a callable returning `R`: llvm::Error for
/// void, llvm::Expected<R> otherwise.
template <class R>
using GuardResult =
    std::conditional_t<std::is_void_v<R>, llvm::Error, llvm::Expected<R>>;

/// The error for an exception caught at the boundary: "<what>: <reason>".
inline llvm::Error torchError(const llvm::Twine &what,
                              const std::string &reason) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (what + ": " + reason).str());
}

/// Runs `fn` (LibTorch work) and returns its result; when it throws, returns
/// an error "<what>: <reason>" instead. `what` names the operation, phrased
/// to read well before the reason (e.g. "scoring the candidates failed").
/// LibTorch's own errors are reported without their C++ backtrace.
template <class F, class R = std::invoke_result_t<F &>>
GuardResult<R> guardTorch(const llvm::Twine &what, F &&fn) {
  std::string reason;
  try {
    if constexpr (std::is_void_v<R>) {
      fn();
      return llvm::Error::success();
    } else {
      return fn();
    }
  } catch (const c10::Error &e) {
    reason = e.what_without_backtrace();
  } catch (const std::bad_alloc &) {
    reason = "out of memory";
  } catch (const std::exception &e) {
    reason = e.what();
  } catch (...) {
    reason = "an unknown exception";
  }
  return torchError(what, reason);
}

/// Consumes `err`, storing its message in `*error` when `error` is given.
inline void reportError(llvm::Error err, std::string *error) {
  std::string message = llvm::toString(std::move(err));
  if (error)
    *error = std::move(message);
}

} // namespace torchimpl
} // namespace sptune

#endif // SPTUNE_COSTMODEL_LIB_TORCHGUARD_H
