//===- ScheduleMapping.cpp - From a Schedule to MLIR constructs -----------===//

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Target.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

bool mlir::sptune::isSparseOperandTransposed(KernelAttr kernel) {
  SmallVector<LoopRole> roles =
      kernel.getOperandRoles(kernel.getSparseOperand());
  return roles.size() == 2 && roles[0] != st::Role::I;
}

bool mlir::sptune::hasNarrowWidths(
    sparse_tensor::SparseTensorEncodingAttr enc) {
  auto narrow = [](unsigned w) { return w != 0 && w < 32; };
  return enc && (narrow(enc.getPosWidth()) || narrow(enc.getCrdWidth()));
}

std::string mlir::sptune::whyNotApplicable(KernelAttr kernel,
                                           const st::Schedule &schedule) {
  if (schedule.kernel != kernel.getKind())
    return std::string("schedule is for '") + st::toString(schedule.kernel) +
           "' but the op is a '" +
           stringifyKernelKind(kernel.getKind()).str() + "' kernel";
  // A target that tiles the matrix itself has no MLIR storage levels or
  // loop order to apply; its own lowering consumes its schedules.
  if (const st::TargetKnobs *knobs = st::lookupTargetKnobs(schedule.target);
      knobs && !knobs->hasStorageLevels())
    return std::string("'") + st::toString(schedule.target) +
           "' schedules are not applied to the IR (the target lowers them "
           "itself)";
  if (const st::Target *target = st::TargetRegistry::lookup(schedule.target)) {
    std::string elementType;
    llvm::raw_string_ostream(elementType) << kernel.getElementType();
    if (std::string why =
            target->whyScheduleRefusesElementType(schedule, elementType);
        !why.empty())
      return why;
  }
  ArrayRef<OperandKind> kinds = kernel.getOperandKinds();
  bool sparseOut = llvm::is_contained(kinds, OperandKind::SparseOut);
  bool inPlace = sparseOut && !llvm::is_contained(kinds, OperandKind::Sparse);
  if (sparseOut) {
    std::string why = st::whyIllegalForSparseOutput(schedule, inPlace);
    if (!why.empty())
      return why;
  }
  if (std::string why = st::whyIllegalForLibraryKernel(schedule, inPlace);
      !why.empty())
    return why;
  // Blocks store their zeros. An SDDMM's blocked result is restricted to
  // its sample's entries when converted back (keepEntriesOf, applySchedule);
  // this product is refused blocks instead: they only add the zeros' work
  // and that extra pass to an in-place update of A's own entries.
  if (isElementwiseIntoSparse(kernel) &&
      (schedule.splitRow > 1 || schedule.splitCol > 1))
    return "an elementwise product into sparse storage takes no blocks: its "
           "result would store the zeros of the blocks as entries";
  std::string why = st::whyIllegal(schedule);
  if (why.empty())
    why = st::whyIllegalForOrientation(schedule,
                                       isSparseOperandTransposed(kernel));
  if (!why.empty())
    return why;
  const auto &dense = st::Schedule::denseOperands(schedule.kernel);
  for (unsigned n = 0; n < dense.size(); ++n)
    if (schedule.isDenseTransposed(n) && denseOperandIndex(kernel, n) < 0)
      return std::string("the kernel has no dense operand '") + dense[n].name +
             "' whose layout could be chosen";
  int64_t rows = kernel.getLoopSize(LoopRole::I);
  int64_t cols = kernel.getLoopSize(st::Schedule::colRole(kernel.getKind()));
  return st::whyIllegalForShape(schedule,
                                ShapedType::isDynamic(rows) ? -1 : rows,
                                ShapedType::isDynamic(cols) ? -1 : cols);
}

