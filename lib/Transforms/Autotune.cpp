//===- Autotune.cpp - sptune-autotune -------------------------------------===//
//
// `autotune(op, ...)` (sptune/Transforms/Autotune.h): resolve the kernel's
// context once (resolveKernelTuning), look it up in the tuning database,
// else ask the ScheduleTuner, attach the winner and say why in a remark
// (tuneKernel); and the thin pass that does this for every kernel without a
// schedule, with
// the cost model of the target it tunes for (in release mode, the target's
// shipped model: cost-model/models/<target>-default.pt).
//
//===----------------------------------------------------------------------===//

#include "sptune/Transforms/Autotune.h"
#include "sptune/Analysis/BatchedSpmmForm.h"
#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/Analysis/SparseStorage.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MeasuredOperand.h"
#include "sptune/Matrix/TensorSource.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/ApplySchedule.h"
#include "sptune/Transforms/Multiversion.h"
#include "sptune/Transforms/Passes.h"
#include "sptune/Tune/ScheduleTuner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "sptune/Config.h"

#include "llvm/Support/Format.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_AUTOTUNE
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

/// The matrix of the kernel and where it was named: the pass option
/// `matrix=`, a `sptune.matrix` attribute on the function argument the
/// kernel reads, or both when they name the same matrix. Two different
/// matrices are an error: neither silently wins.
static LogicalResult matrixSourceFor(KernelTuningContext &k, unsigned sparseIdx,
                                     const std::string &option) {
  std::string attr;
  std::string attrOrigin;
  if (auto arg = dyn_cast<BlockArgument>(k.op->getOperand(sparseIdx)))
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      if (auto s = func.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(), SptuneDialect::kMatrixAttrName)) {
        attr = s.str();
        attrOrigin = "the 'sptune.matrix' attribute of argument #" +
                     std::to_string(arg.getArgNumber()) + " of @" +
                     func.getSymName().str();
      }
  if (!option.empty() && !attr.empty()) {
    if (!st::sameMatrixSource(option, attr))
      return k.op->emitError("sptune-autotune: the pass option matrix='")
             << option << "' and " << attrOrigin << " ('" << attr
             << "') name different matrices; give one of them (the "
                "attribute names the matrix of one kernel, the option that "
                "of every kernel without one)";
    k.source = attr;
    k.sourceOrigin = attrOrigin + " and the pass option matrix=";
  } else if (!attr.empty()) {
    k.source = attr;
    k.sourceOrigin = attrOrigin;
  } else if (!option.empty()) {
    k.source = option;
    k.sourceOrigin = "the pass option matrix=";
  }
  return success();
}

llvm::Expected<const st::CsrMatrix *>
MatrixCache::get(const std::string &source, bool transposed) {
  std::string key = source + (transposed ? "|T" : "");
  auto [it, fresh] = entries.try_emplace(key);
  Entry &e = it->second;
  if (fresh) {
    st::CooMatrix coo;
    st::MatrixInfo info;
    if (!st::takeErrorMessage(st::loadMatrix(source, coo, info), e.error)) {
      e.csr = st::CsrMatrix::fromCoo(std::move(coo));
      if (transposed)
        e.csr = e.csr.transposed();
      e.ok = true;
    }
  }
  if (!e.ok)
    return st::makeError(e.error);
  return &e.csr;
}

/// Whether `op`, an SDDMM, reads its B(k, j) as the 2-D transposition of a
/// B^T input (how GNN code stores feature matrices): the measurer then
/// supplies B^T and times the transposition with the kernel, as the op does.
static bool readsTransposedB(linalg::LinalgOp op, KernelAttr kernel) {
  if (st::productShape(kernel.getKind()) !=
      st::ProductShape::SampledMatrixMatrix)
    return false;
  for (unsigned n = 0; n < kernel.getNumOperands(); ++n) {
    if (kernel.getOperandKinds()[n] != OperandKind::Dense ||
        kernel.getOperandRoles(n) !=
            llvm::ArrayRef<LoopRole>{LoopRole::K, LoopRole::J})
      continue;
    auto t = op->getOperand(n).getDefiningOp<linalg::TransposeOp>();
    return t && t.getPermutation() == llvm::ArrayRef<int64_t>{1, 0};
  }
  return false;
}

/// Why `s` does not fit `kernel`'s op (empty when it does): a schedule the
/// IR is rewritten into must fit the op (whyNotApplicable); an emitted one
/// (a simulator's program) only its kernel.
static std::string whyScheduleDoesNotFit(KernelAttr kernel,
                                         const st::Target &target,
                                         const st::Schedule &s) {
  if (target.rewritesIR())
    return whyNotApplicable(kernel, s);
  return s.kernel == kernel.getKind()
             ? std::string()
             : std::string("schedule is for another kernel");
}

