//===- CudaRuntimeLoader.h - Loading the CUDA runtime -----------*- C++ -*-===//
//
// Part of sptune. The GPU measurer reaches libsptune_cuda_runtime.so through
// dlopen, so that the tools linking it start on machines without a CUDA
// driver (libcuda.so.1) and only a measurement on such a machine fails, with
// a message. The library is loaded once per process with RTLD_GLOBAL: the
// JIT-compiled host code resolves its mgpu* calls in the same instance whose
// profiler and error state the measurer reads.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_CUDARUNTIMELOADER_H
#define SPTUNE_TARGETS_NVVM_CUDARUNTIMELOADER_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace sptune {

/// The C API of SptuneCudaRuntime.h as function pointers.
struct CudaRuntimeApi {
  std::string path; ///< the library that was loaded
  int32_t (*probe)(char *, int64_t) = nullptr;
  int64_t (*errorCount)() = nullptr;
  const char *(*lastError)() = nullptr;
  void (*resetErrors)() = nullptr;
  void (*profileBegin)() = nullptr;
  int64_t (*profileEnd)(double *, int64_t) = nullptr;
  int32_t (*cusparseSpMM)(int64_t, int64_t, int64_t, const int64_t *,
                          const int32_t *, const void *, int32_t, int64_t,
                          const void *, void *, int32_t, int32_t, double *,
                          char *, int64_t) = nullptr;
  int32_t (*cusparseSDDMM)(int64_t, int64_t, int64_t, const int64_t *,
                           const int32_t *, int32_t, int64_t, const void *,
                           const void *, void *, int32_t, int32_t, double *,
                           char *, int64_t) = nullptr;
};

/// The path of the runtime library: $SPTUNE_CUDA_RUNTIME when set, else
/// ../lib/libsptune_cuda_runtime.so next to the running executable (an
/// installed prefix or the build tree), else the one built with this sptune.
std::string defaultCudaRuntimePath();

/// Loads the runtime at `path` (once per process; later calls with another
/// path fail) and checks its API version; the error says why it cannot be
/// used.
llvm::Expected<const CudaRuntimeApi *> loadCudaRuntime(const std::string &path);

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_CUDARUNTIMELOADER_H
