//===- FactoredMttkrp.cpp - MTTKRP over CSF, each fiber summed once -------===//

#include "cpu/FactoredMttkrp.h"

#include "cpu/BalancedRows.h"
#include "cpu/FilledOutput.h"
#include "cpu/KernelOutlining.h"

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sptune;
namespace st = mlir::sparse_tensor;

namespace {

/// Whether `type` is a 3-D tensor the kernel reads as CSF: plain storage
/// (isPlainSparseStorage), the first level dense or compressed, the others
/// compressed, every compressed level unique.
bool isCsf(Type type) {
  if (!isPlainSparseStorage(type, 3))
    return false;
  st::SparseTensorType t(cast<RankedTensorType>(type));
  auto compressed = [&](st::Level l) {
    return t.isCompressedLvl(l) && t.isUniqueLvl(l);
  };
  return (t.isDenseLvl(0) || compressed(0)) && compressed(1) && compressed(2);
}

/// The rank R when `type` is a dense R-column matrix of `element` (R static,
/// within kMaxMttkrpRowBytes), else -1.
int64_t factorRank(Type type, Type element) {
  return staticRowWidth(type, element, 2, kMaxMttkrpRowBytes);
}

} // namespace

std::string mlir::sptune::whyNotFactoredMttkrp(linalg::LinalgOp op,
                                               FactoredMttkrp &mttkrp) {
  llvm::Expected<::sptune::KernelDescriptor> described =
      describedPlainKernel(op, "mttkrp", "an MTTKRP", 3);
  if (!described)
    return llvm::toString(described.takeError());
  const ::sptune::KernelDescriptor &d = *described;
  const auto &ops = d.operands;
  unsigned sparse = 0;
  while (sparse < 3 && !ops[sparse].sparse())
    ++sparse;
  if (sparse == 3 || ops[3].kind != ::sptune::KernelOperand::Kind::Output)
    return "its output is sparse";
  const std::vector<unsigned> &ikl = ops[sparse].dims;
  if (ops[3].dims.size() != 2 || ops[3].dims[0] != ikl[0] ||
      llvm::is_contained(ikl, ops[3].dims[1]))
    return "it does not write A(i, j) with i the sparse operand's first "
           "dimension";
  unsigned j = ops[3].dims[1];
  int cIdx = -1, dIdx = -1;
  for (unsigned n = 0; n < 3; ++n) {
    if (n == sparse)
      continue;
    if (ops[n].dims == std::vector<unsigned>{ikl[1], j})
      cIdx = static_cast<int>(n);
    else if (ops[n].dims == std::vector<unsigned>{ikl[2], j})
      dIdx = static_cast<int>(n);
  }
  if (cIdx < 0 || dIdx < 0)
    return "it does not read C(k, j) and D(l, j) with j contiguous, k and l "
           "the sparse operand's second and third dimensions";
  mttkrp.op = op;
  mttkrp.b = op.getDpsInputOperand(sparse)->get();
  mttkrp.c = op.getDpsInputOperand(cIdx)->get();
  mttkrp.d = op.getDpsInputOperand(dIdx)->get();
  if (!isCsf(mttkrp.b.getType()))
    return "its sparse operand is not CSF (levels in dimension order, the "
           "first dense or compressed, the others compressed, unique)";
  Type element = getElementTypeOrSelf(mttkrp.b.getType());
  if (!element.isF32() && !element.isF64())
    return "its element type is not f32 or f64";
  Value init = op.getDpsInitOperand(0)->get();
  int64_t rank = factorRank(init.getType(), element);
  if (rank < 0 || factorRank(mttkrp.c.getType(), element) != rank ||
      factorRank(mttkrp.d.getType(), element) != rank)
    return "its rank is dynamic, its rows above " +
           std::to_string(kMaxMttkrpRowBytes) +
           " bytes, or its operands of different element types";
  mttkrp.fillValue = freshFillValue(init);
  if (!mttkrp.fillValue || mttkrp.fillValue.getType() != element)
    return "its output does not start from a linalg.fill of a fresh tensor";
  return "";
}

void mlir::sptune::outlineFactoredMttkrp(RewriterBase &rewriter,
                                         const FactoredMttkrp &mttkrp,
                                         bool parallel) {
  replaceWithKernelCall(rewriter, mttkrp.op, "sptune_mttkrp",
                        kFactoredMttkrpAttrName, {mttkrp.b, mttkrp.c, mttkrp.d},
                        mttkrp.fillValue, parallel);
}