FailureOr<KernelTuningContext> mlir::sptune::resolveKernelTuning(
    linalg::LinalgOp op, const KernelTuningOptions &o, MatrixCache &matrices) {
  KernelTuningContext k;
  k.op = op;
  k.options = &o;
  k.matrices = &matrices;
  k.kernel =
      dyn_cast_or_null<KernelAttr>(op->getAttr(SptuneDialect::kKernelAttrName));
  if (!k.kernel)
    return op->emitError("sptune-autotune: the op carries no #sptune.kernel "
                         "(run sptune-extract-kernels first)");
  k.target = st::TargetRegistry::lookup(o.target);
  if (!k.target)
    return op->emitError("sptune-autotune: target '")
           << st::toString(o.target)
           << "' is not registered (registered: " << st::TargetRegistry::names()
           << ")";
  k.type = k.kernel.getKind();
  // A kernel the target cannot run at all (a target without SpMV): say so
  // rather than that no candidate applies.
  // (A kernel the target refuses by its body or element type is left
  // unscheduled with a remark instead: whyLeftUnscheduled.)
  std::string unsupported =
      k.target->whyIllegal(k.target->referenceSchedule(k.type));
  if (!unsupported.empty() &&
      whyTargetRefusesKernel(op, k.kernel, *k.target).empty())
    return op->emitError("sptune-autotune: target '")
           << k.target->name() << "' cannot run this " << st::toString(k.type)
           << " kernel: " << unsupported;
  if (std::optional<LoopRole> freeRole = st::Schedule::freeRole(k.type)) {
    k.free = k.kernel.getLoopSize(*freeRole);
    if (ShapedType::isDynamic(k.free))
      k.free = o.freeSize;
  }
  KernelAttr kernel = k.kernel;
  const st::Target *target = k.target;
  k.applicable = [kernel, target](const st::Schedule &s) {
    return whyScheduleDoesNotFit(kernel, *target, s);
  };
  // (An MTTKRP's or a batched SpMM's source names its 3-D tensor:
  // tuneKernel measures on it, and reads no matrix.)
  if (failed(matrixSourceFor(k, k.kernel.getSparseOperand(), o.matrix)))
    return failure();
  k.transposed = isSparseOperandTransposed(k.kernel);
  // Measured in the float form of its width: the JIT measurer feeds f32 or
  // f64 values (an integer, f16 or bf16 kernel is timed as f32 / f64).
  k.elementBits =
      k.kernel.getElementType().getIntOrFloatBitWidth() == 64 ? 64 : 32;
  k.transposedB = readsTransposedB(op, k.kernel);
  if (llvm::Expected<st::KernelDescriptor> d = describeKernel(op))
    k.descriptor = std::move(*d);
  else
    llvm::consumeError(d.takeError());
  return k;
}

const st::CsrMatrix *KernelTuningContext::matrix() {
  llvm::Expected<const st::CsrMatrix *> loaded =
      matrices->get(source, transposed);
  if (!loaded) {
    op->emitError("sptune-autotune: the matrix of ")
        << sourceOrigin << ": " << llvm::toString(loaded.takeError());
    return nullptr;
  }
  const st::CsrMatrix *csr = *loaded;
  int64_t rows = kernel.getLoopSize(st::Schedule::rowRole(type));
  int64_t cols = kernel.getLoopSize(st::Schedule::colRole(type));
  if ((!ShapedType::isDynamic(rows) && rows != csr->rows) ||
      (!ShapedType::isDynamic(cols) && cols != csr->cols)) {
    // Both in the operand's own orientation: a transposed operand reads the
    // file's matrix transposed, so the file's rows are its columns.
    auto dim = [](int64_t n) {
      return ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n);
    };
    int64_t fileRows = transposed ? csr->cols : csr->rows;
    int64_t fileCols = transposed ? csr->rows : csr->cols;
    int64_t opRows = transposed ? cols : rows;
    int64_t opCols = transposed ? rows : cols;
    op->emitError("sptune-autotune: matrix '")
        << source << "' (" << sourceOrigin << ") is " << fileRows << "x"
        << fileCols << " but the kernel's sparse operand is " << dim(opRows)
        << "x" << dim(opCols);
    return nullptr;
  }
  return csr;
}

