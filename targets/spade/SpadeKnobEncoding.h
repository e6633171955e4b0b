//===- SpadeKnobEncoding.h - SPADE's knobs for the cost model ---*- C++ -*-===//
//
// Part of sptune. PEs used, the barrier between column phases, which streams
// bypass the caches and the row reordering as the SPADE target's knob vector
// of the cost model (9 features).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEKNOBENCODING_H
#define SPTUNE_TARGETS_SPADE_SPADEKNOBENCODING_H

#include "sptune/Target/KnobEncoding.h"

namespace sptune {

class SpadeKnobEncoding : public KnobEncoding {
public:
  const std::vector<std::string> &featureNames() const override;
  void encode(const Schedule &s, float *features) const override;
  ParallelismFeatures parallelism(const Schedule &s) const override;
  float rowOrder(const Schedule &s) const override;
  double scaleAnalyticalWork(const Schedule &s, double work,
                             const MatrixStats &stats,
                             double freeSize) const override;
  std::vector<Schedule> sampleKnobs(KernelType kernel, size_t count,
                                    uint64_t seed) const override;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADEKNOBENCODING_H
