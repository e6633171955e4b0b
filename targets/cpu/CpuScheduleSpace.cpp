//===- CpuScheduleSpace.cpp - The CPU target's schedules ------------------===//

#include "cpu/CpuScheduleSpace.h"
#include "cpu/CpuKnobs.h"
#include "sptune/Support/HostCpu.h"

#include <algorithm>
#include <random>
#include <unordered_set>

using namespace sptune;

CpuScheduleSpace::CpuScheduleSpace(CpuSpaceConfig config)
    : cfg(std::move(config)) {}

/// All orders of `parts` that keep each role's outer part before its inner.
static void levelOrders(std::vector<DimPart> parts,
                        std::vector<std::vector<DimPart>> &out) {
  std::sort(parts.begin(), parts.end(), [](DimPart a, DimPart b) {
    return std::make_pair(a.role, a.part) < std::make_pair(b.role, b.part);
  });
  do {
    bool ok = true;
    for (size_t a = 0; a < parts.size() && ok; ++a)
      for (size_t b = a + 1; b < parts.size(); ++b)
        if (parts[a].role == parts[b].role && parts[a].part == Part::Inner &&
            parts[b].part == Part::Outer)
          ok = false;
    if (ok)
      out.push_back(parts);
  } while (std::next_permutation(
      parts.begin(), parts.end(), [](DimPart a, DimPart b) {
        return std::make_pair(a.role, a.part) < std::make_pair(b.role, b.part);
      }));
}

std::vector<Schedule> CpuScheduleSpace::structures(KernelType kernel) const {
  std::vector<Schedule> out;
  Schedule base = Schedule::csr(TargetKind::CPU, kernel);
  Role row = base.rowRole(), col = base.colRole();
  std::optional<Role> free = base.freeRole();
  for (int64_t br : cfg.splits) {
    for (int64_t bc : cfg.splits) {
      std::vector<DimPart> parts;
      for (auto [role, b] : {std::make_pair(row, br), std::make_pair(col, bc)}) {
        if (b > 1) {
          parts.push_back({role, Part::Outer});
          parts.push_back({role, Part::Inner});
        } else {
          parts.push_back({role, Part::Whole});
        }
      }
      std::vector<std::vector<DimPart>> orders;
      levelOrders(parts, orders);
      for (const std::vector<DimPart> &order : orders) {
        size_t numLevels = order.size();
        // Formats: every dense/compressed assignment, plus COO when unsplit.
        std::vector<std::vector<LevelFormat>> formats;
        for (unsigned mask = 0; mask < (1u << numLevels); ++mask) {
          std::vector<LevelFormat> f;
          for (size_t l = 0; l < numLevels; ++l)
            f.push_back(mask & (1u << l) ? LevelFormat::Compressed
                                         : LevelFormat::Dense);
          formats.push_back(f);
        }
        if (cfg.includeCoo && numLevels == 2)
          formats.push_back({LevelFormat::CompressedNU, LevelFormat::Singleton});
        for (const std::vector<LevelFormat> &f : formats) {
          Schedule s = base;
          s.splitRow = br;
          s.splitCol = bc;
          std::vector<StorageLevel> levels;
          for (size_t l = 0; l < numLevels; ++l)
            levels.push_back({order[l], f[l]});
          s.levels = levels;
          // The free loop at each position among the levels.
          size_t positions = free ? numLevels + 1 : 1;
          for (size_t pos = 0; pos < positions; ++pos) {
            s.loopOrder = order;
            if (free)
              s.loopOrder.insert(s.loopOrder.begin() + pos,
                                 DimPart{*free, Part::Whole});
            if (!isLegal(s))
              continue;
            if (cfg.sddmmSparseOutput &&
                !whyIllegalForSparseOutput(s, /*inPlace=*/false).empty())
              continue;
            out.push_back(s);
          }
        }
      }
    }
  }
  return out;
}

/// The number of dense layout combinations of `kernel` the space has.
static uint64_t layoutCombinations(const CpuSpaceConfig &cfg, KernelType k) {
  return cfg.denseLayouts ? uint64_t(1) << Schedule::denseOperands(k).size()
                          : 1;
}

