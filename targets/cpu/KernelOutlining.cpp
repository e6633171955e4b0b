//===- KernelOutlining.cpp - A kernel moved into its own function ---------===//

#include "cpu/KernelOutlining.h"

#include "cpu/FilledOutput.h"

#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/Error.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorStorageLayout.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

/// The op of a kind in `Ops` that defines `v`, when `v` is its only use;
/// else null.
template <typename... Ops> static Operation *definedOnlyFor(Value v) {
  Operation *def = v.getDefiningOp();
  return def && isa<Ops...>(def) && def->hasOneUse() ? def : nullptr;
}

func::FuncOp mlir::sptune::declareKernel(ModuleOp module, Location loc,
                                         StringRef name, FunctionType type,
                                         ArrayRef<NamedAttribute> attrs,
                                         unsigned readOnly) {
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    if (f.isDeclaration() && f.getFunctionType() == type &&
        llvm::all_of(attrs, [&](NamedAttribute a) {
          return f->getAttr(a.getName()) == a.getValue();
        }))
      return f;
  auto callee = func::FuncOp::create(loc, name, type);
  callee.setPrivate();
  // Renamed when the name is taken.
  SymbolTable(module).insert(callee, module.getBody()->begin());
  for (NamedAttribute a : attrs)
    callee->setAttr(a.getName(), a.getValue());
  Builder b(module.getContext());
  for (unsigned n = 0; n < readOnly; ++n)
    callee.setArgAttr(n, "bufferization.access", b.getStringAttr("read"));
  return callee;
}

void mlir::sptune::replaceWithKernelCall(RewriterBase &rewriter,
                                         linalg::LinalgOp op, StringRef name,
                                         StringRef attrName, ValueRange inputs,
                                         Value fillValue, bool parallel,
                                         ArrayRef<NamedAttribute> extraMarks) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands(inputs);
  operands.push_back(fillValue);
  Type result = op->getResult(0).getType();
  SmallVector<Type> types(inputs.getTypes());
  types.push_back(result);
  // One declaration per signature, parallelism and extra marks.
  SmallVector<NamedAttribute> marks = {
      rewriter.getNamedAttr(attrName, kernelMarks(rewriter, parallel, types))};
  marks.append(extraMarks.begin(), extraMarks.end());
  func::FuncOp callee = declareKernel(
      op->getParentOfType<ModuleOp>(), loc, name,
      rewriter.getFunctionType(ValueRange(operands).getTypes(), {result}),
      marks, inputs.size());
  auto call = func::CallOp::create(rewriter, loc, callee, operands);
  Operation *fill = op.getDpsInitOperand(0)->get().getDefiningOp();
  rewriter.replaceOp(op, call.getResults());
  eraseUnusedFill(rewriter, fill);
}

DictionaryAttr mlir::sptune::kernelMarks(Builder &b, bool parallel,
                                         TypeRange types) {
  SmallVector<Attribute> typeAttrs;
  for (Type t : types)
    typeAttrs.push_back(TypeAttr::get(t));
  return b.getDictionaryAttr(
      {b.getNamedAttr("parallel", b.getBoolAttr(parallel)),
       b.getNamedAttr("types", b.getArrayAttr(typeAttrs))});
}

LogicalResult mlir::sptune::defineDeclaredKernels(
    ModuleOp module, StringRef attrName, size_t count,
    function_ref<LogicalResult(func::FuncOp, bool, ArrayRef<RankedTensorType>)>
        define) {
  for (func::FuncOp f : module.getOps<func::FuncOp>()) {
    auto marks = f->getAttrOfType<DictionaryAttr>(attrName);
    if (!marks || !f.isDeclaration())
      continue;
    auto parallel = marks.getAs<BoolAttr>("parallel");
    auto types = marks.getAs<ArrayAttr>("types");
    SmallVector<RankedTensorType> read;
    if (types)
      for (Attribute t : types)
        if (auto ta = dyn_cast<TypeAttr>(t))
          if (auto rt = dyn_cast<RankedTensorType>(ta.getValue()))
            read.push_back(rt);
    if (!parallel || !types || types.size() != count || read.size() != count)
      read.clear();
    if (failed(define(f, parallel && parallel.getValue(), read)))
      return failure();
  }
  return success();
}

