//===- SparseReadCheck.cpp - sptune-check-sparse-reads --------------------===//
//
// Part of sptune. A `sparse_tensor.new` of a static tensor type trusts the
// file to have that shape: the sparse runtime checks it with `assert`, which
// release builds compile out, and the generated code then writes the file's
// coordinates out of bounds. This pass puts the check back in the program:
// before the read, the file's header is read through the runtime's reader
// API (createCheckedSparseTensorReader with every size left dynamic,
// getSparseTensorReaderDimSizes, delSparseTensorReader) and, when the sizes
// differ, the program prints the expected shape and exits with status 1, as
// the runtime's own fatal errors do.
//
//===----------------------------------------------------------------------===//

#include "sptune/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/SparseTensor/IR/Enums.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CHECKSPARSEREADS
#include "sptune/Lowering/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;

namespace {

/// The runtime's code for an element type (sparse_tensor::PrimaryType), as
/// the sparsifier passes it to createCheckedSparseTensorReader.
std::optional<sparse_tensor::PrimaryType> primaryType(Type t) {
  using sparse_tensor::PrimaryType;
  if (t.isF64())
    return PrimaryType::kF64;
  if (t.isF32())
    return PrimaryType::kF32;
  if (t.isF16())
    return PrimaryType::kF16;
  if (t.isBF16())
    return PrimaryType::kBF16;
  if (t.isInteger(64))
    return PrimaryType::kI64;
  if (t.isInteger(32))
    return PrimaryType::kI32;
  if (t.isInteger(16))
    return PrimaryType::kI16;
  if (t.isInteger(8))
    return PrimaryType::kI8;
  if (auto c = dyn_cast<ComplexType>(t)) {
    if (c.getElementType().isF64())
      return PrimaryType::kC64;
    if (c.getElementType().isF32())
      return PrimaryType::kC32;
  }
  return std::nullopt;
}

/// Declares `name` unless the module has it (null when the module's `name`
/// is something else); `cInterface` for the
/// functions the runtime defines as `_mlir_ciface_<name>` (memref arguments
/// or results), as the sparsifier declares them.
func::FuncOp declareRuntime(ModuleOp module, StringRef name, FunctionType type,
                            bool cInterface = true) {
  if (Operation *existing = module.lookupSymbol(name)) {
    auto f = dyn_cast<func::FuncOp>(existing);
    return f && f.getFunctionType() == type ? f : func::FuncOp();
  }
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  if (cInterface)
    f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return f;
}

/// "4x4" for a shape.
std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s;
}