/// The stamp of `k`'s matrix as tuned (the orientation is part of it).
static std::optional<st::MatrixStamp> stampOf(const KernelTuningContext &k) {
  std::optional<st::MatrixStamp> stamp = st::stampMatrixSource(k.source);
  if (stamp && k.transposed)
    stamp->source += "|T";
  return stamp;
}

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Whether a recorded decision fits `k`'s op: its schedule applies, fits
/// this machine (a record made on a larger one may ask for more threads),
/// and the recorded matrix has the kernel's static shape.
static bool recordFits(const st::TuningRecord &r,
                       const KernelTuningContext &k) {
  int64_t rows = k.kernel.getLoopSize(st::Schedule::rowRole(k.type));
  int64_t cols = k.kernel.getLoopSize(st::Schedule::colRole(k.type));
  return k.applicable(r.chosen).empty() &&
         (!k.target || k.target->space().fitsThisMachine(r.chosen)) &&
         (ShapedType::isDynamic(rows) || rows == r.rows) &&
         (ShapedType::isDynamic(cols) || cols == r.cols);
}

FailureOr<bool>
mlir::sptune::scheduleFromDatabase(KernelTuningContext &k,
                                   llvm::StringRef modelIdentity) {
  const KernelTuningOptions &o = *k.options;
  // No record describes a 3-D tensor (an MTTKRP's, a batch of matrices).
  if (!o.database || st::isMeasuredOnTensor(k.type))
    return false;
  auto start = std::chrono::steady_clock::now();
  linalg::LinalgOp op = k.op;
  if (k.source.empty())
    return false;
  st::TuningKey key;
  key.kernel = k.type;
  key.target = o.target;
  key.free = k.free;
  key.model = modelIdentity.str();
  st::TuningEffort effort{o.candidates, o.measureTopK};
  // By stamp: nothing read. Else read the matrix and look for its
  // fingerprint (the same matrix under another name or a touched file).
  const st::TuningRecord *record = nullptr;
  const char *how = "source stamp";
  if (std::optional<st::MatrixStamp> stamp = stampOf(k))
    record = o.database->findByStamp(*stamp, key, effort);
  if (record && !recordFits(*record, k))
    record = nullptr;
  if (!record) {
    const st::CsrMatrix *csr = k.matrix();
    if (!csr)
      return failure();
    key.fingerprint = st::matrixFingerprint(*csr);
    record = o.database->find(key, effort);
    how = "matrix fingerprint";
    if (record && !recordFits(*record, k))
      record = nullptr;
  }
  if (!record)
    return false;
  op->setAttr(SptuneDialect::kScheduleAttrName,
              ScheduleAttr::get(op->getContext(), record->chosen));
  std::string text;
  llvm::raw_string_ostream remark(text);
  remark << "sptune-autotune: from the tuning database (matched by " << how
         << " in " << llvm::format("%.2f", secondsSince(start) * 1e3)
         << " ms; matrix " << record->key.fingerprint << ", "
         << (record->ranked > 0
                 ? std::to_string(record->ranked) + " candidates ranked (a " +
                       "sample of " +
                       std::to_string(record->effort.candidates) + ")"
                 : "a sample of " + std::to_string(record->effort.candidates) +
                       " candidates")
         << (record->effort.measureTopK
                 ? ", top " + std::to_string(record->effort.measureTopK) +
                       " measured"
                 : std::string())
         << ", recorded " << record->createdAt << " after "
         << llvm::format("%.3f", record->tuneSeconds) << " s): chose "
         << record->chosen.str();
  if (record->chosenSeconds)
    remark << " measured " << llvm::format("%.3f", *record->chosenSeconds * 1e3)
           << " ms";
  op->emitRemark(remark.str()).attachNote()
      << "the matrix: '" << k.source << "', from " << k.sourceOrigin;
  return true;
}

/// The decision `result` for `k`'s matrix `csr`, as a database record.
static st::TuningRecord recordOf(const KernelTuningContext &k,
                                 const st::CsrMatrix &csr,
                                 const st::CostModel &model,
                                 const KernelTuningOptions &o,
                                 const st::TuneResult &result, double seconds) {
  st::TuningRecord r;
  r.key.fingerprint = st::matrixFingerprint(csr);
  r.key.kernel = k.type;
  r.key.target = o.target;
  r.key.free = k.free;
  r.key.model = model.identity();
  r.effort = {o.candidates, o.measureTopK};
  r.ranked = static_cast<int64_t>(result.numCandidates);
  r.seed = o.seed;
  r.rows = csr.rows;
  r.cols = csr.cols;
  r.nnz = csr.nnz();
  if (std::optional<st::MatrixStamp> stamp = stampOf(k))
    r.stamp = *stamp;
  r.chosen = result.chosen;
  for (const st::RankedCandidate &c : result.top)
    if (c.seconds) {
      r.measured.push_back({c.schedule, *c.seconds});
      if (c.schedule == result.chosen)
        r.chosenSeconds = *c.seconds;
    }
  r.tuneSeconds = seconds;
  r.createdAt = st::currentUtcTime();
  r.version = SPTUNE_VERSION;
  return r;
}

