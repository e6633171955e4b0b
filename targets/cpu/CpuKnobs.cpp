//===- CpuKnobs.cpp - The CPU target's own part of a schedule -------------===//

#include "cpu/CpuKnobs.h"

#include "sptune/Schedule/ScheduleGrammar.h"

#include <string>

using namespace sptune;

char CpuKnobs::ID = 0;

const char *sptune::toString(ParallelKind p) {
  return p == ParallelKind::None ? "none" : "outer";
}

const char *sptune::toString(OmpScheduleKind k) {
  switch (k) {
  case OmpScheduleKind::Static:
    return "static";
  case OmpScheduleKind::Dynamic:
    return "dynamic";
  case OmpScheduleKind::Balanced:
    return "balanced";
  }
  return "static";
}

const char *sptune::toString(RowOrderKind k) {
  return k == RowOrderKind::Rcm ? "rcm" : "none";
}

const char *sptune::toString(SpgemmAccumulator a) {
  switch (a) {
  case SpgemmAccumulator::Auto:
    return "auto";
  case SpgemmAccumulator::Dense:
    return "dense";
  case SpgemmAccumulator::Hash:
    return "hash";
  }
  return "auto";
}

const char *sptune::toString(SpgemmPasses p) {
  switch (p) {
  case SpgemmPasses::Auto:
    return "auto";
  case SpgemmPasses::One:
    return "one";
  case SpgemmPasses::Two:
    return "two";
  }
  return "auto";
}

const char *sptune::toString(MttkrpForm f) {
  switch (f) {
  case MttkrpForm::Auto:
    return "auto";
  case MttkrpForm::Factored:
    return "factored";
  case MttkrpForm::EntryWise:
    return "entry_wise";
  }
  return "auto";
}

bool CpuKnobs::operator==(const CpuKnobs &o) const {
  return parallel == o.parallel && threads == o.threads && omp == o.omp &&
         chunk == o.chunk && vectorLength == o.vectorLength &&
         simdIndex32 == o.simdIndex32 && rowOrder == o.rowOrder &&
         accumulator == o.accumulator && passes == o.passes && form == o.form;
}

std::string sptune::whyNotReorderable(const Schedule &s) {
  if (cpuKnobs(s).omp == OmpScheduleKind::Balanced)
    return "is not combined with omp = balanced (its blocks of rows are cut "
           "by stored entries in storage order)";
  // The rewrite finds the row loop by the positions it reads at the row
  // and the next: a dense level right above a compressed one.
  if (s.levels.size() < 2 || s.levels[0].format != LevelFormat::Dense ||
      s.levels[1].format != LevelFormat::Compressed ||
      s.levels[0].dim.part != Part::Whole || s.loopOrder.empty() ||
      !(s.loopOrder.front() == s.levels[0].dim) ||
      s.levels[0].dim.role == Schedule::reductionRole(s.kernel))
    return "needs the rows of the output walked densely by the outermost "
           "loop, above compressed storage (levels = [x : dense, y : "
           "compressed, ...] with x a loop of the output, outermost)";
  // The order is embedded for the matrix's rows and checked against every
  // dimension of the kernel's sparse operand, which a split makes 3-D or
  // 4-D (found measuring twins of sampled schedules; the lowering then
  // refused them).
  if (s.splitRow != 1 || s.splitCol != 1)
    return "needs unsplit levels (split = [1, 1]): the order is computed "
           "for the matrix's rows, not for blocks of them";
  // A sparse output (SDDMM) is updated in place, row by row independently,
  // only in the form that copies the sample (usesCopiedSampleForm): the
  // reduction innermost, no column panels, unsplit CSR over i. Otherwise
  // the sparsifier inserts the output's rows one after another.
  if (productShape(s.kernel) == ProductShape::SampledMatrixMatrix &&
      (!(s.loopOrder.back().role == Schedule::reductionRole(s.kernel)) ||
       s.tile != 0 || s.levels.size() != 2 || s.splitRow != 1 ||
       s.splitCol != 1 || s.levels[0].dim.role != Role::I))
    return "on SDDMM needs the sample updated in place: the reduction loop "
           "innermost, no column panels, unsplit compressed rows of i (else "
           "the sparsifier inserts the sparse output's rows one after "
           "another, in storage order)";
  return "";
}

std::string sptune::whyNotBalanceable(const Schedule &s) {
  const CpuKnobs &c = cpuKnobs(s);
  if (c.parallel != ParallelKind::Outer)
    return "needs parallel = outer";
  if (c.chunk != 0)
    return "takes no chunk (each thread gets one block of rows)";
  // The rows are cut by the positions of the level below the outer one,
  // which the outer loop must walk densely, row by row.
  if (s.levels.size() != 2 || s.levels[0].format != LevelFormat::Dense ||
      s.levels[1].format != LevelFormat::Compressed ||
      s.levels[0].dim.part != Part::Whole || s.loopOrder.empty() ||
      !(s.loopOrder.front() == s.levels[0].dim))
    return "needs compressed rows (levels = [x : dense, y : compressed]) "
           "with the outer level's loop outermost";
  return "";
}