/// The number of combinations of the knobs of `k`'s own kernel (SpGEMM's
/// accumulator and passes, MTTKRP's form; 1 for other kernels, the batched
/// SpMM's among them: its kernel's knobs are parallel and threads).
static uint64_t ownKernelCombinations(const CpuSpaceConfig &cfg, KernelType k) {
  if (k == KernelType::SpGEMM)
    return std::max<uint64_t>(1, cfg.accumulators.size()) *
           std::max<uint64_t>(1, cfg.passes.size());
  if (k == KernelType::MTTKRP)
    return std::max<uint64_t>(1, cfg.mttkrpForms.size());
  return 1;
}

uint64_t CpuScheduleSpace::knobCombinations(KernelType kernel) const {
  uint64_t parallel = 1 + cfg.threads.size() * cfg.omp.size();
  uint64_t vector = 0;
  for (int vl : cfg.vectorLengths)
    vector += vl == 0 ? 1 : 2;
  return cfg.tiles.size() * cfg.widths.size() * parallel * vector *
         layoutCombinations(cfg, kernel) * ownKernelCombinations(cfg, kernel) *
         std::max<uint64_t>(1, cfg.rowOrders.size());
}

void CpuScheduleSpace::applyKnobs(Schedule &s, uint64_t index) const {
  uint64_t parallel = 1 + cfg.threads.size() * cfg.omp.size();
  uint64_t layouts = layoutCombinations(cfg, s.kernel);
  // The knobs of SpGEMM's and MTTKRP's own kernels (set after the others
  // below reset the block).
  uint64_t own = ownKernelCombinations(cfg, s.kernel);
  uint64_t ownIndex = index % own;
  index /= own;
  // (The row order first: with one order, every other knob keeps the index
  // it had before the knob joined the space.)
  uint64_t orders = std::max<uint64_t>(1, cfg.rowOrders.size());
  uint64_t orderIndex = index % orders;
  index /= orders;
  s.denseTransposed = static_cast<uint8_t>(index % layouts);
  index /= layouts;
  s.tile = cfg.tiles[index % cfg.tiles.size()];
  index /= cfg.tiles.size();
  auto [pw, cw] = cfg.widths[index % cfg.widths.size()];
  s.posWidth = pw;
  s.crdWidth = cw;
  index /= cfg.widths.size();
  uint64_t p = index % parallel;
  index /= parallel;
  s.knobBlock.reset();
  if (p > 0) {
    --p;
    cpuKnobs(s).parallel = ParallelKind::Outer;
    cpuKnobs(s).threads = cfg.threads[p % cfg.threads.size()];
    auto [kind, chunk] = cfg.omp[p / cfg.threads.size()];
    cpuKnobs(s).omp = kind;
    cpuKnobs(s).chunk = chunk;
  }
  if (!cfg.rowOrders.empty() &&
      cfg.rowOrders[orderIndex] != RowOrderKind::Natural)
    cpuKnobs(s).rowOrder = cfg.rowOrders[orderIndex];
  if (s.kernel == KernelType::SpGEMM) {
    if (!cfg.accumulators.empty())
      cpuKnobs(s).accumulator =
          cfg.accumulators[ownIndex % cfg.accumulators.size()];
    if (!cfg.passes.empty())
      cpuKnobs(s).passes =
          cfg.passes[ownIndex / std::max<size_t>(1, cfg.accumulators.size()) %
                     cfg.passes.size()];
  }
  if (s.kernel == KernelType::MTTKRP && !cfg.mttkrpForms.empty())
    cpuKnobs(s).form = cfg.mttkrpForms[ownIndex % cfg.mttkrpForms.size()];
  for (int vl : cfg.vectorLengths) {
    uint64_t variants = vl == 0 ? 1 : 2;
    if (index < variants) {
      cpuKnobs(s).vectorLength = vl;
      cpuKnobs(s).simdIndex32 = index == 1;
      return;
    }
    index -= variants;
  }
}

bool CpuScheduleSpace::fitsFreeSize(const Schedule &s, int64_t free) const {
  // More vector lanes than the innermost free loop has iterations (16 lanes
  // for N = 1): every vector is mostly masked off, a cost and no gain.
  std::optional<Role> role = s.freeRole();
  return !role || free <= 0 || s.loopOrder.empty() ||
         s.loopOrder.back() != DimPart{*role, Part::Whole} ||
         cpuKnobs(s).vectorLength <= free;
}

