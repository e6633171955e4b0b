//===- NvvmKnobEncoding.h - NVVM's knobs for the cost model -----*- C++ -*-===//
//
// Part of sptune. Threads per block of MLIR's GPU code generation and the
// cuSPARSE path as the NVVM target's knob vector of the cost model (2
// features).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMKNOBENCODING_H
#define SPTUNE_TARGETS_NVVM_NVVMKNOBENCODING_H

#include "sptune/Target/KnobEncoding.h"

namespace sptune {

class NvvmKnobEncoding : public KnobEncoding {
public:
  const std::vector<std::string> &featureNames() const override;
  void encode(const Schedule &s, float *features) const override;
  ParallelismFeatures parallelism(const Schedule &s) const override;
  double scaleAnalyticalWork(const Schedule &s, double work,
                             const MatrixStats &stats,
                             double freeSize) const override;
  std::vector<Schedule> sampleKnobs(KernelType kernel, size_t count,
                                    uint64_t seed) const override;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMKNOBENCODING_H