namespace {
class CpuTargetKnobs : public TargetKnobsOf<CpuKnobs> {
public:
  TargetKind target() const override { return TargetKind::CPU; }
  bool hasDenseLayouts() const override { return true; }

  void print(const Schedule &s, std::string &out) const override {
    const CpuKnobs &c = cpuKnobs(s);
    out += std::string(", parallel = ") + toString(c.parallel) +
           ", threads = " + std::to_string(c.threads) +
           ", omp = " + toString(c.omp) +
           ", chunk = " + std::to_string(c.chunk) +
           ", vl = " + std::to_string(c.vectorLength) +
           ", simd32 = " + (c.simdIndex32 ? "true" : "false");
    if (c.rowOrder != RowOrderKind::Natural)
      out += std::string(", reorder = ") + toString(c.rowOrder);
    if (c.accumulator != SpgemmAccumulator::Auto)
      out += std::string(", accumulator = ") + toString(c.accumulator);
    if (c.passes != SpgemmPasses::Auto)
      out += std::string(", passes = ") + toString(c.passes);
    if (c.form != MttkrpForm::Auto)
      out += std::string(", form = ") + toString(c.form);
  }

  KnobParseResult parseKnob(std::string_view key, ScheduleTokenSource &t,
                            Schedule &s) const override {
    static const ParallelKind kParallel[] = {ParallelKind::None,
                                             ParallelKind::Outer};
    static const OmpScheduleKind kOmp[] = {OmpScheduleKind::Static,
                                           OmpScheduleKind::Dynamic,
                                           OmpScheduleKind::Balanced};
    static const RowOrderKind kRowOrder[] = {RowOrderKind::Natural,
                                             RowOrderKind::Rcm};
    static const SpgemmAccumulator kAccumulator[] = {SpgemmAccumulator::Auto,
                                                     SpgemmAccumulator::Dense,
                                                     SpgemmAccumulator::Hash};
    static const SpgemmPasses kPasses[] = {
        SpgemmPasses::Auto, SpgemmPasses::One, SpgemmPasses::Two};
    static const MttkrpForm kForm[] = {MttkrpForm::Auto, MttkrpForm::Factored,
                                       MttkrpForm::EntryWise};
    bool ok;
    if (key == "parallel")
      ok = parseEnum(t, cpuKnobs(s).parallel, kParallel, "parallelization");
    else if (key == "threads")
      ok = parseInt(t, cpuKnobs(s).threads);
    else if (key == "omp")
      ok = parseEnum(t, cpuKnobs(s).omp, kOmp, "OpenMP schedule");
    else if (key == "chunk")
      ok = parseInt(t, cpuKnobs(s).chunk);
    else if (key == "vl")
      ok = parseInt(t, cpuKnobs(s).vectorLength);
    else if (key == "simd32")
      ok = parseBool(t, cpuKnobs(s).simdIndex32);
    else if (key == "reorder")
      ok = parseEnum(t, cpuKnobs(s).rowOrder, kRowOrder, "row order");
    else if (key == "accumulator")
      ok = parseEnum(t, cpuKnobs(s).accumulator, kAccumulator,
                     "SpGEMM accumulator");
    else if (key == "passes")
      ok = parseEnum(t, cpuKnobs(s).passes, kPasses, "SpGEMM passes");
    else if (key == "form")
      ok = parseEnum(t, cpuKnobs(s).form, kForm, "MTTKRP form");
    else
      return KnobParseResult::NotAKnob;
    return ok ? KnobParseResult::Parsed : KnobParseResult::Failed;
  }

