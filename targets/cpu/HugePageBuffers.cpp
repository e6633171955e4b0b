//===- HugePageBuffers.cpp - Large kernel buffers on huge pages -----------===//

#include "cpu/HugePageBuffers.h"
#include "cpu/CpuPasses.h"
#include "cpu/GustavsonSpgemm.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::sptune;

namespace {

constexpr const char *kMadvise = "madvise";

/// `int madvise(void *addr, size_t length, int advice)`, declared in
/// `module` unless it is already; null (with an error) when a symbol of
/// that name has another type.
func::FuncOp madviseDeclaration(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  auto type =
      FunctionType::get(ctx,
                        {LLVM::LLVMPointerType::get(ctx),
                         IntegerType::get(ctx, 64), IntegerType::get(ctx, 32)},
                        {IntegerType::get(ctx, 32)});
  if (Operation *existing = module.lookupSymbol(kMadvise)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (func && func.getFunctionType() == type)
      return func;
    existing->emitError("sptune-huge-page-buffers: the module's '")
        << kMadvise << "' is not int madvise(void *, size_t, int) (" << type
        << "); rename it";
    return nullptr;
  }
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), kMadvise, type);
  func.setPrivate();
  return func;
}

/// The size in bytes of the buffer `alloc` allocates, at run time (built
/// before `alloc`, from its size operands).
Value bufferBytes(OpBuilder &b, Location loc, memref::AllocOp alloc,
                  const DataLayout &layout) {
  MemRefType type = alloc.getType();
  int64_t elementBytes = static_cast<int64_t>(
      layout.getTypeSize(type.getElementType()).getFixedValue());
  Value bytes = arith::ConstantIndexOp::create(b, loc, elementBytes);
  unsigned dynamic = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value extent =
        type.isDynamicDim(d)
            ? alloc.getDynamicSizes()[dynamic++]
            : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
                  .getResult();
    bytes = arith::MulIOp::create(b, loc, bytes, extent);
  }
  return bytes;
}

/// The buffer's size in bytes when it is static.
std::optional<int64_t> staticBytes(memref::AllocOp alloc,
                                   const DataLayout &layout) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements() *
         static_cast<int64_t>(
             layout.getTypeSize(type.getElementType()).getFixedValue());
}

/// A copy of `alloc` (same sizes) aligned to a huge page.
Value hugePageAlignedCopy(OpBuilder &b, Location loc, memref::AllocOp alloc) {
  auto copy = cast<memref::AllocOp>(b.clone(*alloc));
  copy->removeAttr(kHugePageBufferAttrName);
  copy.setAlignment(
      std::max<int64_t>(kHugePageBytes, alloc.getAlignment().value_or(0)));
  return copy.getResult();
}

} // namespace

