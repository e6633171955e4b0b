//===- ToyKernelTest.cpp - A kernel type added by one registration line ---===//
//
// The column scaling of Support/ToyKernel.h (C(i, j) = A(i, j) * x(j)) is
// added at run time and
// then goes the whole way through sptune with nothing else to write: it is
// recognized in IR, printed and parsed in #sptune.kernel and
// #sptune.schedule, enumerated by the CPU target's space, given a heuristic
// schedule, tuned (a learned model, which has no feature for it, falls back
// to the heuristic and says so), applied and lowered, and every candidate
// measured runs and matches the reference.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuMeasurer.h"

#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/InitAll.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Schedule/Schedule.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/Autotune.h"
#include "sptune/Transforms/Passes.h"

#include "Support/ToyKernel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "Support/ExtractTesting.h"
#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

namespace {
constexpr const char *kModule = R"mlir(
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#map = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#row = affine_map<(i, j) -> (i)>
func.func @colscale(%a: tensor<64x48xf32, #CSR>, %v: tensor<48xf32>,
                    %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #col, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %v : tensor<64x48xf32, #CSR>, tensor<48xf32>)
      outs(%c : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}
// Scaling rows instead: not the canonical form, so not recognized.
func.func @other(%a: tensor<64x48xf32, #CSR>, %v: tensor<64xf32>,
                 %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = linalg.generic {indexing_maps = [#map, #row, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %v : tensor<64x48xf32, #CSR>, tensor<64xf32>)
      outs(%c : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}
)mlir";

constexpr const char *kMatrix = "gen:uniform:rows=64,cols=48,nnz=600,seed=5";

st::CsrMatrix loadCsr(const std::string &source) {
  st::CooMatrix coo;
  st::MatrixInfo info;
  llvm::cantFail(st::loadMatrix(source, coo, info));
  return st::CsrMatrix::fromCoo(coo);
}

st::KernelType colscale() {
  static st::KernelType type =
      llvm::cantFail(st::test::registerColumnScaleKernel());
  return type;
}

class ToyKernel : public ::testing::Test {
protected:
  ToyKernel() {
    colscale();
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllSptuneDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    st::registerAllTargets();
    static bool passes = (registerAllSptunePasses(), true);
    (void)passes;
  }

  OwningOpRef<ModuleOp> recognized() {
    return ::sptune::test::recognizedModule(kModule, ctx);
  }

  linalg::LinalgOp opIn(ModuleOp module, StringRef function) {
    linalg::LinalgOp found;
    module.walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<func::FuncOp>().getSymName() == function)
        found = op;
    });
    return found;
  }

  /// Autotunes `op` with `mode`'s model; the remarks, or a failure.
  std::pair<bool, std::string> tune(linalg::LinalgOp op,
                                    st::CostModelMode mode) {
    std::unique_ptr<st::CostModel> model =
        llvm::expectedToOptional(st::createCostModel(mode, ""))
            .value_or(nullptr);
    if (!model)
      return {false, "no cost model"};
    KernelTuningOptions options;
    options.matrix = kMatrix;
    options.candidates = 200;
    MatrixCache matrices;
    std::string remarks;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      remarks += d.str() + "\n";
      return success();
    });
    bool ok = succeeded(autotune(op, *model, options, matrices));
    return {ok, remarks};
  }

  MLIRContext ctx;
};
} // namespace

TEST_F(ToyKernel, PropertiesFollowFromTheForm) {
  const st::KernelTypeInfo &info = st::kernelTypeInfo(colscale());
  EXPECT_EQ(std::string(st::toString(colscale())), "colscale");
  EXPECT_EQ(st::parseKernelType("colscale"), colscale());
  EXPECT_EQ(info.row, st::Role::I);
  EXPECT_EQ(info.col, st::Role::J);
  EXPECT_FALSE(info.free);
  EXPECT_FALSE(info.reduction);
  ASSERT_EQ(info.denseOperands.size(), 1u); // x has one order only
  EXPECT_STREQ(info.denseOperands[0].name, "c");
  EXPECT_FALSE(st::isBuiltinKernelType(colscale()));
  // Registering the same form again is idempotent; another form under the
  // name, or the same form under another name, is refused.
  EXPECT_EQ(llvm::cantFail(st::test::registerColumnScaleKernel()), colscale());
  st::KernelDescriptor other = st::test::columnScaleForm();
  other.operands[1].dims = {0};
  std::string error =
      llvm::toString(st::addKernelType("colscale", other).takeError());
  EXPECT_NE(error.find("already registered with another form"),
            std::string::npos)
      << error;
  error = llvm::toString(
      st::addKernelType("colscale2", st::test::columnScaleForm()).takeError());
  EXPECT_NE(error.find("has the form of 'colscale'"), std::string::npos)
      << error;
  // So is the form of a built-in type.
  st::KernelDescriptor sparseDense = other;
  sparseDense.operands[1].dims = {0, 1};
  error = llvm::toString(st::addKernelType("mine", sparseDense).takeError());
  EXPECT_NE(error.find("has the form of 'hadamard'"), std::string::npos)
      << error;
}