/// The heuristic's schedule for `k` on a sparse operand of `stats` (null:
/// not known), else the reference schedule, or an error on its op when
/// neither fits the kernel (`what`: "MTTKRP", "batched SpMM").
static FailureOr<st::Schedule>
heuristicOrError(KernelTuningContext &k, StringRef what,
                 const st::MatrixStats *stats = nullptr) {
  llvm::Expected<st::Schedule> heuristic =
      untunedSchedule(k.kernel, *k.target, k.free, stats);
  if (!heuristic)
    return k.op->emitError("sptune-autotune: neither the heuristic nor the "
                           "reference schedule fits this ")
           << what << ": " << llvm::toString(heuristic.takeError());
  return *heuristic;
}

/// A kernel whose sparse operand is a 3-D tensor (st::isMeasuredOnTensor:
/// an MTTKRP, a batched SpMM): no tuning database describes one. Without a
/// tensor (`sptune.matrix` or matrix= naming a gen3: spec or a .tns file),
/// the heuristic's schedule (an MTTKRP's kernel's run-time rule decides its
/// form); with one, and measure-top-k, the fastest of the heuristic's and
/// every schedule of the target's space (a handful: the kernel's knobs),
/// each measured on that tensor; else the cost model's pick among them when
/// the model has the kernel's feature (featurizeTensor) and the tensor is
/// stored as the model's data were measured, else the heuristic's on that
/// tensor (tensorHeuristicStats: a batched SpMM's threshold of one thread
/// reads its stored entries).
static LogicalResult tuneTensorKernel(KernelTuningContext &k,
                                      const st::CostModel &model) {
  const KernelTuningOptions &o = *k.options;
  linalg::LinalgOp op = k.op;
  bool mttkrp = k.type == st::KernelType::MTTKRP;
  StringRef what = mttkrp ? "MTTKRP" : "batched SpMM";
  FailureOr<st::Schedule> heuristic = heuristicOrError(k, what);
  if (failed(heuristic))
    return failure();
  std::string notVersioned =
      o.multiversion > 0
          ? " (not multi-versioned: " + whyNotMultiversioned(k) + ")"
          : std::string();
  bool modelRanks = model.mode() != st::CostModelMode::Heuristic &&
                    model.supports(o.target) && model.supportsKernel(k.type);
  // A model's data are measurements of the canonical kernel (sptune-collect,
  // TensorBench.h): an MTTKRP's B in CSF, a batched SpMM's A in dense
  // batches of CSR rows; and its features see the tensor, not its storage.
  // Over COO, whose kernel runs otherwise (an MTTKRP's best form differs:
  // entry-wise on the AMD EPYC VM, where the model's pick, factored, was
  // 0.92x the heuristic's, docs/results.md; a batched SpMM's blocks are cut
  // by entries, not rows), the rule is kept.
  Type sparseType = op->getOperand(k.kernel.getSparseOperand()).getType();
  bool storageRanked = mttkrp ? isCsf(sparseType) : isBatchedCsr(sparseType);
  const char *measuredStorage =
      mttkrp ? "a cost model ranks an MTTKRP over CSF, where its data were "
               "measured; B is not in CSF"
             : "a cost model ranks a batched SpMM over dense batches of CSR "
               "rows, where its data were measured; A is not stored so";
  auto byHeuristic = [&](const std::string &why) {
    op->setAttr(SptuneDialect::kScheduleAttrName,
                ScheduleAttr::get(op->getContext(), *heuristic));
    op->emitRemark("sptune-autotune: ")
        << what << " scheduled by the heuristic (" << why << "): chose "
        << heuristic->str() << notVersioned;
    return success();
  };
  bool measures = o.measureTopK > 0 && o.measurer;
  bool haveTensor = !k.source.empty() && st::isTensorSource(k.source);
  // A tensor named is read, as a matrix is: a missing or malformed one, or
  // one of other sizes than the kernel's static ones, is an error whether
  // or not anything uses it (for matrices:
  // test/Transforms/autotune-matrix-provenance.mlir); a batched SpMM's
  // heuristic counts its stored entries (its threshold of one thread), and
  // a model ranks by its features.
  SmallVector<LoopRole> bRoles =
      k.kernel.getOperandRoles(k.kernel.getSparseOperand());
  st::CooTensor tensor;
  // A model's features of the tensor, computed with the heuristic's
  // statistics (featurizeTensor's `stats` are tensorHeuristicStats): one
  // pass over its fiber matrix, not two.
  std::optional<st::MatrixFeatures> features;
  if (haveTensor) {
    st::MatrixInfo info;
    if (llvm::Error e = st::loadTensor(k.source, tensor, info))
      return op->emitError("sptune-autotune: the tensor of ")
             << k.sourceOrigin << ": " << llvm::toString(std::move(e));
    bool fits = true;
    std::string operandShape;
    for (unsigned n = 0; n < 3; ++n) {
      int64_t size = k.kernel.getLoopSize(bRoles[n]);
      fits &= ShapedType::isDynamic(size) || size == tensor.dims[n];
      operandShape +=
          (n ? "x" : "") + (ShapedType::isDynamic(size) ? std::string("?")
                                                        : std::to_string(size));
    }
    if (!fits)
      return op->emitError("sptune-autotune: tensor '")
             << k.source << "' (" << k.sourceOrigin << ") is " << tensor.dims[0]
             << "x" << tensor.dims[1] << "x" << tensor.dims[2]
             << " but the kernel's sparse operand is " << operandShape;
    // The heuristic's schedule on this tensor (its work known).
    st::MatrixStats stats;
    if (!measures && modelRanks && storageRanked) {
      features = st::featurizeTensor(tensor);
      stats = features->stats;
    } else {
      stats = st::tensorHeuristicStats(tensor);
    }
    heuristic = heuristicOrError(k, what, &stats);
    if (failed(heuristic))
      return failure();
  }
  if (!measures && (!modelRanks || !storageRanked))
    return byHeuristic(
        (model.mode() == st::CostModelMode::Heuristic
             ? std::string("heuristic mode")
         : !modelRanks ? model.description() + " has no feature for kernel '" +
                             st::toString(k.type) + "'"
                       : std::string(measuredStorage)) +
        "; measure-top-k= measures the schedules of its space on the tensor "
        "that 'sptune.matrix' or matrix= names");
  if (!haveTensor)
    return byHeuristic(
        k.source.empty()
            ? std::string("no tensor to measure on or rank for: give matrix= "
                          "or a 'sptune.matrix' attribute naming a gen3: spec "
                          "or a .tns file")
            : "'" + k.source + "' (" + k.sourceOrigin +
                  ") names a matrix, not a 3-D tensor");
  std::vector<st::Schedule> candidates = {*heuristic};
  st::ProblemShape shape;
  shape.kernel = k.type;
  shape.free = k.free;
  k.target->space().enumerate(shape, [&](const st::Schedule &s) {
    if (k.applicable(s).empty() && k.target->space().fitsThisMachine(s) &&
        std::find(candidates.begin(), candidates.end(), s) == candidates.end())
      candidates.push_back(s);
    return true;
  });
  auto start = std::chrono::steady_clock::now();
  if (!measures) {
    assert(features && "a model ranks only a tensor it has featurized");
    llvm::Expected<st::Ranking> ranking =
        model.rank(*features, candidates, o.target, k.free);
    if (!ranking)
      return op->emitError("sptune-autotune: ranking this ")
             << what << "'s schedules: " << llvm::toString(ranking.takeError());
    size_t pick = ranking->order.front();
    // As for the other kernels: a model file with a guard keeps the
    // heuristic's schedule unless its pick is trusted to be faster.
    std::string guardNote;
    if (pick != 0) {
      llvm::Expected<std::optional<st::GuardVerdict>> verdict =
          model.judgeOverHeuristic(*features, candidates[pick], *heuristic,
                                   k.free);
      if (!verdict)
        return op->emitError("sptune-autotune: the model guard: ")
               << llvm::toString(verdict.takeError());
      if (*verdict) {
        guardNote = " (" + (*verdict)->str() + ")";
        if (!(*verdict)->trusted())
          pick = 0;
      }
    }
    op->setAttr(SptuneDialect::kScheduleAttrName,
                ScheduleAttr::get(op->getContext(), candidates[pick]));
    std::string text;
    llvm::raw_string_ostream remark(text);
    remark << "sptune-autotune: " << what << " ranked by "
           << model.description() << " on its tensor '" << k.source << "' ("
           << k.sourceOrigin << "): " << candidates.size()
           << " schedules (the heuristic's and its space's) in "
           << llvm::format("%.1f", secondsSince(start) * 1e3) << " ms; chose "
           << candidates[pick].str() << (pick == 0 ? " (the heuristic's)" : "")
           << guardNote;
    op->emitRemark(remark.str() + notVersioned);
    return success();
  }
  // The measurer reads the tensor itself: no second copy held meanwhile.
  tensor = st::CooTensor();
  st::KernelSpec spec;
  spec.kernel = k.type;
  spec.free = k.free;
  spec.elementBits = k.elementBits;
  spec.descriptor = k.descriptor;
  std::vector<st::Measurement> measured =
      o.measurer->measure(k.source, spec, candidates, st::MeasureOptions());
  std::optional<size_t> best;
  for (size_t n = 0; n < candidates.size() && n < measured.size(); ++n)
    if (measured[n].ok() &&
        (!best || measured[n].medianSeconds < measured[*best].medianSeconds))
      best = n;
  std::string text;
  llvm::raw_string_ostream remark(text);
  remark << "sptune-autotune: " << what << " measured on its tensor '"
         << k.source << "' (" << k.sourceOrigin << "): " << candidates.size()
         << " schedules (the heuristic's and its space's) in "
         << llvm::format("%.1f", secondsSince(start)) << " s:";
  for (size_t n = 0; n < candidates.size(); ++n) {
    remark << (n ? ";" : "") << " [" << candidates[n].str() << "] ";
    if (n < measured.size() && measured[n].ok())
      remark << llvm::format("%.4f", measured[n].medianSeconds * 1e3) << " ms";
    else
      remark << (n < measured.size() ? st::toString(measured[n].status)
                                     : "unmeasured")
             << (n < measured.size() && !measured[n].reason.empty()
                     ? ": " + measured[n].reason
                     : std::string());
  }
  if (!best) {
    op->setAttr(SptuneDialect::kScheduleAttrName,
                ScheduleAttr::get(op->getContext(), *heuristic));
    op->emitRemark(remark.str() + "; none measured: chose the heuristic's " +
                   heuristic->str() + notVersioned);
    return success();
  }
  op->setAttr(SptuneDialect::kScheduleAttrName,
              ScheduleAttr::get(op->getContext(), candidates[*best]));
  remark << "; chose " << candidates[*best].str();
  if (*best != 0 && measured[0].ok())
    remark << " ("
           << llvm::format("%.2f", measured[0].medianSeconds /
                                       measured[*best].medianSeconds)
           << "x the heuristic's)";
  op->emitRemark(remark.str() + notVersioned);
  return success();
}

