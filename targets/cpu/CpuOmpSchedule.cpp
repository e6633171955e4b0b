//===- CpuOmpSchedule.cpp - sptune-omp-schedule ---------------------------===//
//
// convert-scf-to-openmp takes one thread count for the whole module and sets
// no schedule; the schedule of each function says what its parallel loops
// should get.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuPasses.h"
#include "cpu/CpuKnobs.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUOMPSCHEDULE
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
struct CpuOmpSchedulePass
    : public mlir::sptune::impl::CpuOmpScheduleBase<CpuOmpSchedulePass> {
  using CpuOmpScheduleBase::CpuOmpScheduleBase;

  void runOnOperation() override {
    // The same range the schedules' thread counts have (whyIllegal).
    if (std::string why = ::sptune::whyBadThreadsOption(threads);
        !why.empty()) {
      getOperation()->emitError("sptune-omp-schedule: ") << why;
      return signalPassFailure();
    }
    getOperation()->walk([&](func::FuncOp func) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          func->getAttr(SptuneDialect::kScheduleAttrName));
      // The function's schedule is consumed here: nothing after this pass
      // reads it, and the LLVM dialect output must not need sptune.
      func->removeAttr(SptuneDialect::kScheduleAttrName);
      auto teamAttr = func->getAttrOfType<IntegerAttr>(kOmpThreadsAttrName);
      func->removeAttr(kOmpThreadsAttrName);
      if (!attr && !teamAttr && threads < 0)
        return;
      ::sptune::CpuKnobs knobs;
      if (attr && attr.getSchedule().target == ::sptune::TargetKind::CPU)
        knobs = ::sptune::cpuKnobs(attr.getSchedule());
      if (teamAttr)
        knobs.threads = static_cast<int>(teamAttr.getInt());
      int numThreads = threads >= 0 ? static_cast<int>(threads) : knobs.threads;
      OpBuilder b(func.getContext());
      func.walk([&](omp::ParallelOp par) {
        if (numThreads <= 0)
          return;
        b.setInsertionPoint(par);
        Value n = arith::ConstantIntOp::create(b, par.getLoc(), numThreads, 32);
        par.getNumThreadsMutable().assign(n);
      });
      func.walk([&](omp::WsloopOp loop) {
        // Balanced loops run one block per thread (sptune-balance-rows cut
        // them): statically.
        auto kind = knobs.omp == ::sptune::OmpScheduleKind::Dynamic
                        ? omp::ClauseScheduleKind::Dynamic
                        : omp::ClauseScheduleKind::Static;
        loop.setScheduleKind(kind);
        if (knobs.chunk > 0) {
          b.setInsertionPoint(loop);
          Value c = arith::ConstantIntOp::create(b, loop.getLoc(), knobs.chunk, 32);
          loop.getScheduleChunkMutable().assign(c);
        }
      });
    });
  }
};
} // namespace
