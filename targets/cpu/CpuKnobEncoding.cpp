//===- CpuKnobEncoding.cpp - The CPU's knobs for the cost model -----------===//

#include "cpu/CpuKnobEncoding.h"

#include "cpu/CpuKnobs.h"

#include <algorithm>
#include <cmath>
#include <thread>

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
  const CpuKnobs &c = cpuKnobs(s);
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
  bool parallel = cpuKnobs(s).parallel == ParallelKind::Outer;
  p.parallel = parallel ? 1.0f : 0.0f;
  p.log2Workers = knobLog2(cpuKnobs(s).threads, 11);
  p.allWorkers = parallel && cpuKnobs(s).threads == 0 ? 1.0f : 0.0f;
  if (cpuKnobs(s).vectorLength > 0) {
    p.log2Vector = static_cast<float>(std::log2(cpuKnobs(s).vectorLength)) / 4;
    p.vectorized = 1.0f;
  }
  return p;
}

SpgemmFeatures CpuKnobEncoding::spgemm(const Schedule &s) const {
  SpgemmFeatures f;
  if (s.kernel != KernelType::SpGEMM)
    return f;
  const CpuKnobs &c = cpuKnobs(s);
  f.hashAccumulator = c.accumulator == SpgemmAccumulator::Hash ? 1.0f : 0.0f;
  f.accumulatorAuto = c.accumulator == SpgemmAccumulator::Auto ? 1.0f : 0.0f;
  f.twoPasses = c.passes == SpgemmPasses::Two ? 1.0f : 0.0f;
  f.passesAuto = c.passes == SpgemmPasses::Auto ? 1.0f : 0.0f;
  return f;
}

MttkrpFeatures CpuKnobEncoding::mttkrp(const Schedule &s) const {
  MttkrpFeatures f;
  if (s.kernel != KernelType::MTTKRP)
    return f;
  f.factored = cpuKnobs(s).form == MttkrpForm::Factored ? 1.0f : 0.0f;
  f.entryWise = cpuKnobs(s).form == MttkrpForm::EntryWise ? 1.0f : 0.0f;
  return f;
}

float CpuKnobEncoding::rowOrder(const Schedule &s) const {
  return cpuKnobs(s).rowOrder != RowOrderKind::Natural ? 1.0f : 0.0f;
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
    cpuKnobs(s).parallel = r.coin() ? ParallelKind::Outer : ParallelKind::None;
    cpuKnobs(s).threads = threads[r.pick(8)];
    cpuKnobs(s).omp = r.coin() ? OmpScheduleKind::Dynamic : OmpScheduleKind::Static;
    cpuKnobs(s).chunk = chunks[r.pick(10)];
    cpuKnobs(s).vectorLength = vls[r.pick(4)];
    cpuKnobs(s).simdIndex32 = r.coin();
    s.denseTransposed = static_cast<uint8_t>(
        r.pick(1u << Schedule::denseOperands(kernel).size()));
    out.push_back(canonicalize(s));
  }
  return out;
}

double CpuKnobEncoding::scaleAnalyticalWork(const Schedule &s, double work,
                                            const MatrixStats &st,
                                            double f) const {
  const CpuKnobs &c = cpuKnobs(s);
  if (c.parallel == ParallelKind::Outer) {
    // hardware_concurrency() reads /sys on every call; ask once.
    static const double hw = std::max(1u, std::thread::hardware_concurrency());
    double p = c.threads > 0 ? std::min<double>(c.threads, hw) : hw;
    // Static scheduling of skewed rows waits for the longest chunk.
    double cv = st.rowMean > 0 ? st.rowStd / st.rowMean : 0.0;
    // Dynamic chunks and balanced rows wait for little more than the mean.
    double imbalance =
        c.omp == OmpScheduleKind::Static ? 1.0 + 0.5 * cv : 1.0 + 0.1 * cv;
    work = work * imbalance / p + 2e3 * p;
  }
  if (c.vectorLength > 0) {
    bool innerDense = s.freeRole() && !s.loopOrder.empty() &&
                      s.loopOrder.back() == DimPart{*s.freeRole(), Part::Whole};
    work *= innerDense && f >= c.vectorLength ? 0.6 : 1.05;
  }
  return work;
}