LogicalResult mlir::sptune::tuneKernel(KernelTuningContext &k,
                                       const st::CostModel &model,
                                       llvm::StringRef note) {
  const KernelTuningOptions &o = *k.options;
  linalg::LinalgOp op = k.op;
  auto start = std::chrono::steady_clock::now();
  auto attach = [&](const st::Schedule &s) {
    op->setAttr(SptuneDialect::kScheduleAttrName,
                ScheduleAttr::get(op->getContext(), s));
  };
  if (st::isMeasuredOnTensor(k.type))
    return tuneTensorKernel(k, model);
  if (k.source.empty()) {
    std::string notVersioned;
    if (o.multiversion > 0) {
      notVersioned = whyNotMultiversioned(k);
      if (notVersioned.empty())
        return multiversionKernel(k, model, note);
    }
    llvm::Expected<st::Schedule> s =
        untunedSchedule(k.kernel, *k.target, k.free);
    if (!s)
      return op->emitError("sptune-autotune: no matrix for this kernel, and "
                           "neither the heuristic nor the reference schedule "
                           "fits it: ")
             << llvm::toString(s.takeError());
    attach(*s);
    InFlightDiagnostic remark =
        op->emitRemark("sptune-autotune: no matrix for this kernel (give "
                       "matrix=... or a 'sptune.matrix' argument attribute); "
                       "using the heuristic schedule");
    if (!notVersioned.empty())
      remark << " (not multi-versioned: " << notVersioned << ")";
    return success();
  }
  const st::CsrMatrix *csr = k.matrix();
  if (!csr)
    return failure();

  st::TuneOptions options;
  options.target = o.target;
  options.targetInfo = k.target;
  options.candidates = o.candidates;
  options.seed = o.seed;
  options.topK = std::max(1u, o.topK);
  options.measureTopK = o.measureTopK;
  options.measureHeuristic = o.measureHeuristic;
  options.matrixSource = k.transposed ? "" : k.source;
  options.elementBits = k.elementBits;
  options.transposedB = k.transposedB;
  options.descriptor = k.descriptor;
  options.applicable = k.applicable;
  options.measurer = o.measurer;
  llvm::Expected<st::TuneResult> result =
      st::tuneSchedule(model, *csr, k.type, k.free, options);
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
  if (k.transposed && o.measureTopK > 0)
    remark << "; not measured: the sparse operand is on the right";
  // The JIT measurer feeds f32 or f64 values (KernelTuningContext).
  if (Type et = k.kernel.getElementType();
      result->measured && !et.isF32() && !et.isF64())
    remark << "; the " << et << " kernel was timed in its f"
           << k.elementBits << " form";
  if (result->measured && k.type == st::KernelType::SpGEMM)
    remark << "; timed as A A (its A's matrix times itself), the matrix "
              "square";
  if (result->measured && k.descriptor && k.descriptor->scaled)
    remark << "; timed without its invariant factor (the fused scale)";
  if (!result->fallbackReason.empty())
    remark << "; ranked by the heuristic: " << result->fallbackReason;
  if (result->modelGuard)
    remark << (result->keptHeuristic() ? "; kept the heuristic: "
                                       : "; the guard agrees: ")
           << result->modelGuard->str();
  if (!note.empty())
    remark << "; " << note;
  // A decision by the heuristic fallback is the model's answer too (it
  // cannot serve the target); recorded like any other.
  if (o.database) {
    if (llvm::Error e = o.database->append(
            recordOf(k, *csr, model, o, *result, secondsSince(start))))
      op->emitWarning("sptune-autotune: the decision was not recorded: ")
          << llvm::toString(std::move(e));
    else
      remark << "; recorded in " << o.database->path();
  }
  op->emitRemark(remark.str()).attachNote()
      << "tuned for the matrix '" << k.source << "', from " << k.sourceOrigin;
  return success();
}