/// Inserts the header check before `read`; false (nothing inserted) when the
/// element type is not one the runtime reads (the read itself fails then),
/// the file name is not an `!llvm.ptr` (what the runtime takes), or the
/// module defines one of the names the check calls otherwise.
bool checkShapeBefore(sparse_tensor::NewOp read) {
  auto type = cast<RankedTensorType>(read.getResult().getType());
  std::optional<sparse_tensor::PrimaryType> valType =
      primaryType(type.getElementType());
  if (!valType)
    return false;
  auto module = read->getParentOfType<ModuleOp>();
  MLIRContext *ctx = read.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  if (!module || read.getSource().getType() != ptr)
    return false;
  Type index = IndexType::get(ctx);
  auto sizes = MemRefType::get({ShapedType::kDynamic}, index);
  func::FuncOp create = declareRuntime(
      module, "createCheckedSparseTensorReader",
      FunctionType::get(ctx, {ptr, sizes, IntegerType::get(ctx, 32)}, {ptr}));
  func::FuncOp dims =
      declareRuntime(module, "getSparseTensorReaderDimSizes",
                     FunctionType::get(ctx, {ptr}, {sizes}));
  func::FuncOp destroy = declareRuntime(
      module, "delSparseTensorReader", FunctionType::get(ctx, {ptr}, {}),
      /*cInterface=*/false);
  func::FuncOp exitFn = declareRuntime(
      module, "exit", FunctionType::get(ctx, {IntegerType::get(ctx, 32)}, {}),
      /*cInterface=*/false);
  if (!create || !dims || !destroy || !exitFn)
    return false;

  OpBuilder b(read);
  Location loc = read.getLoc();
  int64_t rank = type.getRank();
  // Every size dynamic (0): the reader accepts the file's, which are then
  // asked for and compared here.
  Value rankValue = arith::ConstantIndexOp::create(b, loc, rank);
  Value shape = memref::AllocaOp::create(
      b, loc, MemRefType::get({rank}, index));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t d = 0; d < rank; ++d)
    memref::StoreOp::create(b, loc, zero, shape,
                            ValueRange{arith::ConstantIndexOp::create(b, loc, d)});
  Value shapeArg = memref::CastOp::create(b, loc, sizes, shape);
  Value code = arith::ConstantIntOp::create(
      b, loc, static_cast<int64_t>(*valType), 32);
  Value reader =
      func::CallOp::create(b, loc, create,
                           ValueRange{read.getSource(), shapeArg, code})
          .getResult(0);
  Value fileSizes =
      func::CallOp::create(b, loc, dims, ValueRange{reader}).getResult(0);
  Value ok = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      memref::DimOp::create(b, loc, fileSizes, 0), rankValue);
  for (int64_t d = 0; d < rank; ++d) {
    if (ShapedType::isDynamic(type.getDimSize(d)))
      continue;
    // Read only when the rank matched (else position d may be past the end).
    Value inRange = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult,
        arith::ConstantIndexOp::create(b, loc, d),
        memref::DimOp::create(b, loc, fileSizes, 0));
    auto load = scf::IfOp::create(b, loc, TypeRange{index}, inRange,
                                  /*withElseRegion=*/true);
    {
      OpBuilder t = load.getThenBodyBuilder();
      Value v = memref::LoadOp::create(
          t, loc, fileSizes,
          ValueRange{arith::ConstantIndexOp::create(t, loc, d)});
      scf::YieldOp::create(t, loc, v);
      OpBuilder e = load.getElseBodyBuilder();
      scf::YieldOp::create(e, loc,
                           ValueRange{arith::ConstantIndexOp::create(e, loc, -1)});
    }
    Value same = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, load.getResult(0),
        arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
    ok = arith::AndIOp::create(b, loc, ok, same);
  }
  func::CallOp::create(b, loc, destroy, ValueRange{reader});
  std::string where;
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    where = " at " + file.getFilename().str() + ":" +
            std::to_string(file.getLine());
  // Say why and exit(1), as the runtime's own fatal errors do; not
  // cf.assert, whose puts() is lost in stdout's buffer when abort() runs.
  Value bad = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 1, 1));
  auto fail = scf::IfOp::create(b, loc, TypeRange{}, bad,
                                /*withElseRegion=*/false);
  OpBuilder t = fail.getThenBodyBuilder();
  vector::PrintOp::create(
      t, loc,
      "sptune: the file read by sparse_tensor.new" + where +
          " does not have the shape " + shapeText(type.getShape()) +
          " of its tensor type (a file of another shape would be read out "
          "of bounds)");
  func::CallOp::create(t, loc, exitFn,
                       ValueRange{arith::ConstantIntOp::create(t, loc, 1, 32)});
  return true;
}

struct CheckSparseReadsPass
    : public mlir::sptune::impl::CheckSparseReadsBase<CheckSparseReadsPass> {
  using CheckSparseReadsBase::CheckSparseReadsBase;

  void runOnOperation() override {
    SmallVector<sparse_tensor::NewOp> reads;
    getOperation().walk([&](sparse_tensor::NewOp read) {
      auto type = cast<RankedTensorType>(read.getResult().getType());
      if (!llvm::all_of(type.getShape(), ShapedType::isDynamic))
        reads.push_back(read);
    });
    for (sparse_tensor::NewOp read : reads)
      checkShapeBefore(read);
  }
};

} // namespace
