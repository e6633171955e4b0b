//===- ConfigurationMapper.cpp - Schedules into model features ------------===//

#include "sptune/CostModel/ConfigurationMapper.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace sptune;

namespace {
/// Offsets of the common feature groups.
enum : int {
  kTargetOff = 0,
  kKernelOff = kTargetOff + 3,
  kFreeOff = kKernelOff + 3, // log2 free, free unknown
  kSplitOff = kFreeOff + 2,  // log2 row, log2 col, row>1, col>1
  kOrderOff = kSplitOff + 4, // vocabulary x positions
  kFormatOff = kOrderOff + kLoopVocabulary * kMaxLoops, // vocabulary x 4
  kLevelsOff = kFormatOff + kLoopVocabulary * 4,        // number of levels
  kWidthOff = kLevelsOff + 1,                           // pos32, crd32
  kTileOff = kWidthOff + 2,      // log2 tile, tiled, tile >= free
  kParallelOff = kTileOff + 3,   // parallel, log2 workers, all
  kVectorOff = kParallelOff + 3, // log2 vl, vectorized
  kDerivedOff = kVectorOff + 2,  // free innermost, reduction outer
  kCommonSize = kDerivedOff + 2
};

constexpr int kCpuKnobs = 8, kNvvmKnobs = 2, kSpadeKnobs = 9;

const char *const kLoopNames[kLoopVocabulary] = {"i",  "i1", "i0", "j", "j1",
                                                 "j0", "k",  "k1", "k0"};
const char *const kFormatNames[4] = {"dense", "compressed", "compressed_nu",
                                     "singleton"};
} // namespace

/// log2(1 + x) scaled to about [0, 1] for x up to 2^scaleBits.
static float log2p(int64_t x, float scaleBits) {
  return static_cast<float>(
             std::log2(1.0 + static_cast<double>(std::max<int64_t>(x, 0)))) /
         scaleBits;
}

int sptune::commonFeatureSize() { return kCommonSize; }

const std::vector<std::string> &sptune::commonFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {
        "target_cpu",     "target_nvvm",    "target_spade", "kernel_spmm",
        "kernel_sddmm",   "kernel_spmv",    "log2_free",    "free_unknown",
        "log2_split_row", "log2_split_col", "split_row",    "split_col"};
    for (const char *loop : kLoopNames)
      for (int p = 0; p < kMaxLoops; ++p)
        n.push_back(std::string("order_") + loop + "_" + std::to_string(p));
    for (const char *loop : kLoopNames)
      for (const char *fmt : kFormatNames)
        n.push_back(std::string("format_") + loop + "_" + fmt);
    for (const char *rest :
         {"num_levels", "pos32", "crd32", "log2_tile", "tiled",
          "tile_covers_free", "parallel", "log2_workers", "all_workers",
          "log2_vector_length", "vectorized", "free_innermost",
          "reduction_outermost"})
      n.push_back(rest);
    return n;
  }();
  return names;
}

int sptune::knobFeatureSize(TargetKind target) {
  switch (target) {
  case TargetKind::CPU:
    return kCpuKnobs;
  case TargetKind::NVVM:
    return kNvvmKnobs;
  case TargetKind::SPADE:
    return kSpadeKnobs;
  }
  return 0;
}

const std::vector<std::string> &sptune::knobFeatureNames(TargetKind target) {
  static const std::vector<std::string> cpu = {
      "parallel",   "log2_threads",  "all_threads", "omp_dynamic",
      "log2_chunk", "default_chunk", "log2_vl",     "simd32"};
  static const std::vector<std::string> nvvm = {"log2_threads", "libgen"};
  static const std::vector<std::string> spade = {
      "log2_pes",      "all_pes",        "barrier",
      "bypass_sparse", "bypass_dense",   "bypass_output",
      "reorder_none",  "reorder_length", "reorder_similarity"};
  switch (target) {
  case TargetKind::CPU:
    return cpu;
  case TargetKind::NVVM:
    return nvvm;
  case TargetKind::SPADE:
    return spade;
  }
  return cpu;
}