namespace {

/// The kernel's body on its buffers (the file header's loop). `args`: B's
/// buffers (positions and coordinates of each compressed level, values,
/// specifier), C, D and A's fill value.
void buildBody(OpBuilder &b, Location loc, ValueRange args, MemRefType aType,
               bool denseSlices, bool parallel) {
  Type element = aType.getElementType();
  int64_t rank = aType.getDimSize(1);
  unsigned n = 0;
  Value slicePositions, sliceCoordinates;
  if (!denseSlices) {
    slicePositions = args[n++];
    sliceCoordinates = args[n++];
  }
  Value fiberPositions = args[n++], fiberCoordinates = args[n++];
  Value entryPositions = args[n++], entryCoordinates = args[n++];
  Value values = args[n++], specifier = args[n++];
  Value c = args[n++], d = args[n++], fill = args[n++];
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value rows = st::GetStorageSpecifierOp::create(
      b, loc, specifier,
      st::StorageSpecifierKindAttr::get(b.getContext(),
                                        st::StorageSpecifierKind::LvlSize),
      b.getIndexAttr(0));
  // A on a cache line, as bufferization allocates it.
  Value a = memref::AllocOp::create(
      b, loc, aType, aType.isDynamicDim(0) ? ValueRange{rows} : ValueRange{},
      b.getI64IntegerAttr(64));
  auto rowType = VectorType::get({rank}, element);
  Value filled = vector::BroadcastOp::create(b, loc, rowType, fill);
  Value zero = vector::BroadcastOp::create(
      b, loc, rowType,
      arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0)));
  // The slices are positions [first, slices) of the first level.
  Value first = c0, slices = rows;
  if (!denseSlices) {
    // Rows of no slice hold the fill's value.
    rowLoop(b, loc, c0, rows, /*parallel=*/false,
            [&](OpBuilder &b, Location loc, Value i) {
              vector::StoreOp::create(b, loc, filled, a, ValueRange{i, c0});
            });
    first = loadPosition(b, loc, slicePositions, c0);
    slices = loadPosition(b, loc, slicePositions, c1);
  }
  // Slice s: A(i, :) = fill + sum over its fibers (k) of
  // C(k, :) (sum over the fiber's entries (l) of B(i, k, l) D(l, :)).
  auto slice = [&](OpBuilder &b, Location loc, Value s) {
    Value i = denseSlices ? s : loadPosition(b, loc, sliceCoordinates, s);
    auto [firstFiber, endFiber] = loadPositionRange(b, loc, fiberPositions, s);
    auto fibers = scf::ForOp::create(
        b, loc, firstFiber, endFiber, c1, ValueRange{filled},
        [&](OpBuilder &b, Location loc, Value f, ValueRange out) {
          Value k = loadPosition(b, loc, fiberCoordinates, f);
          auto [first, end] = loadPositionRange(b, loc, entryPositions, f);
          Value fiberSum = scaledRowSum(
              b, loc, first, end, zero, entryCoordinates, values, rowType,
              [&](OpBuilder &b, Location loc, Value l) -> Value {
                return vector::LoadOp::create(b, loc, rowType, d,
                                              ValueRange{l, c0});
              });
          Value ck =
              vector::LoadOp::create(b, loc, rowType, c, ValueRange{k, c0});
          // A fiber without entries (possible in assembled storage) adds
          // nothing, as in the sparsifier's loops: 0 * C(k, :) would turn an
          // infinite or NaN C(k, :) into NaN.
          Value added = vector::FMAOp::create(b, loc, fiberSum, ck, out[0]);
          Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              first, end);
          scf::YieldOp::create(
              b, loc,
              arith::SelectOp::create(b, loc, empty, out[0], added)
                  .getResult());
        });
    vector::StoreOp::create(b, loc, fibers.getResult(0), a, ValueRange{i, c0});
  };
  rowLoop(b, loc, first, slices, parallel, slice);
  func::ReturnOp::create(b, loc, a);
}

} // namespace

LogicalResult mlir::sptune::defineFactoredMttkrpKernels(ModuleOp module) {
  return defineDeclaredKernels(
      module, kFactoredMttkrpAttrName, 4,
      [&](func::FuncOp f, bool parallel,
          ArrayRef<RankedTensorType> tensors) -> LogicalResult {
        Type element = floatElementOf(tensors, isCsf);
        int64_t rank = element ? factorRank(tensors[3], element) : -1;
        if (rank < 0 || factorRank(tensors[1], element) != rank ||
            factorRank(tensors[2], element) != rank)
          return f.emitError("sptune: the factored MTTKRP kernel's '")
                 << kFactoredMttkrpAttrName
                 << "' must be {parallel = bool, types = [B (CSF), C, D, A]} "
                    "with C, D and A of one static number of columns, f32 or "
                    "f64, rows of at most "
                 << kMaxMttkrpRowBytes << " bytes";
        bool denseSlices = st::SparseTensorType(tensors[0]).isDenseLvl(0);
        SmallVector<Type> inputs = sparseBufferTypes(tensors[0]);
        // C, D, A's fill value; A.
        for (RankedTensorType t : tensors.slice(1, 2))
          inputs.push_back(MemRefType::get(t.getShape(), element));
        inputs.push_back(element);
        auto aType = MemRefType::get(tensors[3].getShape(), element);
        FailureOr<OpBuilder> b = startKernelBody(
            f, kFactoredMttkrpAttrName,
            FunctionType::get(module.getContext(), inputs, {aType}),
            "factored MTTKRP");
        if (failed(b))
          return failure();
        buildBody(*b, f.getLoc(), f.getArguments(), aType, denseSlices,
                  parallel);
        return success();
      });
}
