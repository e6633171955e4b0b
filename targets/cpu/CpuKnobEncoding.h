//===- CpuKnobEncoding.h - The CPU's knobs for the cost model ---*- C++ -*-===//
//
// Part of sptune. OpenMP parallelization (threads, schedule kind, chunk) and
// vectorization (vector length, 32-bit SIMD indices) as the CPU target's
// knob vector of the cost model (8 features).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUKNOBENCODING_H
#define SPTUNE_TARGETS_CPU_CPUKNOBENCODING_H

#include "sptune/Target/KnobEncoding.h"

namespace sptune {

class CpuKnobEncoding : public KnobEncoding {
public:
  const std::vector<std::string> &featureNames() const override;
  void encode(const Schedule &s, float *features) const override;
  ParallelismFeatures parallelism(const Schedule &s) const override;
  SpgemmFeatures spgemm(const Schedule &s) const override;
  MttkrpFeatures mttkrp(const Schedule &s) const override;
  float rowOrder(const Schedule &s) const override;
  double scaleAnalyticalWork(const Schedule &s, double work,
                             const MatrixStats &stats,
                             double freeSize) const override;
  std::vector<Schedule> sampleKnobs(KernelType kernel, size_t count,
                                    uint64_t seed) const override;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUKNOBENCODING_H
