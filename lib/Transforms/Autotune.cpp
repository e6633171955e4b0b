//===- Autotune.cpp - sptune-autotune -------------------------------------===//
//
// `autotune(op, ...)` (sptune/Transforms/Autotune.h): find the kernel's
// matrix, ask the ScheduleTuner, attach the winner and say why in a remark;
// and the thin pass that calls it on every kernel without a schedule.
//
//===----------------------------------------------------------------------===//

#include "sptune/Transforms/Autotune.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/Passes.h"
#include "sptune/Tune/ScheduleTuner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/Format.h"

#include <map>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_AUTOTUNE
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

/// The matrix source of the kernel: `matrix` when given, else a
/// `sptune.matrix` attribute on the function argument it reads.
static std::string matrixSourceFor(linalg::LinalgOp op, unsigned sparseIdx,
                                   const std::string &matrix) {
  if (!matrix.empty())
    return matrix;
  auto arg = dyn_cast<BlockArgument>(op->getOperand(sparseIdx));
  if (!arg)
    return "";
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return "";
  if (auto s = func.getArgAttrOfType<StringAttr>(
          arg.getArgNumber(), SptuneDialect::kMatrixAttrName))
    return s.str();
  return "";
}

const st::CsrMatrix *MatrixCache::get(const std::string &source,
                                      bool transposed, std::string &error) {
  std::string key = source + (transposed ? "|T" : "");
  auto [it, fresh] = entries.try_emplace(key);
  Entry &e = it->second;
  if (fresh) {
    st::CooMatrix coo;
    st::MatrixInfo info;
    if (st::loadMatrix(source, coo, info, e.error)) {
      e.csr = st::CsrMatrix::fromCoo(std::move(coo));
      if (transposed)
        e.csr = e.csr.transposed();
      e.ok = true;
    }
  }
  if (!e.ok) {
    error = e.error;
    return nullptr;
  }
  return &e.csr;
}

LogicalResult mlir::sptune::autotune(linalg::LinalgOp op,
                                     const st::CostModel &model,
                                     const KernelTuningOptions &o,
                                     MatrixCache &matrices) {
  auto kernel =
      dyn_cast_or_null<KernelAttr>(op->getAttr(SptuneDialect::kKernelAttrName));
  if (!kernel)
    return op->emitError("sptune-autotune: the op carries no #sptune.kernel "
                         "(run sptune-extract-kernels first)");
  const st::Target *targetInfo = st::TargetRegistry::lookup(o.target);
  if (!targetInfo)
    return op->emitError("sptune-autotune: target '")
           << st::toString(o.target)
           << "' is not registered (registered: " << st::TargetRegistry::names()
           << ")";
  st::TargetKind targetKind = o.target;
  st::KernelType type = kernel.getKind();
  LoopRole freeRole = type == st::KernelType::SDDMM ? LoopRole::K : LoopRole::J;
  int64_t free = 1;
  if (type != st::KernelType::SpMV) {
    free = kernel.getLoopSize(freeRole);
    if (ShapedType::isDynamic(free))
      free = o.freeSize;
  }
  auto attach = [&](const st::Schedule &s) {
    op->setAttr(SptuneDialect::kScheduleAttrName,
                ScheduleAttr::get(op->getContext(), s));
  };
  // Schedules the IR is rewritten into must fit the op; emitted ones
  // (SPADE's) only its kernel.
  bool rewritesIR = targetInfo->rewritesIR();
  auto applicable = [kernel, rewritesIR](const st::Schedule &s) {
    if (rewritesIR)
      return whyNotApplicable(kernel, s);
    return s.kernel == kernel.getKind()
               ? std::string()
               : std::string("schedule is for another kernel");
  };

  unsigned sparseIdx = kernel.getSparseOperand();
  std::string source = matrixSourceFor(op, sparseIdx, o.matrix);
  if (source.empty()) {
    const st::Target &t = *targetInfo;
    st::Schedule s = t.heuristicSchedule(type, nullptr, free);
    if (!applicable(s).empty())
      s = t.referenceSchedule(type);
    attach(s);
    op->emitRemark("sptune-autotune: no matrix for this kernel (give "
                   "matrix=... or a 'sptune.matrix' argument attribute); "
                   "using the heuristic schedule");
    return success();
  }
  bool transposed = isSparseOperandTransposed(kernel);
  std::string loadError;
  const st::CsrMatrix *csr = matrices.get(source, transposed, loadError);
  if (!csr)
    return op->emitError("sptune-autotune: ") << loadError;
  int64_t rows = kernel.getLoopSize(LoopRole::I);
  int64_t cols = kernel.getLoopSize(
      type == st::KernelType::SDDMM ? LoopRole::J : LoopRole::K);
  if ((!ShapedType::isDynamic(rows) && rows != (*csr).rows) ||
      (!ShapedType::isDynamic(cols) && cols != (*csr).cols))
    return op->emitError("sptune-autotune: matrix '")
           << source << "' is " << (*csr).rows << "x" << (*csr).cols
           << " but the kernel's sparse operand is "
           << (ShapedType::isDynamic(rows) ? std::string("?")
                                           : std::to_string(rows))
           << "x"
           << (ShapedType::isDynamic(cols) ? std::string("?")
                                           : std::to_string(cols))
           << " (canonical rows x cols)";

  st::TuneOptions options;
  options.target = targetKind;
  options.candidates = o.candidates;
  options.seed = o.seed;
  options.topK = std::max(1u, o.topK);
  options.measureTopK = o.measureTopK;
  options.measureHeuristic = o.measureHeuristic;
  options.matrixSource = transposed ? "" : source;
  options.applicable = applicable;
  options.measurer = o.measurer;
  llvm::Expected<st::TuneResult> result =
      st::tuneSchedule(model, (*csr), type, free, options);
  if (!result)
    return op->emitError("sptune-autotune: ")
           << llvm::toString(result.takeError());
  attach(result->chosen);

  std::string text;
  llvm::raw_string_ostream remark(text);
  bool guarded = !result->top.empty() && result->top.back().guard;
  remark << "sptune-autotune (" << st::toString(model.mode()) << ", "
         << result->numCandidates << " candidates ranked in "
         << llvm::format("%.1f", result->rankSeconds * 1e3) << " ms"
         << (result->measured
                 ? ", top " + std::to_string(o.measureTopK) +
                       (guarded ? " and the heuristic" : "") + " measured"
                 : std::string())
         << "): chose " << result->chosen.str() << "; ranking:";
  for (const st::RankedCandidate &c : result->top) {
    if (c.guard)
      remark << " + heuristic";
    remark << " #" << c.rank << " score " << llvm::format("%.3f", c.score);
    if (c.seconds)
      remark << " measured " << llvm::format("%.3f", *c.seconds * 1e3) << " ms";
    else if (!c.measureStatus.empty())
      remark << " (" << c.measureStatus << ")";
    remark << " [" << c.schedule.str() << "]";
  }
  if (transposed && o.measureTopK > 0)
    remark << "; not measured: the sparse operand is on the right";
  if (!result->fallbackReason.empty())
    remark << "; ranked by the heuristic: " << result->fallbackReason;
  op->emitRemark(remark.str());
  return success();
}

