//===- CpuSparsify.cpp - sptune-cpu-sparsify ------------------------------===//
//
// Upstream's sparsifier takes its parallelization strategy and vector length
// as module-wide options; this pass reads them off the schedules and runs the
// upstream sparsification-and-bufferization mini-pipeline with them.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuPasses.h"

#include "cpu/BatchedRowsSpmm.h"
#include "cpu/CpuKnobs.h"
#include "cpu/FactoredMttkrp.h"
#include "cpu/GustavsonSpgemm.h"
#include "cpu/KernelOutlining.h"
#include "cpu/RowOrder.h"
#include "cpu/SampledAggregation.h"
#include "cpu/UnscheduledKernels.h"

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/Analysis/SpgemmForm.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/UpstreamCrash.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <limits>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUSPARSIFY
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
/// The module-wide sparsifier settings a schedule asks for.
struct SparsifierSettings {
  SparseParallelizationStrategy parallelization =
      SparseParallelizationStrategy::kNone;
  unsigned vectorLength = 0;
  bool simdIndex32 = false;
  /// Vectorize after the sparsifier instead of inside it, once the casts it
  /// puts around dense views are folded (see `sparsify`): for kernels whose
  /// free loop is strip-mined into column panels.
  bool vectorizeFoldedViews = false;
  bool operator!=(const SparsifierSettings &o) const {
    return parallelization != o.parallelization ||
           vectorLength != o.vectorLength || simdIndex32 != o.simdIndex32 ||
           vectorizeFoldedViews != o.vectorizeFoldedViews;
  }
};

/// The sparsifier's parallelization strategy that realizes `schedule`:
/// parallelize the outermost loop, dense or not, or nothing.
SparseParallelizationStrategy
parallelizationStrategy(const ::sptune::Schedule &schedule) {
  if (schedule.target != ::sptune::TargetKind::CPU ||
      cpuKnobs(schedule).parallel == ::sptune::ParallelKind::None ||
      schedule.loopOrder.empty())
    return SparseParallelizationStrategy::kNone;
  const ::sptune::DimPart &outer = schedule.loopOrder.front();
  for (const ::sptune::StorageLevel &l : schedule.levels)
    if (l.dim == outer && l.format != ::sptune::LevelFormat::Dense)
      return SparseParallelizationStrategy::kAnyStorageOuterLoop;
  return SparseParallelizationStrategy::kDenseOuterLoop;
}

SparsifierSettings settingsFor(const ::sptune::Schedule &s) {
  SparsifierSettings out;
  out.parallelization = parallelizationStrategy(s);
  if (s.target == ::sptune::TargetKind::CPU) {
    out.vectorLength = cpuKnobs(s).vectorLength;
    out.simdIndex32 = cpuKnobs(s).simdIndex32;
    out.vectorizeFoldedViews = s.tile > 0 && out.vectorLength > 0;
  }
  return out;
}

SparseParallelizationStrategy toStrategy(ParallelizationChoice c) {
  switch (c) {
  case ParallelizationChoice::DenseOuterLoop:
    return SparseParallelizationStrategy::kDenseOuterLoop;
  case ParallelizationChoice::AnyStorageOuterLoop:
    return SparseParallelizationStrategy::kAnyStorageOuterLoop;
  case ParallelizationChoice::Auto:
  case ParallelizationChoice::None:
    break;
  }
  return SparseParallelizationStrategy::kNone;
}

/// The settings the CPU target's rule for kernels without a schedule
/// gives (cpu/UnscheduledKernels.h).
SparsifierSettings settingsFor(const UnscheduledKernelRule &rule) {
  SparsifierSettings out;
  if (rule.parallel)
    out.parallelization = SparseParallelizationStrategy::kAnyStorageOuterLoop;
  out.vectorLength = rule.vectorLength;
  return out;
}

/// A function's sparse kernels: the scheduled ones with their settings,
/// the ones sptune did not schedule with the settings they get (the rule's,
/// or upstream's defaults), and the first of those that runs sequentially,
/// else the first (null when none), with the rule's reason.
struct FunctionKernels {
  SmallVector<std::pair<linalg::LinalgOp, SparsifierSettings>> scheduled;
  SmallVector<SparsifierSettings> withoutSchedule;
  Operation *unscheduled = nullptr;
  std::string whyUnscheduledSequential;
};