  std::string whyIllegal(const Schedule &s) const override {
    const CpuKnobs &c = cpuKnobs(s);
    if (c.threads < 0 || c.threads > kMaxCpuThreads)
      return "thread count must be in [0, " + std::to_string(kMaxCpuThreads) +
             "]";
    if (c.chunk < 0)
      return "chunk must be non-negative";
    if (c.vectorLength != 0 && c.vectorLength != 4 && c.vectorLength != 8 &&
        c.vectorLength != 16)
      return "vector length must be 0, 4, 8 or 16";
    // SpGEMM's kernel cuts its rows into one block of equal work per thread
    // and keeps its sums as `accumulator` says: no OpenMP schedule, chunk,
    // vectors or row order of the sparsifier's loops applies to it; its
    // knobs apply to it alone.
    bool spgemm = s.kernel == KernelType::SpGEMM;
    if (spgemm && (c.omp != OmpScheduleKind::Static || c.chunk != 0 ||
                   c.vectorLength != 0 || c.simdIndex32 ||
                   c.rowOrder != RowOrderKind::Natural))
      return "an SpGEMM kernel takes parallel, threads, accumulator and "
             "passes only (its rows are cut into one block of equal work per "
             "thread): omp = static, chunk = 0, vl = 0, simd32 = false and no "
             "reorder";
    if (!spgemm && (c.accumulator != SpgemmAccumulator::Auto ||
                    c.passes != SpgemmPasses::Auto))
      return "accumulator and passes are knobs of SpGEMM kernels only";
    // Likewise MTTKRP's kernel: one block of slices of equal work per
    // thread, each slice summed as `form` says.
    bool mttkrp = s.kernel == KernelType::MTTKRP;
    if (mttkrp && (c.omp != OmpScheduleKind::Static || c.chunk != 0 ||
                   c.vectorLength != 0 || c.simdIndex32 ||
                   c.rowOrder != RowOrderKind::Natural))
      return "an MTTKRP kernel takes parallel, threads and form only (its "
             "slices are cut into one block of equal work per thread): omp "
             "= static, chunk = 0, vl = 0, simd32 = false and no reorder";
    if (!mttkrp && c.form != MttkrpForm::Auto)
      return "form is a knob of MTTKRP kernels only";
    // And the batched SpMM's: one block of rows (of every batch) of equal
    // work per thread, each row's sums in vector registers.
    if (s.kernel == KernelType::BatchedSpMM &&
        (c.omp != OmpScheduleKind::Static || c.chunk != 0 ||
         c.vectorLength != 0 || c.simdIndex32 ||
         c.rowOrder != RowOrderKind::Natural))
      return "a batched SpMM kernel takes parallel and threads only (its rows "
             "are cut into one block of equal work per thread): omp = "
             "static, chunk = 0, vl = 0, simd32 = false and no reorder";
    // Found by sptune-fuzz, reproduced with mlir-opt 22.1: vectorized SpMV
    // over COO storage (either orientation) computes wrong sums; and so does
    // any vectorized innermost loop over a singleton level once its dense
    // operand is read with unit stride along it (SpMM over COO with
    // layout = [b : k] and k innermost, or [c : i] and i innermost: the
    // vectorizer gathers by coordinate and gets the sums wrong).
    if (c.vectorLength > 0) {
      for (const StorageLevel &l : s.levels)
        if (l.format == LevelFormat::Singleton &&
            (!s.freeRole() ||
             (!s.loopOrder.empty() && s.loopOrder.back() == l.dim)))
          return "vectorizing an innermost loop over a COO (singleton) level "
                 "computes wrong results (MLIR sparse vectorizer)";
    }
    if (c.omp == OmpScheduleKind::Balanced) {
      std::string why = whyNotBalanceable(s);
      if (!why.empty())
        return "omp = balanced " + why;
    }
    if (c.rowOrder != RowOrderKind::Natural) {
      std::string why = whyNotReorderable(s);
      if (!why.empty())
        return std::string("reorder = ") + toString(c.rowOrder) + " " + why;
    }
    // Reproduced with mlir-opt 22.1: the sparsifier parallelizes the
    // outermost loop even when it is the reduction (SpMM over CSC with
    // order [k, i, j] becomes an OpenMP loop over k whose iterations add
    // into the same rows of C unsynchronized). The tuner's candidates never
    // ask for it (canonicalize turns it off); a hand-written one is refused.
    if (c.parallel == ParallelKind::Outer && !s.loopOrder.empty() &&
        s.loopOrder.front().role == Schedule::reductionRole(s.kernel))
      return "parallel = outer would run the outermost loop '" +
             s.loopOrder.front().str() +
             "', a reduction, in parallel: its iterations add into the same "
             "output elements (a data race); put a loop of the output "
             "outermost, or use parallel = none";
    return "";
  }

  void canonicalize(Schedule &s) const override {
    CpuKnobs c = cpuKnobs(s);
    // No parallel reduction loop outermost (whyIllegal: the sparsifier
    // would parallelize it and race on the output), and no parallel outer
    // loop over a non-unique (COO) level, which the sparsifier emits as a
    // while loop and runs sequentially.
    if (c.parallel == ParallelKind::Outer && !s.loopOrder.empty()) {
      const DimPart &outer = s.loopOrder.front();
      if (outer.role == Schedule::reductionRole(s.kernel))
        c.parallel = ParallelKind::None;
      for (const StorageLevel &l : s.levels)
        if (l.dim == outer && l.format == LevelFormat::CompressedNU)
          c.parallel = ParallelKind::None;
    }
    if (c.parallel == ParallelKind::None) {
      c.threads = 0;
      c.omp = OmpScheduleKind::Static;
      c.chunk = 0;
    }
    if (c.vectorLength == 0)
      c.simdIndex32 = false;
    if (!(c == cpuKnobs(static_cast<const Schedule &>(s))))
      cpuKnobs(s) = c;
  }
};
} // namespace

const TargetKnobs &sptune::cpuTargetKnobs() {
  static const CpuTargetKnobs knobs;
  return knobs;
}

std::string sptune::whyBadThreadsOption(int threads) {
  if (threads >= -1 && threads <= kMaxCpuThreads)
    return "";
  return "threads must be -1 (from the schedules) or in [0, " +
         std::to_string(kMaxCpuThreads) + "], got " + std::to_string(threads);
}