/// Limits of sptune-autotune's size options: ranking 100,000 candidates
/// takes about ten seconds, measuring 64 of them minutes.
static constexpr unsigned kMaxCandidates = 100000;
static constexpr unsigned kMaxMeasured = 64;

namespace {
/// Thin: options and the cost model for the whole module, then `autotune`
/// on each kernel without a schedule.
struct AutotunePass : public mlir::sptune::impl::AutotuneBase<AutotunePass> {
  using AutotuneBase::AutotuneBase;

  void runOnOperation() override {
    llvm::Expected<const st::Target &> targetInfo =
        st::TargetRegistry::get(target);
    if (!targetInfo) {
      getOperation()->emitError("sptune-autotune: ")
          << llvm::toString(targetInfo.takeError());
      return signalPassFailure();
    }
    // Sizes that set allocations and work have documented limits.
    if (freeSize < 1 || freeSize > (1 << 16)) {
      getOperation()->emitError("sptune-autotune: free must be in [1, 65536], got ")
          << static_cast<int64_t>(freeSize);
      return signalPassFailure();
    }
    if (candidates > kMaxCandidates || measureTopK > kMaxMeasured ||
        topK > kMaxCandidates) {
      getOperation()->emitError("sptune-autotune: candidates and top-k must be "
                                "at most ")
          << kMaxCandidates << ", measure-top-k at most " << kMaxMeasured
          << " (got candidates=" << static_cast<unsigned>(candidates)
          << ", top-k=" << static_cast<unsigned>(topK)
          << ", measure-top-k=" << static_cast<unsigned>(measureTopK) << ")";
      return signalPassFailure();
    }
    std::string error;
    st::CostModelOptions cmOptions;
    cmOptions.logPath = logPath;
    std::unique_ptr<st::CostModel> model =
        st::createCostModel(mode, modelPath, &error, cmOptions);
    if (!model) {
      getOperation()->emitError("sptune-autotune: cannot load the cost model: ")
          << error;
      return signalPassFailure();
    }
    std::unique_ptr<st::CandidateMeasurer> measurer;
    if (measureTopK > 0) {
      measurer = st::createDefaultCandidateMeasurer();
      if (!measurer) {
        getOperation()->emitError(
            "sptune-autotune: measure-top-k needs a measurer, and this "
            "program has none (sptune-opt has one; a compiler that links the "
            "passes calls sptune::registerWorkerCandidateMeasurer())");
        return signalPassFailure();
      }
    }
    KernelTuningOptions options;
    options.target = targetInfo->kind();
    options.matrix = matrix;
    options.topK = topK;
    options.measureTopK = measureTopK;
    options.measureHeuristic = measureHeuristic;
    options.candidates = candidates;
    options.seed = seed;
    options.freeSize = freeSize;
    options.measurer = measurer.get();

    MatrixCache matrices;
    bool ok = true;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op->hasAttr(SptuneDialect::kKernelAttrName) ||
          op->hasAttr(SptuneDialect::kScheduleAttrName))
        return;
      ok &= succeeded(autotune(op, *model, options, matrices));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