int sptune::loopVocabularyIndex(DimPart d) {
  int role = d.role == Role::I ? 0 : d.role == Role::J ? 1 : 2;
  int part = d.part == Part::Whole ? 0 : d.part == Part::Outer ? 1 : 2;
  return role * 3 + part;
}

static void mapKnobs(const Schedule &s, float *k) {
  switch (s.target) {
  case TargetKind::CPU: {
    const CpuKnobs &c = s.cpu;
    k[0] = c.parallel == ParallelKind::Outer ? 1.0f : 0.0f;
    k[1] = log2p(c.threads, 11);
    k[2] = c.threads == 0 ? 1.0f : 0.0f;
    k[3] = c.omp == OmpScheduleKind::Dynamic ? 1.0f : 0.0f;
    k[4] = log2p(c.chunk, 11);
    k[5] = c.chunk == 0 ? 1.0f : 0.0f;
    k[6] = c.vectorLength > 0
               ? static_cast<float>(std::log2(c.vectorLength)) / 4.0f
               : 0.0f;
    k[7] = c.simdIndex32 ? 1.0f : 0.0f;
    break;
  }
  case TargetKind::NVVM:
    k[0] = log2p(s.gpu.threads, 10);
    k[1] = s.gpu.libgen ? 1.0f : 0.0f;
    break;
  case TargetKind::SPADE: {
    const SpadeKnobs &p = s.spade;
    k[0] = log2p(p.pes, 11);
    k[1] = p.pes == 0 ? 1.0f : 0.0f;
    k[2] = p.barrier ? 1.0f : 0.0f;
    k[3] = p.bypassSparse ? 1.0f : 0.0f;
    k[4] = p.bypassDense ? 1.0f : 0.0f;
    k[5] = p.bypassOutput ? 1.0f : 0.0f;
    k[6] = p.reorder == RowReorder::None ? 1.0f : 0.0f;
    k[7] = p.reorder == RowReorder::ByLength ? 1.0f : 0.0f;
    k[8] = p.reorder == RowReorder::BySimilarity ? 1.0f : 0.0f;
    break;
  }
  }
}

void sptune::mapCanonicalSchedule(const Schedule &s, int64_t free, float *out,
                                  float *knobs) {
  std::fill(out, out + kCommonSize, 0.0f);
  out[kTargetOff + static_cast<int>(s.target)] = 1.0f;
  out[kKernelOff + static_cast<int>(s.kernel)] = 1.0f;
  bool hasFree = s.freeRole().has_value();
  if (hasFree && free > 0)
    out[kFreeOff] = log2p(free, 14);
  out[kFreeOff + 1] = hasFree && free <= 0 ? 1.0f : 0.0f;
  out[kSplitOff] = log2p(s.splitRow - 1, 12);
  out[kSplitOff + 1] = log2p(s.splitCol - 1, 12);
  out[kSplitOff + 2] = s.splitRow > 1 ? 1.0f : 0.0f;
  out[kSplitOff + 3] = s.splitCol > 1 ? 1.0f : 0.0f;

  // Loop order as a permutation matrix; a loop past kMaxLoops (illegal
  // schedules only) is dropped rather than written out of bounds.
  for (size_t p = 0; p < s.loopOrder.size() && p < kMaxLoops; ++p)
    out[kOrderOff + loopVocabularyIndex(s.loopOrder[p]) * kMaxLoops + p] = 1.0f;
  for (const StorageLevel &l : s.levels)
    out[kFormatOff + loopVocabularyIndex(l.dim) * 4 +
        static_cast<int>(l.format)] = 1.0f;
  out[kLevelsOff] = static_cast<float>(s.levels.size()) / 4.0f;
  out[kWidthOff] = s.posWidth == 32 ? 1.0f : 0.0f;
  out[kWidthOff + 1] = s.crdWidth == 32 ? 1.0f : 0.0f;
  out[kTileOff] = log2p(s.tile, 14);
  out[kTileOff + 1] = s.tile > 0 ? 1.0f : 0.0f;
  out[kTileOff + 2] = s.tile > 0 && free > 0 && s.tile >= free ? 1.0f : 0.0f;

  // Degree of parallelism and vector length, in target-neutral terms.
  switch (s.target) {
  case TargetKind::CPU:
    out[kParallelOff] = s.cpu.parallel == ParallelKind::Outer ? 1.0f : 0.0f;
    out[kParallelOff + 1] = log2p(s.cpu.threads, 11);
    out[kParallelOff + 2] =
        s.cpu.parallel == ParallelKind::Outer && s.cpu.threads == 0 ? 1.0f
                                                                    : 0.0f;
    if (s.cpu.vectorLength > 0) {
      out[kVectorOff] = static_cast<float>(std::log2(s.cpu.vectorLength)) / 4;
      out[kVectorOff + 1] = 1.0f;
    }
    break;
  case TargetKind::NVVM:
    out[kParallelOff] = 1.0f;
    out[kParallelOff + 1] = log2p(s.gpu.threads, 11);
    break;
  case TargetKind::SPADE:
    out[kParallelOff] = 1.0f;
    out[kParallelOff + 1] = log2p(s.spade.pes, 11);
    out[kParallelOff + 2] = s.spade.pes == 0 ? 1.0f : 0.0f;
    break;
  }
  if (!s.loopOrder.empty()) {
    auto freeRole = s.freeRole();
    out[kDerivedOff] =
        freeRole && s.loopOrder.back() == DimPart{*freeRole, Part::Whole};
    out[kDerivedOff + 1] =
        s.loopOrder.front().role == Schedule::reductionRole(s.kernel);
  }
  mapKnobs(s, knobs);
}

