//===- DownstreamApiTest.cpp - The passes' work as callable functions -----===//
//
// What a downstream MLIR sparse compiler does with sptune without running
// sptune's passes: recognize the kernel, call `autotune` on the op with its
// own cost model and options, then `applySchedule`.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/InitAll.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Support/Error.h"
#include "sptune/Transforms/ApplySchedule.h"
#include "sptune/Transforms/Autotune.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "sptune/Target/Target.h"
#include "sptune/Tune/TuningDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "Support/ExtractTesting.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sptune;

namespace {
constexpr const char *kModule = R"mlir(
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @spmm(%a: tensor<64x64xf32, #CSR>, %b: tensor<64x16xf32>,
                %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32, #CSR>, tensor<64x16xf32>)
                     outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
)mlir";

class DownstreamApi : public ::testing::Test {
protected:
  DownstreamApi() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllSptuneDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    ::sptune::registerAllTargets();
  }

  /// The module with its kernel recognized (sptune-extract-kernels).
  OwningOpRef<ModuleOp> recognized() {
    return ::sptune::test::recognizedModule(kModule, ctx);
  }

  linalg::LinalgOp kernelOf(ModuleOp module) {
    linalg::LinalgOp found;
    module.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(SptuneDialect::kKernelAttrName))
        found = op;
    });
    return found;
  }

  /// Autotunes `op` for `target` on a small R-MAT matrix with `model`;
  /// returns whether it succeeded and the remarks it emitted.
  std::pair<bool, std::string> autotuneOnRmat(linalg::LinalgOp op,
                                              ::sptune::CostModel &model,
                                              ::sptune::TargetKind target) {
    KernelTuningOptions options;
    options.target = target;
    options.matrix = "gen:rmat:rows=64,cols=64,nnz=400,seed=3";
    options.candidates = 50;
    MatrixCache matrices;
    std::string remark;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      remark += d.str();
      return success();
    });
    bool ok = succeeded(autotune(op, model, options, matrices));
    return {ok, remark};
  }

  /// The heuristic cost model (a test failure, and null, if it fails).
  std::unique_ptr<::sptune::CostModel> heuristicModel() {
    llvm::Expected<std::unique_ptr<::sptune::CostModel>> model =
        ::sptune::createCostModel(::sptune::CostModelMode::Heuristic, "");
    if (!model) {
      ADD_FAILURE() << llvm::toString(model.takeError());
      return nullptr;
    }
    return std::move(*model);
  }

  MLIRContext ctx;
};
} // namespace

TEST_F(DownstreamApi, AutotuneThenApplyScheduleOnOneOp) {
  OwningOpRef<ModuleOp> module = recognized();
  linalg::LinalgOp op = kernelOf(*module);
  ASSERT_TRUE(op);

  std::string error;
  std::unique_ptr<::sptune::CostModel> model =
      ::sptune::takeValue(
          ::sptune::createCostModel(::sptune::CostModelMode::Heuristic, ""),
          error)
          .value_or(nullptr);
  ASSERT_TRUE(model) << error;
  auto [tuned, remark] = autotuneOnRmat(op, *model, ::sptune::TargetKind::CPU);
  ASSERT_TRUE(tuned) << remark;
  EXPECT_NE(remark.find("sptune-autotune (heuristic"), std::string::npos)
      << remark;
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  ASSERT_TRUE(attr);
  ::sptune::Schedule chosen = attr.getSchedule();
  EXPECT_EQ(chosen.target, ::sptune::TargetKind::CPU);

  // applySchedule with the chosen schedule: a `sorted` generic carrying it.
  ASSERT_TRUE(succeeded(applySchedule(op, chosen)));
  int sorted = 0;
  module->walk([&](linalg::GenericOp g) {
    if (g->hasAttr("sorted")) {
      ++sorted;
      auto carried = dyn_cast_or_null<ScheduleAttr>(
          g->getAttr(SptuneDialect::kScheduleAttrName));
      ASSERT_TRUE(carried);
      EXPECT_EQ(carried.getSchedule(), chosen);
    }
  });
  EXPECT_GE(sorted, 1);
}

TEST_F(DownstreamApi, ErrorsAreDiagnosticsOnTheOp) {
  OwningOpRef<ModuleOp> module = recognized();
  linalg::LinalgOp op = kernelOf(*module);
  ASSERT_TRUE(op);
  std::string errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errors += d.str() + "\n";
    return success();
  });
  // A schedule for another kernel is not applied.
  ::sptune::Schedule spmv = ::sptune::Schedule::csr(
      ::sptune::TargetKind::CPU, ::sptune::KernelType::SpMV);
  EXPECT_TRUE(failed(applySchedule(op, spmv)));
  EXPECT_NE(errors.find("cannot apply schedule"), std::string::npos) << errors;

  // A matrix of the wrong shape is refused.
  std::unique_ptr<::sptune::CostModel> model = heuristicModel();
  ASSERT_TRUE(model);
  KernelTuningOptions options;
  options.matrix = "gen:uniform:rows=10,cols=10,nnz=20";
  MatrixCache matrices;
  EXPECT_TRUE(failed(autotune(op, *model, options, matrices)));
  EXPECT_NE(errors.find("is 10x10 but the kernel's sparse operand is 64x64"),
            std::string::npos)
      << errors;
}