TEST_F(ToyKernel, FormsAScheduleCannotDescribeAreRefused) {
  auto refusal = [](std::string name, st::KernelDescriptor d) {
    llvm::Expected<st::KernelType> k = st::addKernelType(name, d);
    return k ? std::string("accepted") : llvm::toString(k.takeError());
  };
  st::KernelDescriptor d = st::test::columnScaleForm();
  d.operands[1].kind = st::KernelOperand::Kind::Sparse;
  EXPECT_NE(refusal("two_sparse", d).find("exactly one sparse input"),
            std::string::npos);
  d = st::test::columnScaleForm();
  d.loops[1].name = "x";
  EXPECT_NE(refusal("bad_loop", d).find("named 'i', 'j' and 'k'"),
            std::string::npos);
  // The roles only built-in kinds have: MTTKRP's `l`, the batch loop `b`.
  for (const char *role : {"l", "b"}) {
    d = st::test::columnScaleForm();
    d.loops[1].name = role;
    EXPECT_NE(refusal("bad_loop", d).find("named 'i', 'j' and 'k'"),
              std::string::npos)
        << role;
  }
  d = st::test::columnScaleForm();
  d.body = st::KernelDescriptor::Body::MultiplyAccumulate;
  EXPECT_NE(refusal("no_reduction", d).find("one reduction loop"),
            std::string::npos);
  EXPECT_NE(refusal("Bad-Name", st::test::columnScaleForm()).find("identifier"),
            std::string::npos);
  d = st::test::columnScaleForm();
  d.operands[0].dims = {1, 0};
  EXPECT_NE(refusal("transposed", d).find("indexed (i, x)"), std::string::npos);
  EXPECT_FALSE(st::parseKernelType("two_sparse"));
}

TEST_F(ToyKernel, ScheduleTextRoundTrips) {
  st::Schedule s = st::Schedule::csr(st::TargetKind::CPU, colscale());
  s.denseTransposed = 1; // C stored column-major
  std::string text = s.str();
  EXPECT_EQ(text.rfind("cpu colscale, levels = [i : dense, j : compressed]", 0),
            0u)
      << text;
  EXPECT_NE(text.find("layout = [c : i]"), std::string::npos) << text;
  llvm::Expected<st::Schedule> parsed = st::parseSchedule(text);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(*parsed, s);
  // A layout of an operand the kernel does not have is refused.
  std::string error = llvm::toString(
      st::parseSchedule("cpu colscale, layout = [b : j]").takeError());
  EXPECT_FALSE(error.empty());
}

TEST_F(ToyKernel, RecognizedInIRAndPrintedAsItsKind) {
  OwningOpRef<ModuleOp> module = recognized();
  ASSERT_TRUE(module);
  linalg::LinalgOp op = opIn(*module, "colscale");
  ASSERT_TRUE(op);
  auto kernel =
      dyn_cast_or_null<KernelAttr>(op->getAttr(SptuneDialect::kKernelAttrName));
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel.getKind(), colscale());
  EXPECT_EQ(kernel.getLoopSize(LoopRole::I), 64);
  EXPECT_EQ(kernel.getLoopSize(LoopRole::J), 48);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << kernel;
  EXPECT_NE(printed.find("#sptune.kernel<colscale"), std::string::npos)
      << printed;
  EXPECT_EQ(parseAttribute(printed, &ctx), kernel);
  // Scaling rows is another kernel: not recognized, with the reason the
  // built-in rules give.
  linalg::LinalgOp other = opIn(*module, "other");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->hasAttr(SptuneDialect::kKernelAttrName));
  KernelMatch match = matchSparseKernel(other);
  EXPECT_FALSE(match.recognized());
  EXPECT_FALSE(match.reason.empty());
}

TEST_F(ToyKernel, TheCpuTargetHasASpaceAndAHeuristicForIt) {
  const st::Target &cpu =
      llvm::cantFail(st::TargetRegistry::get(st::TargetKind::CPU));
  st::Schedule heuristic = cpu.heuristicSchedule(colscale(), nullptr, 0);
  EXPECT_EQ(heuristic.kernel, colscale());
  EXPECT_TRUE(cpu.whyIllegal(heuristic).empty()) << cpu.whyIllegal(heuristic);
  st::ProblemShape shape{colscale(), 64, 48, 1, 600};
  std::vector<st::Schedule> sample = cpu.space().sample(shape, 64, 3);
  EXPECT_GE(sample.size(), 32u);
  std::set<std::string> formats;
  for (const st::Schedule &s : sample) {
    EXPECT_EQ(s.kernel, colscale());
    EXPECT_TRUE(cpu.whyIllegal(s).empty()) << s.str();
    std::string levels = s.str().substr(0, s.str().find("], "));
    formats.insert(levels);
  }
  EXPECT_GE(formats.size(), 4u); // CSR, CSC, DCSR, blocks, ...
  // Other targets refuse it by name rather than mis-schedule it.
  for (st::TargetKind t : {st::TargetKind::NVVM, st::TargetKind::SPADE}) {
    const st::Target &other = llvm::cantFail(st::TargetRegistry::get(t));
    st::Schedule s = st::Schedule::csr(t, colscale());
    EXPECT_FALSE(other.whyIllegal(s).empty()) << st::toString(t);
  }
}