Type mlir::sptune::floatElementOf(ArrayRef<RankedTensorType> types,
                                  function_ref<bool(Type)> isStorage) {
  if (types.empty() || !isStorage(types[0]))
    return {};
  Type element = types[0].getElementType();
  return element.isF32() || element.isF64() ? element : Type();
}

Value mlir::sptune::levelSize(OpBuilder &b, Location loc, Value specifier,
                              int64_t level) {
  return sparse_tensor::GetStorageSpecifierOp::create(
      b, loc, specifier,
      sparse_tensor::StorageSpecifierKindAttr::get(
          b.getContext(), sparse_tensor::StorageSpecifierKind::LvlSize),
      b.getIndexAttr(level));
}

SmallVector<Type> mlir::sptune::sparseBufferTypes(RankedTensorType tensor) {
  SmallVector<Type> types;
  sparse_tensor::foreachFieldAndTypeInSparseTensor(
      sparse_tensor::SparseTensorType(tensor),
      [&](Type type, sparse_tensor::FieldIndex,
          sparse_tensor::SparseTensorFieldKind, sparse_tensor::Level,
          sparse_tensor::LevelType) {
        types.push_back(type);
        return true;
      });
  return types;
}

FailureOr<OpBuilder> mlir::sptune::startKernelBody(func::FuncOp f,
                                                   StringRef attrName,
                                                   FunctionType expected,
                                                   StringRef kernel) {
  if (f.getFunctionType() != expected)
    return f.emitError("sptune: the ")
           << kernel << " kernel's signature after sparsification is "
           << f.getFunctionType() << ", not " << expected;
  for (unsigned n = 0; n < f.getNumArguments(); ++n)
    f.removeArgAttr(n, "bufferization.access");
  f->removeAttr(attrName);
  return OpBuilder::atBlockBegin(f.addEntryBlock());
}

Operation *
mlir::sptune::rowLoop(OpBuilder &b, Location loc, Value lo, Value hi,
                      bool parallel,
                      function_ref<void(OpBuilder &, Location, Value)> body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (parallel)
    return scf::ParallelOp::create(
        b, loc, ValueRange{lo}, ValueRange{hi}, ValueRange{one},
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          body(b, loc, ivs[0]);
        });
  return scf::ForOp::create(
      b, loc, lo, hi, one, ValueRange{},
      [&](OpBuilder &b, Location loc, Value i, ValueRange) {
        body(b, loc, i);
        scf::YieldOp::create(b, loc);
      });
}

void mlir::sptune::rowBlocks(
    OpBuilder &b, Location loc, Value lo, Value hi, bool parallel, int threads,
    Operation *within, WorkBefore workBefore,
    function_ref<void(OpBuilder &, Location, Value, Value)> block) {
  if (!parallel) {
    block(b, loc, lo, hi);
    return;
  }
  Value blocks = threads > 0 ? arith::ConstantIndexOp::create(b, loc, threads)
                             : maxThreads(b, loc, within);
  balancedRowBlocks(b, loc, lo, hi, blocks, workBefore, block);
}