int mlir::sptune::denseOperandIndex(KernelAttr kernel, unsigned n) {
  const auto &dense = st::Schedule::denseOperands(kernel.getKind());
  if (n >= dense.size())
    return -1;
  // Dense operands 0..n claim the op's operands in order, each the first
  // unclaimed one indexed by its roles: two of the same roles (a sparse ⊙
  // dense product's B(i, j) and C(i, j)) are told apart by position.
  ArrayRef<OperandKind> kinds = kernel.getOperandKinds();
  llvm::SmallVector<bool> claimed(kinds.size(), false);
  int found = -1;
  for (unsigned m = 0; m <= n; ++m) {
    found = -1;
    for (unsigned idx = 0; idx < kinds.size() && found < 0; ++idx) {
      if (claimed[idx] ||
          (kinds[idx] != OperandKind::Dense && kinds[idx] != OperandKind::Out))
        continue;
      SmallVector<LoopRole> roles = kernel.getOperandRoles(idx);
      if (roles.size() == 2 &&
          ((roles[0] == dense[m].outer && roles[1] == dense[m].inner) ||
           (roles[0] == dense[m].inner && roles[1] == dense[m].outer)))
        found = static_cast<int>(idx);
    }
    if (found >= 0)
      claimed[found] = true;
  }
  return found;
}

bool mlir::sptune::isElementwiseIntoSparse(KernelAttr kernel) {
  const st::KernelTypeInfo &info = st::kernelTypeInfo(kernel.getKind());
  return info.pattern &&
         info.pattern->body == st::KernelDescriptor::Body::ElementwiseProduct &&
         kernel.getOperandKinds().back() == OperandKind::SparseOut;
}

bool mlir::sptune::usesCopiedSampleForm(KernelAttr kernel,
                                        const st::Schedule &schedule,
                                        bool outputIsFresh) {
  ArrayRef<OperandKind> kinds = kernel.getOperandKinds();
  // An SDDMM into a fresh output with its reduction innermost; an
  // elementwise product into sparse storage, whatever its output held (its
  // body does not read it).
  bool sddmm = st::productShape(kernel.getKind()) ==
                   st::ProductShape::SampledMatrixMatrix &&
               outputIsFresh && !schedule.loopOrder.empty() &&
               schedule.loopOrder.back().role == st::Role::K;
  return (sddmm || isElementwiseIntoSparse(kernel)) &&
         llvm::is_contained(kinds, OperandKind::SparseOut) &&
         llvm::is_contained(kinds, OperandKind::Sparse) &&
         schedule.target == st::TargetKind::CPU && schedule.tile == 0 &&
         isa<FloatType>(kernel.getElementType()) &&
         // The copy is a bufferization.alloc_tensor, which upstream's
         // sparse-reinterpret-map rebuilds without its `copy` operand for
         // storage that is not the tensor's dimensions in order (blocks,
         // column-major): those keep the fresh output.
         schedule.splitRow == 1 && schedule.splitCol == 1 &&
         schedule.levels.size() == 2 &&
         schedule.levels[0].dim.role == st::Role::I;
}

static sparse_tensor::LevelType toLevelType(st::LevelFormat f) {
  using sparse_tensor::LevelFormat;
  using sparse_tensor::LevelPropNonDefault;
  switch (f) {
  case st::LevelFormat::Dense:
    return *sparse_tensor::buildLevelType(LevelFormat::Dense, true, true);
  case st::LevelFormat::Compressed:
    return *sparse_tensor::buildLevelType(LevelFormat::Compressed, true, true);
  case st::LevelFormat::CompressedNU:
    return *sparse_tensor::buildLevelType(LevelFormat::Compressed, true, false);
  case st::LevelFormat::Singleton:
    return *sparse_tensor::buildLevelType(LevelFormat::Singleton, true, true);
  }
  llvm_unreachable("unknown level format");
}