TEST_F(ToyKernel, TunedAppliedAndLowered) {
  OwningOpRef<ModuleOp> module = recognized();
  linalg::LinalgOp op = opIn(*module, "colscale");
  ASSERT_TRUE(op);
  auto [tuned, remarks] = tune(op, st::CostModelMode::Heuristic);
  ASSERT_TRUE(tuned) << remarks;
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  ASSERT_TRUE(attr) << remarks;
  EXPECT_EQ(attr.getSchedule().kernel, colscale());
  EXPECT_NE(remarks.find("colscale"), std::string::npos) << remarks;

  PassManager pm(&ctx);
  ASSERT_TRUE(succeeded(
      parsePassPipeline("sptune-apply-schedule,sptune-lower-cpu", pm)));
  std::string errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    errors += d.str() + "\n";
    return success();
  });
  ASSERT_TRUE(succeeded(pm.run(*module))) << errors;
  bool llvmOnly = true;
  module->walk([&](Operation *o) {
    if (isa<linalg::LinalgOp>(o)) {
      llvmOnly = false;
      std::string text;
      llvm::raw_string_ostream os(text);
      o->print(os);
      ADD_FAILURE() << "not lowered: " << text;
    }
  });
  EXPECT_TRUE(llvmOnly);
}

TEST_F(ToyKernel, ALearnedModelFallsBackToTheHeuristicAndSaysWhy) {
  if (!st::releaseModelSource(st::TargetKind::CPU))
    GTEST_SKIP() << "no CPU release model";
  OwningOpRef<ModuleOp> module = recognized();
  linalg::LinalgOp op = opIn(*module, "colscale");
  ASSERT_TRUE(op);
  auto [tuned, remarks] = tune(op, st::CostModelMode::Release);
  ASSERT_TRUE(tuned) << remarks;
  EXPECT_NE(remarks.find("has no feature for kernel 'colscale'"),
            std::string::npos)
      << remarks;
  auto attr = dyn_cast_or_null<ScheduleAttr>(
      op->getAttr(SptuneDialect::kScheduleAttrName));
  ASSERT_TRUE(attr);
  st::CsrMatrix m = loadCsr(kMatrix);
  st::MatrixStats stats = st::computeStats(m);
  EXPECT_EQ(attr.getSchedule(),
            st::defaultSchedule(st::TargetKind::CPU, colscale(), &stats, 0));
}

TEST_F(ToyKernel, EveryCandidateRunsAndMatchesTheReference) {
  st::CsrMatrix m = loadCsr(kMatrix);
  const st::Target &cpu =
      llvm::cantFail(st::TargetRegistry::get(st::TargetKind::CPU));
  st::KernelSpec spec;
  spec.kernel = colscale();
  spec.free = 1;
  st::MeasureOptions options;
  options.minSeconds = 0;
  options.minReps = 1;
  options.warmups = 0;
  st::CpuMeasurer measurer;
  std::vector<st::Schedule> candidates = {
      cpu.heuristicSchedule(colscale(), nullptr, 0),
      cpu.referenceSchedule(colscale())};
  st::ProblemShape shape{colscale(), m.rows, m.cols, 1, m.nnz()};
  for (st::Schedule &s : cpu.space().sample(shape, 10, 7))
    candidates.push_back(std::move(s));
  st::Schedule bt = candidates.front();
  bt.denseTransposed = 1; // C column-major
  candidates.push_back(bt);
  // Without a descriptor (the canonical form, as sptune-collect measures)
  // and with the user's op (as sptune-autotune does).
  for (bool withDescriptor : {false, true}) {
    spec.descriptor.reset();
    if (withDescriptor)
      spec.descriptor = st::test::columnScaleForm();
    for (const st::Schedule &s : candidates) {
      if (!st::whyIllegalForShape(s, m.rows, m.cols, m.nnz()).empty())
        continue;
      st::Measurement r = measurer.measure(m, spec, s, options);
      EXPECT_TRUE(r.ok()) << s.str() << ": " << r.reason;
    }
  }
  st::Measurement upstream = measurer.measureUpstreamDefault(m, spec, options);
  EXPECT_TRUE(upstream.ok()) << upstream.reason;
}