FunctionKernels kernelsOf(func::FuncOp func, bool unscheduledByRule) {
  FunctionKernels kernels;
  func->walk([&](linalg::LinalgOp op) {
    auto attr = dyn_cast_or_null<ScheduleAttr>(
        op->getAttr(SptuneDialect::kScheduleAttrName));
    if (attr) {
      kernels.scheduled.push_back({op, settingsFor(attr.getSchedule())});
      return;
    }
    // A widening copy ahead of a scheduled kernel's conversion goes with
    // that kernel (any setting compiles it).
    if (op->hasAttr(SptuneDialect::kStorageCopyAttrName))
      return;
    bool sparse = llvm::any_of(op->getOperandTypes(), [](Type t) {
      return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
    });
    if (!sparse)
      return;
    UnscheduledKernelRule rule;
    rule.whyNotParallel = "parallelize-unscheduled=false";
    if (unscheduledByRule)
      rule = unscheduledKernelRule(op);
    // The one a warning names: the first that runs sequentially, else the
    // first.
    if (!kernels.unscheduled ||
        (kernels.whyUnscheduledSequential.empty() && !rule.parallel)) {
      kernels.unscheduled = op;
      kernels.whyUnscheduledSequential = rule.whyNotParallel;
    }
    kernels.withoutSchedule.push_back(settingsFor(rule));
  });
  return kernels;
}

/// Gives each scheduled kernel of a function whose kernels ask for
/// different settings (or that holds a kernel sptune did not schedule) a
/// function of its own, `<function>__sptune_kernel<N>`, so that it keeps
/// its settings; a kernel that cannot be moved stays (and is warned about).
void outlineDisagreeingKernels(ModuleOp module) {
  for (func::FuncOp func :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    FunctionKernels kernels = kernelsOf(func, /*unscheduledByRule=*/false);
    if (kernels.scheduled.size() + (kernels.unscheduled ? 1 : 0) < 2)
      continue;
    bool disagree =
        kernels.unscheduled != nullptr ||
        llvm::any_of(kernels.scheduled,
                     [&](const auto &k) {
                       return k.second != kernels.scheduled.front().second;
                     }) ||
        // A kernel whose rows are visited in an order of its own: the loop
        // rewrite finds one kernel's rows per function.
        sharesRowOrderedKernel(func);
    if (!disagree)
      continue;
    // Named in program order, moved last first: each lands right after the
    // function, so they end up in program order too.
    SmallVector<std::string> names;
    for (unsigned n = 0; names.size() < kernels.scheduled.size(); ++n) {
      std::string name =
          (func.getSymName() + "__sptune_kernel" + Twine(n)).str();
      if (!module.lookupSymbol(name))
        names.push_back(name);
    }
    for (size_t k = kernels.scheduled.size(); k-- > 0;)
      (void)outlineKernel(kernels.scheduled[k].first, names[k]);
  }
}

