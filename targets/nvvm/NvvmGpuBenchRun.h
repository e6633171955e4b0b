//===- NvvmGpuBenchRun.h - What sptune-gpu-bench does -----------*- C++ -*-===//
//
// Part of sptune. `sptune-gpu-bench` parses its command line into
// `NvvmGpuBenchOptions` and calls `runNvvmGpuBench`: per matrix and kernel,
// the cuSPARSE baseline and a set of NVVM schedules measured, the fastest
// reported as "tuned" (JSON lines); or one schedule's lowered bench module
// printed (no GPU needed).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMGPUBENCHRUN_H
#define SPTUNE_TARGETS_NVVM_NVVMGPUBENCHRUN_H

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

struct NvvmGpuBenchOptions {
  /// .mtx files or gen: specs.
  std::vector<std::string> matrices;
  /// "spmm", "sddmm" or "all".
  std::string kernels = "all";
  int64_t free = 64;
  /// Element bits: 32 or 64.
  int bits = 32;
  /// Where the JSON lines go (empty: only the summaries, on stdout).
  std::string jsonPath;
  double minSeconds = 0.05;
  int warmups = 3, minReps = 10, maxReps = 500;
  /// sm_XY (empty: the device's).
  std::string chip;
  /// ';'-separated schedules measured instead of the built-in candidates.
  std::string schedules;
  /// Print the lowered bench module of `schedule` for a rows x cols matrix
  /// (or, `jitOnly`, JIT its host code against the runtime) and stop.
  bool emitModule = false, jitOnly = false;
  std::string schedule;
  int64_t rows = 1024, cols = 1024;
};

/// Runs it. Returns the exit status: 0 when every (matrix, kernel) has a
/// baseline and a tuned time, 1 on bad input, 2 when no GPU is usable, 3
/// when a baseline or every candidate failed.
int runNvvmGpuBench(const NvvmGpuBenchOptions &options);

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMGPUBENCHRUN_H
