//===- SpadeKnobEncoding.cpp - SPADE's knobs for the cost model -----------===//

#include "spade/SpadeKnobEncoding.h"

#include "spade/SpadeKnobs.h"

using namespace sptune;

const std::vector<std::string> &SpadeKnobEncoding::featureNames() const {
  static const std::vector<std::string> names = {
      "log2_pes",      "all_pes",        "barrier",
      "bypass_sparse", "bypass_dense",   "bypass_output",
      "reorder_none",  "reorder_length", "reorder_similarity"};
  return names;
}

void SpadeKnobEncoding::encode(const Schedule &s, float *k) const {
  const SpadeKnobs &p = spadeKnobs(s);
  k[0] = knobLog2(p.pes, 11);
  k[1] = p.pes == 0 ? 1.0f : 0.0f;
  k[2] = p.barrier ? 1.0f : 0.0f;
  k[3] = p.bypassSparse ? 1.0f : 0.0f;
  k[4] = p.bypassDense ? 1.0f : 0.0f;
  k[5] = p.bypassOutput ? 1.0f : 0.0f;
  k[6] = p.reorder == RowReorder::None ? 1.0f : 0.0f;
  k[7] = p.reorder == RowReorder::ByLength ? 1.0f : 0.0f;
  k[8] = p.reorder == RowReorder::BySimilarity ? 1.0f : 0.0f;
}

float SpadeKnobEncoding::rowOrder(const Schedule &s) const {
  return spadeKnobs(s).reorder != RowReorder::None ? 1.0f : 0.0f;
}

ParallelismFeatures SpadeKnobEncoding::parallelism(const Schedule &s) const {
  ParallelismFeatures p;
  p.parallel = 1.0f;
  p.log2Workers = knobLog2(spadeKnobs(s).pes, 11);
  p.allWorkers = spadeKnobs(s).pes == 0 ? 1.0f : 0.0f;
  return p;
}

std::vector<Schedule> SpadeKnobEncoding::sampleKnobs(KernelType kernel,
                                                     size_t count,
                                                     uint64_t seed) const {
  static const int pes[] = {0, 1, 2, 4, 8, 16, 32, 64};
  static const RowReorder reorders[] = {
      RowReorder::None, RowReorder::ByLength, RowReorder::BySimilarity};
  KnobSampler r(seed);
  std::vector<Schedule> out;
  out.reserve(count);
  for (size_t n = 0; n < count; ++n) {
    Schedule s = Schedule::csr(TargetKind::SPADE, kernel);
    spadeKnobs(s).pes = pes[r.pick(8)];
    spadeKnobs(s).barrier = r.coin();
    spadeKnobs(s).bypassSparse = r.coin();
    spadeKnobs(s).bypassDense = r.coin();
    spadeKnobs(s).bypassOutput = r.coin();
    spadeKnobs(s).reorder = reorders[r.pick(3)];
    out.push_back(canonicalize(s));
  }
  return out;
}

double SpadeKnobEncoding::scaleAnalyticalWork(const Schedule &s, double work,
                                              const MatrixStats &,
                                              double) const {
  const SpadeKnobs &p = spadeKnobs(s);
  work /= p.pes > 0 ? p.pes : 16;
  if (p.bypassSparse)
    work *= 0.95;
  return work;
}