FailureOr<int64_t> mlir::sptune::adviseHugePages(ModuleOp module,
                                                 int64_t minBytes) {
  SmallVector<memref::AllocOp> allocs;
  for (auto func : module.getOps<func::FuncOp>()) {
    // Scheduled kernels, and the SpGEMM kernels sptune writes itself
    // (GustavsonSpgemm.h), whole; elsewhere the allocations marked
    // kHugePageBufferAttrName (the outputs of sptune's other kernels).
    bool whole = func->hasAttr(SptuneDialect::kScheduleAttrName) ||
                 func->hasAttr(kGustavsonKernelAttrName);
    DataLayout layout = DataLayout::closest(func);
    bool gustavson = func->hasAttr(kGustavsonKernelAttrName);
    func.walk([&](memref::AllocOp alloc) {
      if (!whole && !alloc->hasAttr(kHugePageBufferAttrName))
        return;
      // A Gustavson kernel's blocks allocate their workspaces inside its
      // parallel loops: left as they are (C's buffers, the work and the row
      // starts are advised).
      if (gustavson && alloc->getParentOfType<scf::ParallelOp>())
        return;
      MemRefType type = alloc.getType();
      if (type.getRank() == 0 || !type.getLayout().isIdentity() ||
          !alloc.getSymbolOperands().empty() ||
          !isa<IntegerType, IndexType, FloatType>(type.getElementType()))
        return;
      std::optional<int64_t> bytes = staticBytes(alloc, layout);
      if (!bytes || *bytes >= minBytes)
        allocs.push_back(alloc);
    });
  }
  if (allocs.empty())
    return 0;
  func::FuncOp madvise = madviseDeclaration(module);
  if (!madvise)
    return failure();

  for (memref::AllocOp alloc : allocs) {
    DataLayout layout = DataLayout::closest(alloc);
    Location loc = alloc.getLoc();
    OpBuilder b(alloc->getContext());
    b.setInsertionPoint(alloc);
    // A large buffer starts on a huge page (the allocation is padded by up
    // to 2 MiB of address space, never touched): only its last, partial
    // huge page stays on small pages.
    Value bytes = bufferBytes(b, loc, alloc, layout);
    Value minimum = arith::ConstantIndexOp::create(b, loc, minBytes);
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                        bytes, minimum);
    Value buffer;
    if (staticBytes(alloc, layout)) {
      buffer = hugePageAlignedCopy(b, loc, alloc);
    } else {
      auto choice = scf::IfOp::create(
          b, loc, large,
          [&](OpBuilder &t, Location l) {
            scf::YieldOp::create(t, l, hugePageAlignedCopy(t, l, alloc));
          },
          [&](OpBuilder &t, Location l) {
            Operation *small = t.clone(*alloc);
            small->removeAttr(kHugePageBufferAttrName);
            scf::YieldOp::create(t, l, small->getResult(0));
          });
      buffer = choice.getResult(0);
    }
    alloc.getResult().replaceAllUsesWith(buffer);
    alloc.erase();
    b.setInsertionPointAfter(buffer.getDefiningOp());

    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    // [start, end): the huge pages inside the buffer.
    Value pageLess1 =
        arith::ConstantIndexOp::create(b, loc, kHugePageBytes - 1);
    Value mask = arith::ConstantIndexOp::create(b, loc, ~(kHugePageBytes - 1));
    Value start = arith::AndIOp::create(
        b, loc, arith::AddIOp::create(b, loc, base, pageLess1), mask);
    Value end = arith::AndIOp::create(
        b, loc, arith::AddIOp::create(b, loc, base, bytes), mask);
    Value pages =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, end, start);
    Value advise = arith::AndIOp::create(b, loc, large, pages);
    scf::IfOp::create(b, loc, advise, [&](OpBuilder &t, Location l) {
      Type i64 = t.getI64Type();
      Value address = LLVM::IntToPtrOp::create(
          t, l, LLVM::LLVMPointerType::get(t.getContext()),
          arith::IndexCastOp::create(t, l, i64, start).getResult());
      Value length = arith::IndexCastOp::create(
          t, l, i64, arith::SubIOp::create(t, l, end, start));
      Value advice = arith::ConstantIntOp::create(t, l, kMadvHugePage, 32);
      // The result is ignored: without transparent huge pages the buffer
      // stays on small pages, as it was.
      func::CallOp::create(t, l, madvise, ValueRange{address, length, advice});
      scf::YieldOp::create(t, l);
    });
  }
  return static_cast<int64_t>(allocs.size());
}

//===----------------------------------------------------------------------===//
// sptune-huge-page-buffers
//===----------------------------------------------------------------------===//

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUHUGEPAGEBUFFERS
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

namespace {
struct CpuHugePageBuffersPass
    : public mlir::sptune::impl::CpuHugePageBuffersBase<
          CpuHugePageBuffersPass> {
  using CpuHugePageBuffersBase::CpuHugePageBuffersBase;

  void runOnOperation() override {
    if (minBytes < 0) {
      getOperation().emitError(
          "sptune-huge-page-buffers: min-bytes must be 0 or more, got ")
          << static_cast<int64_t>(minBytes);
      return signalPassFailure();
    }
    if (failed(mlir::sptune::adviseHugePages(getOperation(), minBytes)))
      signalPassFailure();
  }
};
} // namespace