struct CpuSparsifyPass
    : public mlir::sptune::impl::CpuSparsifyBase<CpuSparsifyPass> {
  using CpuSparsifyBase::CpuSparsifyBase;

  /// The nested pipeline runs dynamically: its dialects must be loaded
  /// before this pass starts.
  void getDependentDialects(DialectRegistry &registry) const override {
    CpuSparsifyBase::getDependentDialects(registry);
    createSparsificationAndBufferizationPass()->getDependentDialects(registry);
    // The Gustavson kernel's bodies (counting trailing zeros, population
    // counts).
    registry.insert<math::MathDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The vector lengths the schedules may ask for (whyIllegal), or -1.
    if (vectorLength != -1 && vectorLength != 0 && vectorLength != 4 &&
        vectorLength != 8 && vectorLength != 16) {
      module.emitError("sptune-cpu-sparsify: vl must be -1 (from the "
                       "schedules), 0, 4, 8 or 16, got ")
          << vectorLength;
      return signalPassFailure();
    }
    if (gustavsonOnePassBytes < 0) {
      module.emitError("sptune-cpu-sparsify: gustavson-one-pass-bytes must "
                       "not be negative, got ")
          << static_cast<int64_t>(gustavsonOnePassBytes);
      return signalPassFailure();
    }
    if (std::string why = ::sptune::whyBadThreadsOption(threads);
        !why.empty()) {
      module.emitError("sptune-cpu-sparsify: ") << why;
      return signalPassFailure();
    }
    // A schedule the CPU lowering would silently ignore is an error: one for
    // another target, or one sptune-apply-schedule has not applied (the op
    // still carries its #sptune.kernel) (issue 13 probe).
    bool ok = true;
    module->walk([&](linalg::LinalgOp op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (!attr)
        return;
      ::sptune::TargetKind target = attr.getSchedule().target;
      if (target != ::sptune::TargetKind::CPU) {
        op->emitError("sptune: the cpu target cannot run this schedule: '")
            << ::sptune::toString(target)
            << "' schedule given to the cpu target (lower it with "
            << (target == ::sptune::TargetKind::NVVM ? "sptune-lower-nvvm"
                                                     : "sptune-emit-spade")
            << ")";
        ok = false;
      } else if (op->hasAttr(SptuneDialect::kKernelAttrName)) {
        op->emitError("sptune: this kernel's schedule was not applied; run "
                      "sptune-apply-schedule before lowering");
        ok = false;
      }
    });
    if (!ok)
      return signalPassFailure();
    // Row orders are computed from the matrix while the kernels are still
    // linalg ops that name their sparse argument.
    if (failed(embedRowOrders(module, matrix)))
      return signalPassFailure();
    // Sparse x sparse products in CSR: sptune's parallel Gustavson kernel,
    // called here and defined on its buffers after sparsification.
    bool gustavson = gustavsonSpgemm && !enableRuntimeLibrary;
    SmallVector<std::pair<linalg::LinalgOp, ScheduleAttr>> products;
    module->walk([&](linalg::LinalgOp op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      bool scheduled =
          attr && attr.getSchedule().kernel == ::sptune::KernelType::SpGEMM;
      if (attr && !scheduled)
        return;
      // (A nested module's products are left to the sparsifier: the kernel
      // is defined among the top module's functions.)
      std::string why = !inThisModule(op)
                            ? "it is in a module nested in the one "
                              "sptune-cpu-sparsify runs on"
                            : whyNotRowWiseSpgemm(op);
      if (scheduled && (!gustavson || !why.empty())) {
        // Its schedule's knobs are the Gustavson kernel's.
        op->emitError("sptune: this SpGEMM's schedule is for sptune's "
                      "Gustavson kernel, which ")
            << (!why.empty() ? "cannot compute it: " + why
                : enableRuntimeLibrary
                    ? std::string("the runtime library does not use")
                    : std::string("gustavson-spgemm=false turns off"));
        ok = false;
        return;
      }
      if (gustavson && why.empty())
        products.push_back({op, attr});
    });
    if (!ok)
      return signalPassFailure();
    IRRewriter rewriter(module.getContext());
    for (auto [op, attr] : products)
      outlineGustavsonSpgemm(rewriter, op, gustavsonSettings(attr));
    // An SDDMM and the SpMM that alone consumes its scores: one fused
    // kernel, called here and defined on its buffers after sparsification.
    // Each pair is matched again when it is outlined: outlining one replaces
    // its SpMM's result, which a later pair may read (stacked layers).
    SmallVector<linalg::LinalgOp> sddmms;
    if (fuseSddmmSpmm && !enableRuntimeLibrary)
      module->walk([&](linalg::LinalgOp op) {
        // (Only SDDMMs: an SpMM goes with its pair.)
        auto attr = dyn_cast_or_null<ScheduleAttr>(
            op->getAttr(SptuneDialect::kScheduleAttrName));
        if (attr && attr.getSchedule().kernel == ::sptune::KernelType::SDDMM &&
            inThisModule(op))
          sddmms.push_back(op);
      });
    for (linalg::LinalgOp op : sddmms) {
      SampledAggregation pair;
      if (whyNotSampledAggregation(op, pair).empty())
        outlineSampledAggregation(rewriter, pair,
                                  runsInParallel(pair.schedule));
    }
    // MTTKRPs over CSF or COO: sptune's kernel, called here and defined on
    // its buffers after sparsification. Each is matched
    // again when it is outlined: outlining one replaces its result, which a
    // later one may read as a factor (CP-ALS's updates in turn).
    // So are batched SpMMs over dense batches of CSR rows
    // (cpu/BatchedRowsSpmm.h).
    // A scheduled MTTKRP (the kernel type `mttkrp`) or batched SpMM
    // (`batched_spmm`) is always the kernel's: its schedule's knobs are the
    // kernel's, and one the kernel cannot take is an error rather than a
    // silently ignored schedule.
    SmallVector<linalg::LinalgOp> unscheduled;
    module->walk([&](linalg::LinalgOp op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (attr ? attr.getSchedule().kernel == ::sptune::KernelType::MTTKRP ||
                     attr.getSchedule().kernel ==
                         ::sptune::KernelType::BatchedSpMM
               : parallelizeUnscheduled && !enableRuntimeLibrary &&
                     inThisModule(op))
        unscheduled.push_back(op);
    });
    for (linalg::LinalgOp op : unscheduled) {
      FactoredMttkrp mttkrp;
      BatchedRowsSpmm batched;
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      // Why a scheduled op cannot be the kernel `kernel` (turned on by
      // `enabled`, off by `option`), else the kernel's own reason; reported
      // as an error.
      auto refused = [&](StringRef kernel, bool enabled, StringRef option,
                         llvm::function_ref<std::string()> kernelWhy) {
        std::string why =
            !inThisModule(op)
                ? "it is in a module nested in the one sptune-cpu-sparsify "
                  "runs on"
            : enableRuntimeLibrary ? "the runtime library does not use it"
            : !enabled             ? option.str() + "=false turns it off"
                                   : kernelWhy();
        if (why.empty())
          return false;
        op->emitError("sptune: this ")
            << kernel << "'s schedule is for sptune's " << kernel
            << " kernel, which cannot compute it: " << why;
        ok = false;
        return true;
      };
      if (attr &&
          attr.getSchedule().kernel == ::sptune::KernelType::BatchedSpMM) {
        if (refused("batched SpMM", batchedRowsSpmm, "batched-rows-spmm",
                    [&] { return whyNotBatchedRowsSpmm(op, batched); }))
          continue;
        outlineBatchedRowsSpmm(rewriter, batched, runsInParallel(attr),
                               blocksOf(attr));
      } else if (attr) {
        if (refused("MTTKRP", factoredMttkrp, "factored-mttkrp",
                    [&] { return whyNotFactoredMttkrp(op, mttkrp); }))
          continue;
        outlineFactoredMttkrp(rewriter, mttkrp, runsInParallel(attr),
                              mttkrpSettings(attr));
      } else if (factoredMttkrp && whyNotFactoredMttkrp(op, mttkrp).empty()) {
        outlineFactoredMttkrp(rewriter, mttkrp, runsInParallel(ScheduleAttr()),
                              mttkrpSettings(ScheduleAttr()));
      } else if (batchedRowsSpmm &&
                 whyNotBatchedRowsSpmm(op, batched).empty()) {
        outlineBatchedRowsSpmm(rewriter, batched,
                               runsInParallel(ScheduleAttr()),
                               blocksOf(ScheduleAttr()));
      }
    }
    if (!ok)
      return signalPassFailure();
    // MLIR's sparsifier takes one setting per module; sptune gives each
    // function its own (functionSettings), and when functions ask for
    // different ones, sparsifies a copy of the module per setting and takes
    // each function from the copy made with its own (sparsifyPerSetting).
    outlineDisagreeingKernels(module);
    if (failed(markRowOrderFunctions(module)))
      return signalPassFailure();
    SmallVector<std::pair<func::FuncOp, SparsifierSettings>> functions;
    std::vector<SparsifierSettings> distinct;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      std::optional<SparsifierSettings> s = functionSettings(func);
      if (!s)
        continue;
      functions.push_back({func, *s});
      if (llvm::none_of(distinct, [&](const SparsifierSettings &d) {
            return !(d != *s);
          }))
        distinct.push_back(*s);
    }
    if (distinct.size() <= 1) {
      if (failed(sparsify(module, distinct.empty() ? SparsifierSettings()
                                                   : distinct.front())))
        return signalPassFailure();
    } else if (failed(sparsifyPerSetting(module, functions, distinct))) {
      return signalPassFailure();
    }
    // Every kernel sptune writes itself is defined on its declarations,
    // those written by hand checked too.
    if (hasGustavsonDeclarations(module) &&
        failed(defineGustavsonKernels(module)))
      return signalPassFailure();
    if (failed(defineSampledAggregationKernels(module)) ||
        failed(defineFactoredMttkrpKernels(module, threads, mttkrpForm)) ||
        failed(defineBatchedRowsSpmmKernels(module, threads)))
      return signalPassFailure();
  }

  /// Whether `op` is in the module this pass runs on, not in a module nested
  /// in it: the kernels sptune writes itself are declared in the op's module
  /// and defined among the top module's functions.
  bool inThisModule(Operation *op) {
    return op->getParentOfType<ModuleOp>() == getOperation();
  }

  /// Whether a kernel sptune writes itself (Gustavson, the fused
  /// SDDMM-SpMM, the factored MTTKRP, the batched SpMM) with the schedule
  /// `attr` (or none) runs its rows in parallel: `parallelization` when given
  /// (any strategy but `none`), else the schedule's `parallel`, else yes.
  bool runsInParallel(ScheduleAttr attr) {
    if (parallelization == ParallelizationChoice::None)
      return false;
    if (parallelization != ParallelizationChoice::Auto || !attr)
      return true;
    return cpuKnobs(attr.getSchedule()).parallel ==
           ::sptune::ParallelKind::Outer;
  }

  /// How the Gustavson kernel of a product with the schedule `attr` (or
  /// none) is built. As for the sparsifier's kernels, an option given
  /// explicitly wins over every schedule (`gustavson-accumulator` other than
  /// auto, `parallelization`, `threads` of 0 or more) and one left at its
  /// default lets the schedule decide; `gustavson-one-pass-bytes` is the
  /// budget `passes = auto` goes by, a schedule's `one` or `two` decides
  /// outright. A sequential product (`parallel = none`, or
  /// `parallelization=none`) is one block of rows.
  GustavsonSettings gustavsonSettings(ScheduleAttr attr) {
    GustavsonSettings settings;
    settings.onePassBytes = gustavsonOnePassBytes;
    settings.accumulator = gustavsonAccumulator;
    bool parallel = runsInParallel(attr);
    int scheduleThreads = 0;
    if (attr) {
      const ::sptune::CpuKnobs &knobs = cpuKnobs(attr.getSchedule());
      if (gustavsonAccumulator == GustavsonAccumulator::Auto) {
        if (knobs.accumulator == ::sptune::SpgemmAccumulator::Dense)
          settings.accumulator = GustavsonAccumulator::Dense;
        else if (knobs.accumulator == ::sptune::SpgemmAccumulator::Hash)
          settings.accumulator = GustavsonAccumulator::Hash;
      }
      if (knobs.passes == ::sptune::SpgemmPasses::One)
        settings.onePassBytes = std::numeric_limits<int64_t>::max();
      else if (knobs.passes == ::sptune::SpgemmPasses::Two)
        settings.onePassBytes = 0;
      scheduleThreads = knobs.threads;
    }
    settings.threads = !parallel      ? 1
                       : threads >= 0 ? static_cast<int>(threads)
                                      : scheduleThreads;
    return settings;
  }

  /// How the MTTKRP kernel of an op with the schedule `attr` (or none) is
  /// built. As for the Gustavson kernel, an option given explicitly wins
  /// over every schedule (`mttkrp-form` other than auto, `parallelization`,
  /// `threads` of 0 or more) and one left at its default lets the schedule
  /// decide; a sequential kernel is one block.
  MttkrpSettings mttkrpSettings(ScheduleAttr attr) {
    MttkrpSettings settings;
    settings.form = mttkrpForm;
    int scheduleThreads = 0;
    if (attr) {
      const ::sptune::CpuKnobs &knobs = cpuKnobs(attr.getSchedule());
      if (mttkrpForm == MttkrpForm::Auto)
        settings.form = knobs.form;
      scheduleThreads = knobs.threads;
    }
    settings.threads = !runsInParallel(attr) ? 0
                       : threads >= 0        ? static_cast<int>(threads)
                                             : scheduleThreads;
    return settings;
  }

  /// The blocks of the batched SpMM kernel of an op with the schedule
  /// `attr` (or none): as for the MTTKRP kernel, `threads` of 0 or more
  /// wins over every schedule, else the schedule's; a sequential kernel is
  /// one block.
  int blocksOf(ScheduleAttr attr) {
    if (!runsInParallel(attr))
      return 0;
    if (threads >= 0)
      return static_cast<int>(threads);
    return attr ? cpuKnobs(attr.getSchedule()).threads : 0;
  }

  /// The Gustavson kernels' bodies, and the lowering of their sorts.
  LogicalResult defineGustavsonKernels(ModuleOp module) {
    if (failed(defineGustavsonSpgemmKernels(module)))
      return failure();
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createSparseBufferRewritePass());
    return runPipeline(pm, module);
  }

  /// The settings that `func`'s kernels agree on, warning each scheduled
  /// kernel whose own are reduced; nullopt when it has no sparse kernel. A
  /// kernel sptune did not schedule asks for the CPU target's rule
  /// (cpu/UnscheduledKernels.h: a parallel outer loop only where that
  /// cannot race, e.g. not for upstream's block-sparse matmul, which keeps
  /// a scratch buffer outside its loops), or for upstream's defaults with
  /// `parallelize-unscheduled=false`. The function gets what all its kernels
  /// agree on: parallel outer loops if every one asks for them (any storage
  /// if one asks for that: a dense outer loop is parallelized alike), a
  /// vector length and 32-bit indices if every one asks for the same.
  std::optional<SparsifierSettings> functionSettings(func::FuncOp func) {
    FunctionKernels kernels = kernelsOf(func, parallelizeUnscheduled);
    const auto &scheduled = kernels.scheduled;
    Operation *unscheduled = kernels.unscheduled;
    if (scheduled.empty() && !unscheduled)
      return std::nullopt;
    SmallVector<SparsifierSettings> asked(kernels.withoutSchedule);
    for (const auto &entry : scheduled)
      asked.push_back(entry.second);
    SparsifierSettings applied = asked.front();
    for (const SparsifierSettings &s : asked) {
      if (s.parallelization == SparseParallelizationStrategy::kNone ||
          applied.parallelization == SparseParallelizationStrategy::kNone)
        applied.parallelization = SparseParallelizationStrategy::kNone;
      else if (s.parallelization ==
               SparseParallelizationStrategy::kAnyStorageOuterLoop)
        applied.parallelization = s.parallelization;
      if (s.vectorLength != applied.vectorLength)
        applied.vectorLength = 0;
      if (s.simdIndex32 != applied.simdIndex32)
        applied.simdIndex32 = false;
      // Vectorizing after folding serves untiled kernels as well.
      applied.vectorizeFoldedViews |= s.vectorizeFoldedViews;
    }
    for (const auto &[op, s] : scheduled) {
      bool parallelLost =
          s.parallelization != SparseParallelizationStrategy::kNone &&
          applied.parallelization == SparseParallelizationStrategy::kNone;
      bool vectorLost = s.vectorLength != applied.vectorLength ||
                        s.simdIndex32 != applied.simdIndex32;
      if (!parallelLost && !vectorLost)
        continue;
      InFlightDiagnostic w = op->emitWarning("sptune: this kernel's ");
      w << (parallelLost && vectorLost ? "parallelization and vectorization"
            : parallelLost             ? "parallelization"
                                       : "vectorization")
        << " is not applied: MLIR's sparsifier takes one setting per "
           "function here, and ";
      if (unscheduled)
        w << "the sparse kernel at " << unscheduled->getLoc()
          << " in the same function is not scheduled ("
          << (kernels.whyUnscheduledSequential.empty()
                  ? std::string("the CPU target's rule for such kernels "
                                "asks for other settings")
                  : "it runs sequentially: " + kernels.whyUnscheduledSequential)
          << ")";
      else
        w << "other kernels of the function ask for other settings";
      w << "; put the kernels in separate functions to schedule each";
    }
    return applied;
  }

  /// Runs upstream's sparsification-and-bufferization on `module` (this
  /// pass's module or a copy nested in it) with `settings`, overridden by
  /// the pass options.
  LogicalResult sparsify(ModuleOp module, SparsifierSettings use) {
    if (parallelization != ParallelizationChoice::Auto)
      use.parallelization = toStrategy(parallelization);
    if (vectorLength >= 0) {
      // A vector length forced on schedules that did not ask for one may
      // meet column panels: vectorize after folding (any kernel takes it).
      use.vectorizeFoldedViews |=
          use.vectorLength != static_cast<unsigned>(vectorLength);
      use.vectorLength = vectorLength;
    }
    if (simdIndex32 != Simd32Choice::Auto)
      use.simdIndex32 = simdIndex32 == Simd32Choice::On;
    OpPassManager pm(ModuleOp::getOperationName());
    SparsificationOptions sparsification(use.parallelization,
                                         SparseEmitStrategy::kFunctional,
                                         enableRuntimeLibrary);
    // The sparsifier reads a dense operand through a view of fully dynamic
    // layout (memref<?x64xf32, strided<[?, ?], offset: ?>>), a cast of the
    // buffer it is given. For a column panel (a tensor.extract_slice of B
    // and C) that cast hides the unit stride of the panel's rows, and the
    // sparse vectorizer, run inside the mini-pipeline, emits vector.load on
    // it, which does not verify ("most minor memref dim must have unit
    // stride"). So such kernels are sparsified without vectors, the casts
    // folded into their loads and stores (strided<[256, 1], offset: ?>),
    // and then vectorized by the same upstream vectorizer.
    unsigned insideVectorLength =
        use.vectorizeFoldedViews ? 0 : use.vectorLength;
    pm.addPass(createSparsificationAndBufferizationPass(
        getBufferizationOptionsForSparsification(/*analysisOnly=*/false),
        sparsification, /*createSparseDeallocs=*/true, enableRuntimeLibrary,
        /*enableBufferInitialization=*/false, insideVectorLength,
        /*enableVLAVectorization=*/false, use.simdIndex32,
        /*enableGPULibgen=*/false, SparseEmitStrategy::kFunctional,
        use.parallelization));
    if (use.vectorizeFoldedViews && use.vectorLength > 0) {
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createLoopInvariantCodeMotionPass());
      pm.addPass(createSparseVectorizationPass(use.vectorLength,
                                               /*enableVLAVectorization=*/false,
                                               use.simdIndex32));
    }
    return ::sptune::runContainingCrashes(
        module, "sptune-lower-cpu: sparsification",
        [&] { return runPipeline(pm, module); });
  }

  /// Functions asking for different settings: the whole module is
  /// sparsified once per setting (a copy nested in it, so that every copy
  /// bufferizes its calls with every callee's body in view and the
  /// functions' lowered signatures agree), and each function is taken from
  /// the copy made with its own settings; functions without sparse kernels
  /// and the symbols sparsification adds come from the first copy.
  LogicalResult sparsifyPerSetting(
      ModuleOp module,
      ArrayRef<std::pair<func::FuncOp, SparsifierSettings>> functions,
      ArrayRef<SparsifierSettings> distinct) {
    OpBuilder b(module.getContext());
    SmallVector<ModuleOp> copies;
    for (const SparsifierSettings &s : distinct) {
      b.setInsertionPointToEnd(module.getBody());
      auto copy = ModuleOp::create(b, module.getLoc());
      IRMapping map;
      b.setInsertionPointToStart(copy.getBody());
      for (Operation &op : module.getBody()->getOperations())
        if (&op != copy.getOperation() &&
            llvm::none_of(copies, [&](ModuleOp c) {
              return c.getOperation() == &op;
            }))
          b.clone(op, map);
      copies.push_back(copy);
      if (failed(sparsify(copy, s)))
        return failure();
    }
    // Which copy each function comes from.
    llvm::StringMap<size_t> copyOf;
    for (auto [func, s] : functions)
      for (size_t n = 0; n < distinct.size(); ++n)
        if (!(distinct[n] != s))
          copyOf[func.getSymName()] = n;
    ModuleOp result = copies.front();
    for (size_t n = 1; n < copies.size(); ++n) {
      SymbolTable table(result);
      for (func::FuncOp func :
           llvm::make_early_inc_range(copies[n].getOps<func::FuncOp>())) {
        auto it = copyOf.find(func.getSymName());
        if (it == copyOf.end() || it->second != n)
          continue;
        func::FuncOp old = table.lookup<func::FuncOp>(func.getSymName());
        if (!old || old.getFunctionType() != func.getFunctionType())
          return module.emitError("sptune-lower-cpu: function @")
                 << func.getSymName()
                 << " was lowered to different signatures under different "
                    "sparsifier settings";
        func->moveBefore(old);
        old->erase();
      }
      // Symbols only this copy's sparsification made (helpers of its own).
      for (Operation &op :
           llvm::make_early_inc_range(copies[n].getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        if (symbol && !table.lookup(symbol.getName()))
          op.moveBefore(result.getBody(), result.getBody()->end());
      }
    }
    // The module's contents become the first copy's.
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (&op != result.getOperation())
        op.erase();
    for (Operation &op :
         llvm::make_early_inc_range(result.getBody()->getOperations()))
      op.moveBefore(result);
    result->erase();
    return success();
  }
};
} // namespace
