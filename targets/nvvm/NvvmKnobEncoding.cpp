//===- NvvmKnobEncoding.cpp - NVVM's knobs for the cost model -------------===//

#include "nvvm/NvvmKnobEncoding.h"

#include "nvvm/NvvmKnobs.h"

#include <algorithm>

using namespace sptune;

const std::vector<std::string> &NvvmKnobEncoding::featureNames() const {
  static const std::vector<std::string> names = {"log2_threads", "libgen"};
  return names;
}

void NvvmKnobEncoding::encode(const Schedule &s, float *k) const {
  k[0] = knobLog2(gpuKnobs(s).threads, 10);
  k[1] = gpuKnobs(s).libgen ? 1.0f : 0.0f;
}

ParallelismFeatures NvvmKnobEncoding::parallelism(const Schedule &s) const {
  ParallelismFeatures p;
  p.parallel = 1.0f;
  p.log2Workers = knobLog2(gpuKnobs(s).threads, 11);
  return p;
}

std::vector<Schedule> NvvmKnobEncoding::sampleKnobs(KernelType kernel,
                                                    size_t count,
                                                    uint64_t seed) const {
  static const int threads[] = {32, 64, 128, 256, 512, 1024};
  KnobSampler r(seed);
  std::vector<Schedule> out;
  out.reserve(count);
  for (size_t n = 0; n < count; ++n) {
    Schedule s = Schedule::csr(TargetKind::NVVM, kernel);
    gpuKnobs(s).threads = threads[r.pick(6)];
    gpuKnobs(s).libgen = r.coin();
    out.push_back(canonicalize(s));
  }
  return out;
}

double NvvmKnobEncoding::scaleAnalyticalWork(const Schedule &s, double work,
                                             const MatrixStats &,
                                             double) const {
  const GpuKnobs &g = gpuKnobs(s);
  work /= std::max(1, g.threads) / 32.0 + 1.0;
  if (g.libgen)
    work *= 0.5;
  return work;
}