FailureOr<bool> mlir::sptune::scheduleFromDatabase(
    linalg::LinalgOp op, llvm::StringRef modelIdentity,
    const KernelTuningOptions &o, MatrixCache &matrices) {
  if (!o.database)
    return false;
  FailureOr<KernelTuningContext> k = resolveKernelTuning(op, o, matrices);
  if (failed(k))
    return failure();
  return scheduleFromDatabase(*k, modelIdentity);
}

llvm::Expected<st::Schedule>
mlir::sptune::untunedSchedule(KernelAttr kernel, const st::Target &target,
                              int64_t free, const st::MatrixStats *stats) {
  st::Schedule heuristic =
      target.heuristicSchedule(kernel.getKind(), stats, free);
  std::string why = whyScheduleDoesNotFit(kernel, target, heuristic);
  if (why.empty())
    return heuristic;
  st::Schedule reference = target.referenceSchedule(kernel.getKind());
  if (whyScheduleDoesNotFit(kernel, target, reference).empty())
    return reference;
  return st::makeError(why);
}

std::string mlir::sptune::whyLeftUnscheduled(linalg::LinalgOp op,
                                             KernelAttr kernel,
                                             const st::Target &target) {
  std::string why = whyTargetRefusesKernel(op, kernel, target);
  return why.empty() ? why : "left unscheduled: " + why;
}