FailureOr<func::FuncOp> mlir::sptune::outlineKernel(linalg::LinalgOp op,
                                                    StringRef name) {
  auto parent = op->getParentOfType<func::FuncOp>();
  auto module = parent ? parent->getParentOfType<ModuleOp>() : ModuleOp();
  if (!module || SymbolTable(module).lookup(name))
    return failure();
  // The ops that move: the kernel, after the allocations of its outputs
  // that nothing else uses. A kernel in level space (blocked storage) moves
  // with the sparse_tensor.reinterpret_map ops that only it uses and with
  // the one that maps its result back, so that the function takes and
  // returns tensors in dimension space: a level-space tensor crossing a
  // call does not compile ("failed to legalize unresolved
  // materialization").
  SmallVector<Operation *> moved;
  auto isAllocation = [](Value v) {
    return definedOnlyFor<tensor::EmptyOp, bufferization::AllocTensorOp>(v);
  };
  for (OpOperand &operand : op->getOpOperands()) {
    bool init = op.isDpsInit(&operand);
    Value v = operand.get();
    if (Operation *map = definedOnlyFor<sparse_tensor::ReinterpretMapOp>(v)) {
      if (Operation *alloc = isAllocation(map->getOperand(0)); init && alloc)
        moved.push_back(alloc);
      moved.push_back(map);
    } else if (Operation *alloc = isAllocation(v); init && alloc) {
      moved.push_back(alloc);
    }
  }
  moved.push_back(op);
  if (op->getNumResults() == 1 && op->getResult(0).hasOneUse())
    if (auto back = dyn_cast<sparse_tensor::ReinterpretMapOp>(
            *op->getResult(0).getUsers().begin()))
      moved.push_back(back);
  Operation *last = moved.back();
  // Their inputs, in first-use order.
  llvm::SetVector<Value> inputs;
  for (Operation *m : moved) {
    for (Value v : m->getOperands())
      if (!llvm::is_contained(moved, v.getDefiningOp()))
        inputs.insert(v);
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(m->getRegions(), above);
    for (Value v : above)
      inputs.insert(v);
  }

  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(parent);
  auto type = FunctionType::get(op->getContext(),
                                TypeRange(ValueRange(inputs.getArrayRef())),
                                last->getResultTypes());
  auto outlined = func::FuncOp::create(b, op->getLoc(), name, type);
  outlined.setPrivate();
  // The function-level passes after sparsification (accumulators, OpenMP
  // schedule, balanced rows) read the function's schedule: the kernel's own.
  if (Attribute schedule =
          op->getAttr(mlir::sptune::SptuneDialect::kScheduleAttrName))
    outlined->setAttr(mlir::sptune::SptuneDialect::kScheduleAttrName, schedule);
  Block *entry = outlined.addEntryBlock();
  IRMapping map;
  for (auto [v, arg] : llvm::zip(inputs, entry->getArguments()))
    map.map(v, arg);
  b.setInsertionPointToStart(entry);
  Operation *clone = nullptr;
  for (Operation *m : moved)
    clone = b.clone(*m, map);
  func::ReturnOp::create(b, op->getLoc(), clone->getResults());

  b.setInsertionPoint(op);
  auto call = func::CallOp::create(b, op->getLoc(), outlined,
                                   ValueRange(inputs.getArrayRef()));
  last->replaceAllUsesWith(call.getResults());
  for (Operation *m : llvm::reverse(moved))
    m->erase();
  return outlined;
}

Value mlir::sptune::scaledRowSum(
    OpBuilder &b, Location loc, Value first, Value end, Value init,
    Value coordinates, Value values, VectorType rowType,
    function_ref<Value(OpBuilder &, Location, Value)> loadRow) {
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto entries = scf::ForOp::create(
      b, loc, first, end, c1, ValueRange{init},
      [&](OpBuilder &b, Location loc, Value p, ValueRange sum) {
        Value coordinate = loadPosition(b, loc, coordinates, p);
        Value v = vector::BroadcastOp::create(
            b, loc, rowType, memref::LoadOp::create(b, loc, values, p));
        Value row = loadRow(b, loc, coordinate);
        scf::YieldOp::create(
            b, loc, vector::FMAOp::create(b, loc, v, row, sum[0]).getResult());
      });
  return entries.getResult(0);
}
