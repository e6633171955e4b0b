//===- RuntimeProfile.h - Device time of launches ---------------*- C++ -*-===//
//
// Part of sptune. Internal to libsptune_cuda_runtime.so: while a profile is
// on (sptuneCudaProfileBegin .. End), each kernel launch and each cuSPARSE
// compute call is bracketed by two timing events on its stream.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMEPROFILE_H
#define SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMEPROFILE_H

#include <cuda.h>

namespace sptune::cuda {

/// Records the device time of the work enqueued on `stream` during its
/// lifetime, when profiling is on. Construct it after the context is
/// current, right before the enqueue.
class ProfiledRegion {
public:
  ProfiledRegion(CUstream stream, const char *where);
  ~ProfiledRegion();
  ProfiledRegion(const ProfiledRegion &) = delete;
  ProfiledRegion &operator=(const ProfiledRegion &) = delete;

private:
  CUstream stream;
  const char *where;
  CUevent start = nullptr;
  CUevent stop = nullptr;
};

} // namespace sptune::cuda

#endif // SPTUNE_TARGETS_NVVM_RUNTIME_RUNTIMEPROFILE_H