/// Whether `k` passes through unscheduled (whyLeftUnscheduled), with a
/// remark, so that upstream's sparsifier compiles it as written, rather
/// than being refused.
static bool leftUnscheduled(const KernelTuningContext &k) {
  std::string remark = whyLeftUnscheduled(k.op, k.kernel, *k.target);
  if (remark.empty())
    return false;
  k.op->emitRemark("sptune-autotune: ") << remark;
  return true;
}

LogicalResult mlir::sptune::autotune(linalg::LinalgOp op,
                                     const st::CostModel &model,
                                     const KernelTuningOptions &o,
                                     MatrixCache &matrices) {
  FailureOr<KernelTuningContext> k = resolveKernelTuning(op, o, matrices);
  if (failed(k))
    return failure();
  if (leftUnscheduled(*k))
    return success();
  FailureOr<bool> recorded = scheduleFromDatabase(*k, model.identity());
  if (failed(recorded))
    return failure();
  if (*recorded)
    return success();
  return tuneKernel(*k, model);
}

/// Limits of sptune-autotune's size options: ranking 100,000 candidates
/// takes about ten seconds, measuring 64 of them minutes.
static constexpr unsigned kMaxCandidates = 100000;
static constexpr unsigned kMaxMeasured = 64;
/// Variants of one multi-versioned kernel: each is a compiled copy.
static constexpr unsigned kMaxVariants = 16;

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
    if (multiversion > kMaxVariants) {
      getOperation()->emitError("sptune-autotune: multiversion must be at "
                                "most ")
          << kMaxVariants << ", got " << static_cast<unsigned>(multiversion);
      return signalPassFailure();
    }
    std::optional<st::TuningDatabase> db;
    if (!database.empty()) {
      llvm::Expected<st::TuningDatabase> opened =
          st::TuningDatabase::open(database);
      if (!opened) {
        getOperation()->emitError("sptune-autotune: ")
            << llvm::toString(opened.takeError());
        return signalPassFailure();
      }
      db = std::move(*opened);
      if (!db->skipped().empty())
        getOperation()->emitWarning("sptune-autotune: skipped ")
            << db->skipped().size()
            << " malformed line(s) of the tuning database, the first: "
            << db->skipped().front();
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
    options.database = db ? &*db : nullptr;
    options.multiversion = multiversion;
    options.trainingMatrices = trainingMatrices;

    SmallVector<linalg::LinalgOp> toTune;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(SptuneDialect::kKernelAttrName) &&
          !op->hasAttr(SptuneDialect::kScheduleAttrName))
        toTune.push_back(op);
    });
    MatrixCache matrices;
    std::string error;
    bool ok = true;
    // Release mode for a target other than the CPU ranks with that target's
    // shipped model (cost-model/models/<target>-default.pt: embedded, else
    // the source-tree file). A target without one keeps the CPU's release
    // model, which cannot rank it, so the heuristic does and the remark says
    // that no model is shipped for it.
    st::CostModelOptions cmOptions;
    cmOptions.logPath = logPath;
    std::string modelNote;
    if (mode == st::CostModelMode::Release && modelPath.empty() &&
        options.target != st::TargetKind::CPU && !toTune.empty()) {
      if (std::optional<std::string> source =
              st::releaseModelSource(options.target)) {
        cmOptions.target = options.target;
        std::optional<std::string> identity = st::takeValue(
            st::costModelIdentity(mode, modelPath, cmOptions.target), error);
        if (!identity) {
          getOperation()->emitError("sptune-autotune: cannot load the cost "
                                    "model: ")
              << error;
          return signalPassFailure();
        }
        modelNote = "release model for '" + std::string(targetInfo->name()) +
                    "': " + *source + " (" + *identity + ")";
      } else {
        modelNote = "no release model is shipped for '" +
                    std::string(targetInfo->name()) + "' (" +
                    st::defaultModelPath(options.target) + "); give model=FILE";
      }
    }
    // Each kernel is resolved once (its target looked up, its matrix read at
    // most once) and keeps its context from the database lookup to the
    // record.
    std::vector<KernelTuningContext> kernels;
    auto resolveAll = [&] {
      for (linalg::LinalgOp op : toTune) {
        FailureOr<KernelTuningContext> k =
            resolveKernelTuning(op, options, matrices);
        ok &= succeeded(k);
        if (succeeded(k) && !leftUnscheduled(*k))
          kernels.push_back(std::move(*k));
      }
      toTune.clear();
    };
    // Recorded decisions first: a warm compile loads no model.
    if (db && !toTune.empty()) {
      std::optional<std::string> identity = st::takeValue(
          st::costModelIdentity(mode, modelPath, cmOptions.target), error);
      if (!identity) {
        getOperation()->emitError("sptune-autotune: cannot load the cost "
                                  "model: ")
            << error;
        return signalPassFailure();
      }
      resolveAll();
      llvm::erase_if(kernels, [&](KernelTuningContext &k) {
        FailureOr<bool> found = scheduleFromDatabase(k, *identity);
        ok &= succeeded(found);
        return failed(found) || *found;
      });
    }
    if (toTune.empty() && kernels.empty()) {
      if (!ok)
        signalPassFailure();
      return;
    }
    std::unique_ptr<st::CostModel> model =
        st::takeValue(st::createCostModel(mode, modelPath, cmOptions), error)
            .value_or(nullptr);
    if (!model) {
      getOperation()->emitError("sptune-autotune: cannot load the cost model: ")
          << error;
      return signalPassFailure();
    }
    // Once per run: the model's picks count for less on a machine it was not
    // trained on.
    if (std::string note = model->machineNote(); !note.empty())
      getOperation()->emitRemark("sptune-autotune: ") << note;
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
    options.measurer = measurer.get();
    resolveAll();
    const size_t recordsBefore = db ? db->records().size() : 0;
    for (KernelTuningContext &k : kernels) {
      // A decision recorded by an earlier kernel of this module (the same
      // matrix, kernel and free size) answers this one too.
      if (db && db->records().size() != recordsBefore) {
        FailureOr<bool> found = scheduleFromDatabase(k, model->identity());
        ok &= succeeded(found);
        if (failed(found) || *found)
          continue;
      }
      ok &= succeeded(tuneKernel(k, *model, modelNote));
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
