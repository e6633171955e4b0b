//===- NvvmMeasurer.h - Measure schedules on a CUDA GPU ---------*- C++ -*-===//
//
// Part of sptune. Builds the bench module for a (matrix, kernel, schedule),
// applies the schedule, lowers it with sptune-lower-nvvm (PTX for the
// device's chip), JIT-compiles the host code with MLIR's ExecutionEngine
// against sptune's CUDA runtime, checks the result once against a
// double-precision reference (sptune/Matrix/Reference.h) and times
// repetitions after warm-ups. The time of a call is its device time: the
// runtime's profiler brackets every kernel launch (or cuSPARSE compute call)
// with CUDA events; the end-to-end time with the transfers is reported in
// the details. Compiled kernels are cached by (kernel, shape, schedule).
//
// `measureCusparse` measures the library baseline, cuSPARSE's SpMM / SDDMM
// on CSR called directly (data on the device, CUDA events), checked the
// same way.
//
// SDDMM on the GPU is the sampled product (A B) restricted to the matrix's
// pattern (the in-place form with zero values; what cusparseSDDMM computes);
// its reference is the checksum of S .* (A B) with S's values taken as 1.
//
// A kernel that faults leaves the CUDA context unusable: run measurements in
// a worker process (sptune/Collect/WorkerPool.h), as for the CPU target.
// Untested on a device in this repository's CI (no GPU there).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMMEASURER_H
#define SPTUNE_TARGETS_NVVM_NVVMMEASURER_H

#include "sptune/Target/Measurer.h"

#include <memory>
#include <string>

namespace sptune {

struct NvvmMeasurerOptions {
  /// libsptune_cuda_runtime.so (empty: defaultCudaRuntimePath()).
  std::string runtimePath;
  /// sm_XY; empty: the device's own.
  std::string chip;
  /// +ptxXY; empty: the lowest PTX version the chip needs.
  std::string features;
  /// isa (PTX, JIT-compiled by the driver), bin or fatbin (need ptxas).
  std::string format = "isa";
  /// MLIR's sparse runtime library for sparse tensors (cuSPARSE COO).
  bool sparseRuntimeLibrary = false;
};

class NvvmMeasurer : public Measurer {
public:
  explicit NvvmMeasurer(NvvmMeasurerOptions options = {});
  ~NvvmMeasurer() override;
  TargetKind target() const override { return TargetKind::NVVM; }

  /// Why no measurement can run here (no runtime, driver or device), or
  /// empty; the device's name otherwise in `device`.
  std::string whyUnavailable(std::string *device = nullptr);

  Measurement measure(const CsrMatrix &matrix, const KernelSpec &spec,
                      const Schedule &schedule,
                      const MeasureOptions &options) override;

  /// The cuSPARSE baseline for SpMM and SDDMM (Illegal for SpMV).
  Measurement measureCusparse(const CsrMatrix &matrix, const KernelSpec &spec,
                              const MeasureOptions &options);

  /// "cusparse": measureCusparse.
  Measurement measureBaseline(std::string_view name, const CsrMatrix &matrix,
                              const KernelSpec &spec,
                              const MeasureOptions &options) override;

  /// The lowered module of the last compile (debugging, tests).
  std::string lastModule() const override;

  /// Builds, applies `schedule` to, and lowers the bench module without
  /// running anything (works without a GPU); the lowered text is in
  /// lastModule().
  llvm::Error compileOnly(const KernelSpec &spec, int64_t rows, int64_t cols,
                          const Schedule &schedule);

  /// Also JIT-compiles the host code against the runtime and finds the
  /// bench entry points, without probing a device (tests; needs only the
  /// runtime to load, e.g. with the toolkit's stub driver).
  llvm::Error jitOnly(const KernelSpec &spec, int64_t rows, int64_t cols,
                      const Schedule &schedule);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMMEASURER_H