MappedSchedule sptune::mapSchedule(const Schedule &schedule, int64_t free) {
  Schedule s = canonicalize(schedule);
  MappedSchedule m;
  m.target = s.target;
  m.common.resize(kCommonSize);
  m.knobs.resize(knobFeatureSize(s.target));
  mapCanonicalSchedule(s, free, m.common.data(), m.knobs.data());
  return m;
}

std::vector<Schedule> sptune::sampleKnobSettings(TargetKind target,
                                                 KernelType kernel,
                                                 size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x5eed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto coin = [&] { return (rng() & 1) != 0; };
  std::vector<Schedule> out;
  out.reserve(count);
  for (size_t n = 0; n < count; ++n) {
    Schedule s = Schedule::csr(target, kernel);
    switch (target) {
    case TargetKind::CPU: {
      static const int threads[] = {0, 1, 2, 4, 8, 16, 32, 64};
      static const int chunks[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256};
      static const int vls[] = {0, 4, 8, 16};
      s.cpu.parallel = coin() ? ParallelKind::Outer : ParallelKind::None;
      s.cpu.threads = threads[pick(8)];
      s.cpu.omp = coin() ? OmpScheduleKind::Dynamic : OmpScheduleKind::Static;
      s.cpu.chunk = chunks[pick(10)];
      s.cpu.vectorLength = vls[pick(4)];
      s.cpu.simdIndex32 = coin();
      break;
    }
    case TargetKind::NVVM: {
      static const int threads[] = {32, 64, 128, 256, 512, 1024};
      s.gpu.threads = threads[pick(6)];
      s.gpu.libgen = coin();
      break;
    }
    case TargetKind::SPADE: {
      static const int pes[] = {0, 1, 2, 4, 8, 16, 32, 64};
      static const RowReorder reorders[] = {
          RowReorder::None, RowReorder::ByLength, RowReorder::BySimilarity};
      s.spade.pes = pes[pick(8)];
      s.spade.barrier = coin();
      s.spade.bypassSparse = coin();
      s.spade.bypassDense = coin();
      s.spade.bypassOutput = coin();
      s.spade.reorder = reorders[pick(3)];
      break;
    }
    }
    out.push_back(canonicalize(s));
  }
  return out;
}
