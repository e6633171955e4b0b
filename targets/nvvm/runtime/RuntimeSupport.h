//===- RuntimeSupport.h - CUDA runtime errors, context ----------*- C++ -*-===//
//
// Part of sptune. Internal to libsptune_cuda_runtime.so: how a failing CUDA
// driver or cuSPARSE call is reported (one line on stderr, recorded for
// sptuneCudaLastError, optional abort), and the CUDA context every entry
// point runs in (the primary context of the default device, pushed for the
// duration of the call).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMESUPPORT_H
#define SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMESUPPORT_H

#include <cuda.h>
#include <cusparse.h>

#include <string>

namespace sptune::cuda {

/// Reports `result` of `call` made in entry point `where` when it is an
/// error; returns true on success.
bool check(CUresult result, const char *call, const char *where);
bool check(cusparseStatus_t status, const char *call, const char *where);
/// Reports an error that is not a failed call (e.g. an unsupported type).
void fail(const char *where, const std::string &message);
/// The last message this thread reported ("" when none).
const std::string &lastThreadError();

/// Checks a driver or cuSPARSE call, naming it in the message.
#define SPTUNE_CU(call, where) ::sptune::cuda::check((call), #call, (where))

/// Makes the primary context of the default device current for its lifetime
/// (and restores the previous one). `ok()` is false when the driver or the
/// device could not be initialized (already reported).
class ScopedContext {
public:
  explicit ScopedContext(const char *where);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
  bool ok() const { return pushed; }

private:
  bool pushed = false;
};

/// The device the primary context belongs to (after a ScopedContext).
CUdevice currentDevice();
/// Sets the ordinal used by the next context initialization.
void setDefaultDevice(int ordinal);
/// Whether the device supports stream-ordered allocation (cuMemAllocAsync).
bool hasMemoryPools();

} // namespace sptune::cuda

#endif // SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMESUPPORT_H