sparse_tensor::SparseTensorEncodingAttr
mlir::sptune::buildScheduledEncoding(KernelAttr kernel,
                                     const st::Schedule &schedule) {
  // An SpGEMM's, MTTKRP's or batched SpMM's storage is its operands' own
  // (keepsOperandStorage).
  if (::sptune::keepsOperandStorage(kernel.getKind()))
    return kernel.getEncoding();
  MLIRContext *ctx = kernel.getContext();
  SmallVector<LoopRole> roles =
      kernel.getOperandRoles(kernel.getSparseOperand());
  SmallVector<AffineExpr> exprs;
  SmallVector<sparse_tensor::LevelType> lvlTypes;
  for (const st::StorageLevel &level : schedule.levels) {
    unsigned dim = 0;
    for (unsigned d = 0; d < roles.size(); ++d)
      if (roles[d] == level.dim.role)
        dim = d;
    AffineExpr e = getAffineDimExpr(dim, ctx);
    int64_t b = schedule.splitOf(level.dim.role);
    if (level.dim.part == st::Part::Outer)
      e = e.floorDiv(b);
    else if (level.dim.part == st::Part::Inner)
      e = e % b;
    exprs.push_back(e);
    lvlTypes.push_back(toLevelType(level.format));
  }
  AffineMap dimToLvl = AffineMap::get(roles.size(), 0, exprs, ctx);
  AffineMap lvlToDim = sparse_tensor::inferLvlToDim(dimToLvl, ctx);
  // 64-bit widths are the index type (width 0), MLIR's default.
  unsigned posWidth = schedule.posWidth == 64 ? 0 : schedule.posWidth;
  unsigned crdWidth = schedule.crdWidth == 64 ? 0 : schedule.crdWidth;
  auto scheduled = sparse_tensor::SparseTensorEncodingAttr::get(
      ctx, lvlTypes, dimToLvl, lvlToDim, posWidth, crdWidth);
  // Narrow storage whose levels the schedule keeps stays as it is.
  sparse_tensor::SparseTensorEncodingAttr own = kernel.getEncoding();
  if (hasNarrowWidths(own) &&
      own.withoutBitWidths() == scheduled.withoutBitWidths())
    return own;
  return scheduled;
}

int mlir::sptune::freeLoopPosition(linalg::GenericOp op,
                                   unsigned sparseOperand) {
  AffineMap map = op.getMatchingIndexingMap(&op->getOpOperand(sparseOperand));
  for (unsigned l = 0; l < op.getNumLoops(); ++l)
    if (!map.isFunctionOfDim(l))
      return static_cast<int>(l);
  return -1;
}

llvm::Expected<SmallVector<unsigned>>
mlir::sptune::scheduledInterchange(linalg::GenericOp op, unsigned sparseOperand,
                                   const st::Schedule &schedule) {
  AffineMap map = op.getMatchingIndexingMap(&op->getOpOperand(sparseOperand));
  if (map.getNumResults() != schedule.levels.size())
    return st::makeError(
        "the sparse operand has " + std::to_string(map.getNumResults()) +
        " levels, the schedule " + std::to_string(schedule.levels.size()));
  int free = freeLoopPosition(op, sparseOperand);
  unsigned expectedLoops = schedule.levels.size() + (free >= 0 ? 1 : 0);
  if (op.getNumLoops() != expectedLoops)
    return st::makeError(
        "the level-space op has " + std::to_string(op.getNumLoops()) +
        " loops, the schedule " + std::to_string(expectedLoops));
  SmallVector<unsigned> interchange;
  for (const st::DimPart &loop : schedule.loopOrder) {
    auto it = llvm::find_if(schedule.levels, [&](const st::StorageLevel &l) {
      return l.dim == loop;
    });
    if (it == schedule.levels.end()) { // the free loop
      if (free < 0)
        return st::makeError("no free loop for '" + loop.str() + "'");
      interchange.push_back(free);
      continue;
    }
    unsigned level = it - schedule.levels.begin();
    auto dimExpr = dyn_cast<AffineDimExpr>(map.getResult(level));
    if (!dimExpr)
      return st::makeError("level " + std::to_string(level) +
                           " of the sparse operand is not a loop index");
    interchange.push_back(dimExpr.getPosition());
  }
  return interchange;
}
