//===- CpuKnobEncoding.cpp - The CPU's knobs for the cost model -----------===//

#include "cpu/CpuKnobEncoding.h"

using namespace sptune;

const std::vector<std::string> &CpuKnobEncoding::featureNames() const {
  static const std::vector<std::string> names = {
      "parallel",   "log2_threads",  "all_threads", "omp_dynamic",
      "log2_chunk", "default_chunk", "log2_vl",     "simd32",
      // Dense operand layouts (Schedule::denseOperands order): stored
      // transposed, and read with unit stride by the innermost loop.
      "dense0_transposed", "dense0_unit_stride", "dense1_transposed",
      "dense1_unit_stride"};
  return names;
}

/// Whether dense operand `n` is read with unit stride by the innermost loop
/// (its contiguous role is the innermost loop's).
static bool unitStrideInnermost(const Schedule &s, unsigned n) {
  return !s.loopOrder.empty() &&
         n < Schedule::denseOperands(s.kernel).size() &&
         s.loopOrder.back().role == s.contiguousRole(n);
}

void CpuKnobEncoding::encode(const Schedule &s, float *k) const {
  const CpuKnobs &c = s.cpu;
  k[0] = c.parallel == ParallelKind::Outer ? 1.0f : 0.0f;
  k[1] = knobLog2(c.threads, 11);
  k[2] = c.threads == 0 ? 1.0f : 0.0f;
  k[3] = c.omp == OmpScheduleKind::Dynamic ? 1.0f : 0.0f;
  k[4] = knobLog2(c.chunk, 11);
  k[5] = c.chunk == 0 ? 1.0f : 0.0f;
  k[6] = c.vectorLength > 0
             ? static_cast<float>(std::log2(c.vectorLength)) / 4.0f
             : 0.0f;
  k[7] = c.simdIndex32 ? 1.0f : 0.0f;
  for (unsigned n = 0; n < 2; ++n) {
    k[8 + 2 * n] = s.isDenseTransposed(n) ? 1.0f : 0.0f;
    k[9 + 2 * n] = unitStrideInnermost(s, n) ? 1.0f : 0.0f;
  }
}

ParallelismFeatures CpuKnobEncoding::parallelism(const Schedule &s) const {
  ParallelismFeatures p;
  bool parallel = s.cpu.parallel == ParallelKind::Outer;
  p.parallel = parallel ? 1.0f : 0.0f;
  p.log2Workers = knobLog2(s.cpu.threads, 11);
  p.allWorkers = parallel && s.cpu.threads == 0 ? 1.0f : 0.0f;
  if (s.cpu.vectorLength > 0) {
    p.log2Vector = static_cast<float>(std::log2(s.cpu.vectorLength)) / 4;
    p.vectorized = 1.0f;
  }
  return p;
}

std::vector<Schedule> CpuKnobEncoding::sampleKnobs(KernelType kernel,
                                                   size_t count,
                                                   uint64_t seed) const {
  static const int threads[] = {0, 1, 2, 4, 8, 16, 32, 64};
  static const int chunks[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
  static const int vls[] = {0, 4, 8, 16};
  KnobSampler r(seed);
  std::vector<Schedule> out;
  out.reserve(count);
  for (size_t n = 0; n < count; ++n) {
    Schedule s = Schedule::csr(TargetKind::CPU, kernel);
    s.cpu.parallel = r.coin() ? ParallelKind::Outer : ParallelKind::None;
    s.cpu.threads = threads[r.pick(8)];
    s.cpu.omp = r.coin() ? OmpScheduleKind::Dynamic : OmpScheduleKind::Static;
    s.cpu.chunk = chunks[r.pick(10)];
    s.cpu.vectorLength = vls[r.pick(4)];
    s.cpu.simdIndex32 = r.coin();
    s.denseTransposed = static_cast<uint8_t>(
        r.pick(1u << Schedule::denseOperands(kernel).size()));
    out.push_back(canonicalize(s));
  }
  return out;
}