TEST_F(DownstreamApi, ReleaseModelOfTheTargetRanksItsKernels) {
  // A downstream compiler tuning for SPADE in release mode asks for SPADE's
  // shipped model (CostModelOptions::target) and ranks with it, not with the
  // CPU's (which would leave SPADE to the heuristic).
  // Learned models need LibTorch: a build configured with
  // SPTUNE_ENABLE_TORCH=OFF has the heuristic only (as GPU tests need a GPU).
  if (!::sptune::haveLearnedCostModels())
    GTEST_SKIP() << "built without LibTorch (SPTUNE_ENABLE_TORCH=OFF)";
  ASSERT_TRUE(::sptune::releaseModelSource(::sptune::TargetKind::SPADE))
      << "sptune ships a SPADE release model (cost-model/models/"
         "spade-default.pt)";
  OwningOpRef<ModuleOp> module = recognized();
  linalg::LinalgOp op = kernelOf(*module);
  ASSERT_TRUE(op);
  std::string error;
  ::sptune::CostModelOptions cmOptions;
  cmOptions.target = ::sptune::TargetKind::SPADE;
  std::unique_ptr<::sptune::CostModel> model =
      ::sptune::takeValue(::sptune::createCostModel(
                              ::sptune::CostModelMode::Release, "", cmOptions),
                          error)
          .value_or(nullptr);
  ASSERT_TRUE(model) << error;
  EXPECT_TRUE(model->supports(::sptune::TargetKind::SPADE));
  auto [tuned, remark] =
      autotuneOnRmat(op, *model, ::sptune::TargetKind::SPADE);
  ASSERT_TRUE(tuned) << remark;
  EXPECT_NE(remark.find("sptune-autotune (release"), std::string::npos)
      << remark;
  EXPECT_EQ(remark.find("ranked by the heuristic"), std::string::npos)
      << remark;
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSchedule().target, ::sptune::TargetKind::SPADE);
}

TEST_F(DownstreamApi, OneContextFromTheDatabaseLookupToTheRecord) {
  // A downstream pass resolves a kernel once and hands the context to the
  // database lookup, the ranking and the record.
  std::unique_ptr<::sptune::CostModel> model = heuristicModel();
  ASSERT_TRUE(model);
  llvm::SmallString<128> dbPath;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sptune-context", "jsonl",
                                                  dbPath));
  llvm::sys::fs::remove(dbPath);
  llvm::Expected<::sptune::TuningDatabase> db =
      ::sptune::TuningDatabase::open(std::string(dbPath));
  ASSERT_TRUE(static_cast<bool>(db)) << llvm::toString(db.takeError());
  KernelTuningOptions options;
  options.matrix = "gen:rmat:rows=64,cols=64,nnz=400,seed=3";
  options.candidates = 50;
  options.database = &*db;
  std::string remarks;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    remarks += d.str() + "\n";
    return success();
  });

  OwningOpRef<ModuleOp> module = recognized();
  MatrixCache matrices;
  FailureOr<KernelTuningContext> kernel =
      resolveKernelTuning(kernelOf(*module), options, matrices);
  ASSERT_TRUE(succeeded(kernel)) << remarks;
  ASSERT_TRUE(kernel->target);
  EXPECT_EQ(kernel->target->kind(), ::sptune::TargetKind::CPU);
  EXPECT_EQ(kernel->type, ::sptune::KernelType::SpMM);
  EXPECT_EQ(kernel->free, 16);
  EXPECT_EQ(kernel->source, options.matrix);
  EXPECT_FALSE(kernel->transposed);
  ASSERT_TRUE(kernel->matrix());
  EXPECT_EQ(kernel->matrix()->rows, 64);
  FailureOr<bool> found = scheduleFromDatabase(*kernel, model->identity());
  ASSERT_TRUE(succeeded(found));
  EXPECT_FALSE(*found);
  ASSERT_TRUE(succeeded(tuneKernel(*kernel, *model, "a note")));
  EXPECT_NE(remarks.find("; a note; recorded in"), std::string::npos)
      << remarks;
  ASSERT_EQ(db->records().size(), 1u);

  // The same kernel in another module is answered by the record.
  OwningOpRef<ModuleOp> again = recognized();
  FailureOr<KernelTuningContext> second =
      resolveKernelTuning(kernelOf(*again), options, matrices);
  ASSERT_TRUE(succeeded(second));
  found = scheduleFromDatabase(*second, model->identity());
  ASSERT_TRUE(succeeded(found));
  EXPECT_TRUE(*found);
  EXPECT_NE(remarks.find("from the tuning database"), std::string::npos)
      << remarks;
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      kernelOf(*again)->getAttr(SptuneDialect::kScheduleAttrName));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSchedule(), db->records().front().chosen);
  llvm::sys::fs::remove(dbPath);

  // An op without #sptune.kernel has no context.
  OwningOpRef<ModuleOp> plain = parseSourceString<ModuleOp>(kModule, &ctx);
  linalg::LinalgOp matmul;
  plain->walk([&](linalg::LinalgOp op) { matmul = op; });
  ASSERT_TRUE(matmul);
  EXPECT_TRUE(failed(resolveKernelTuning(matmul, options, matrices)));
  EXPECT_NE(remarks.find("carries no #sptune.kernel"), std::string::npos)
      << remarks;
}