bool CpuScheduleSpace::fitsThisMachine(const Schedule &s) const {
  int threads = cpuKnobs(s).threads;
  if (cpuKnobs(s).parallel == ParallelKind::None || threads <= 0)
    return true;
  if (usableCpus > 0)
    return threads <= usableCpus;
  // The CPUs of the process's affinity mask (what OpenMP's default team
  // runs on); it does not change under a running tuner: asked once.
  static const int allowed = allowedCpuCount();
  return allowed <= 0 || threads <= allowed;
}

bool CpuScheduleSpace::admits(const ProblemShape &shape,
                              const Schedule &s) const {
  if (s.tile > 0 && shape.free > 0 && s.tile >= shape.free)
    return false; // tiling would not split the loop
  if (s.tile > 0 && cpuKnobs(s).vectorLength > 0 && !cfg.vectorizedTiles)
    return false;
  if (!fitsFreeSize(s, shape.free))
    return false;
  // Reverse Cuthill-McKee orders the graph of a square matrix.
  if (cpuKnobs(s).rowOrder != RowOrderKind::Natural && shape.rows > 0 &&
      shape.rows != shape.cols)
    return false;
  if (!isLegal(s) || canonicalize(s) != s)
    return false;
  if (cfg.sddmmSparseOutput &&
      !whyIllegalForSparseOutput(s, /*inPlace=*/false).empty())
    return false;
  if (shape.rows > 0 && shape.cols > 0 &&
      !whyIllegalForShape(s, shape.rows, shape.cols, shape.nnz).empty())
    return false;
  return true;
}

void CpuScheduleSpace::enumerate(
    const ProblemShape &shape,
    const std::function<bool(const Schedule &)> &fn) const {
  uint64_t knobs = knobCombinations(shape.kernel);
  for (Schedule s : structures(shape.kernel)) {
    if (shape.rows > 0 && shape.cols > 0 &&
        !whyIllegalForShape(s, shape.rows, shape.cols, shape.nnz).empty())
      continue;
    for (uint64_t k = 0; k < knobs; ++k) {
      applyKnobs(s, k);
      if (admits(shape, s) && !fn(s))
        return;
    }
  }
}

std::vector<Schedule> CpuScheduleSpace::sample(const ProblemShape &shape,
                                               size_t count,
                                               uint64_t seed) const {
  // SpGEMM's, MTTKRP's and the batched SpMM's few schedules (their
  // kernels' knobs only) are a sliver of the knob grid: rejection sampling
  // would spend its whole budget missing them.
  if (keepsOperandStorage(shape.kernel))
    return ScheduleSpace::sample(shape, count, seed);
  std::vector<Schedule> bases = structures(shape.kernel);
  if (shape.rows > 0 && shape.cols > 0)
    bases.erase(std::remove_if(bases.begin(), bases.end(),
                               [&](const Schedule &s) {
                                 return !whyIllegalForShape(s, shape.rows,
                                                            shape.cols,
                                                            shape.nnz)
                                             .empty();
                               }),
                bases.end());
  std::vector<Schedule> out;
  if (bases.empty())
    return out;
  uint64_t knobs = knobCombinations(shape.kernel);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> pickBase(0, bases.size() - 1);
  std::uniform_int_distribution<uint64_t> pickKnobs(0, knobs - 1);
  std::unordered_set<std::string> seen;
  // Rejection sampling: uniform over (structure, knobs) grid points, keeping
  // canonical legal ones, is uniform over the canonical legal schedules.
  uint64_t attempts = 0, maxAttempts = 200 * count + 10000;
  while (out.size() < count && attempts++ < maxAttempts) {
    Schedule s = bases[pickBase(rng)];
    applyKnobs(s, pickKnobs(rng));
    if (!admits(shape, s))
      continue;
    if (seen.insert(s.str()).second)
      out.push_back(s);
  }
  if (out.size() < count) // small space: fall back to exact enumeration
    return ScheduleSpace::sample(shape, count, seed);
  return out;
}
