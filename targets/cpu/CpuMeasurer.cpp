//===- CpuMeasurer.cpp - Measure schedules in the JIT ---------------------===//

#include "cpu/CpuMeasurer.h"

#include "cpu/CpuKnobs.h"
#include "cpu/CpuPasses.h"
#include "cpu/OpenMpBinding.h"
#include "cpu/RowOrder.h"

#include "sptune/Config.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/RowOrder.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/JitBench.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

using namespace sptune;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

} // namespace

struct CpuMeasurer::Impl {
  Impl()
      : ctx(createJitContext([](mlir::DialectRegistry &registry) {
          mlir::registerOpenMPDialectTranslation(registry);
        })) {}

  /// Compiles the bench module for `m` (its shape; with reorder = rcm,
  /// also its row order); on failure returns null and sets `error`.
  CompiledBench *compile(const KernelSpec &spec, const CsrMatrix &m,
                         const Schedule *schedule, std::string &error);

  template <typename T>
  Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                  const Schedule *schedule, const MeasureOptions &opts);

  std::unique_ptr<mlir::MLIRContext> ctx;
  std::map<std::string, std::unique_ptr<CompiledBench>> cache;
  std::string lastModule;
  BenchInputCache inputs{SddmmForm::SparseOutput};
};

CompiledBench *CpuMeasurer::Impl::compile(const KernelSpec &spec,
                                          const CsrMatrix &m,
                                          const Schedule *schedule,
                                          std::string &error) {
  int64_t rows = m.rows, cols = m.cols;
  // A row order is compiled into the code: one compilation per matrix.
  bool ordered =
      schedule && cpuKnobs(*schedule).rowOrder != RowOrderKind::Natural;
  std::string key = benchKey(spec, rows, cols, schedule);
  if (ordered)
    key += "|rows of " + std::to_string(contentHash(m));
  if (auto it = cache.find(key); it != cache.end())
    return it->second.get();
  auto start = std::chrono::steady_clock::now();
  ErrorCollector diagnostics(ctx.get());

  // With a schedule, @kernel is written on the scheduled storage and the
  // driver converts the CSR input to it outside the timed calls.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (takeErrorMessage(
          (schedule ? buildAndParseScheduledBenchModule(
                          ctx.get(), spec, rows, cols, SddmmForm::SparseOutput,
                          *schedule, diagnostics)
                    : buildAndParseBenchModule(
                          ctx.get(), spec, rows, cols, csrEncodingText(),
                          SddmmForm::SparseOutput, nullptr, diagnostics))
              .moveInto(module),
          error))
    return nullptr;

  // The schedule applied first, so that a row order is computed from the
  // measured matrix (not from a file) on the kernel it ends up on.
  mlir::PassManager apply(ctx.get());
  apply.addPass(mlir::sptune::createApplySchedule());
  mlir::LogicalResult applied = apply.run(*module);
  if (mlir::succeeded(applied) && ordered)
    module->walk([&](mlir::linalg::LinalgOp op) {
      if (mlir::sptune::wantsRowOrder(op) &&
          mlir::failed(mlir::sptune::embedRowOrder(op, m)))
        applied = mlir::failure();
    });
  if (mlir::failed(applied)) {
    error = "lowering failed: " + diagnostics.text();
    return nullptr;
  }
  mlir::PassManager lower(ctx.get());
  mlir::sptune::CpuLoweringOptions lowering;
  if (!schedule) {
    lowering.parallelization = mlir::sptune::ParallelizationChoice::DenseOuterLoop;
    lowering.vectorLength = 0;
    // Upstream's default for a sparse x sparse product: its sparsifier (in
    // one thread), not sptune's Gustavson kernel.
    lowering.gustavsonSpgemm = false;
  }
  mlir::sptune::buildCpuLoweringPipeline(lower, lowering);
  if (mlir::failed(lower.run(*module))) {
    error = "lowering failed: " + diagnostics.text();
    return nullptr;
  }
  lastModule.clear();
  llvm::raw_string_ostream(lastModule) << *module;

  std::string libDir = SPTUNE_MLIR_LIB_DIR;
  std::string runnerUtils = libDir + "/libmlir_c_runner_utils.so";
  std::string omp = libDir + "/libomp.so";
  llvm::SmallVector<llvm::StringRef, 2> libs = {runnerUtils, omp};
  std::unique_ptr<CompiledBench> compiled;
  if (takeErrorMessage(jitBench(*module, libs,
                                /*aggressiveCodegen=*/true,
                                /*initialize=*/false)
                           .moveInto(compiled),
                       error))
    return nullptr;
  compiled->compileSeconds = seconds(start);
  CompiledBench *raw = compiled.get();
  cache[key] = std::move(compiled);
  return raw;
}

template <typename T>
Measurement CpuMeasurer::Impl::run(const CsrMatrix &m, const KernelSpec &spec,
                                   const Schedule *schedule,
                                   const MeasureOptions &opts) {
  Measurement result;
  if (std::string why = whyKernelNotMeasured(spec.kernel); !why.empty()) {
    result.status = MeasureStatus::Illegal;
    result.reason = why;
    return result;
  }
  // An SpGEMM is measured as A A (benchDescriptor).
  if (spec.kernel == KernelType::SpGEMM && m.rows != m.cols) {
    result.status = MeasureStatus::Illegal;
    result.reason = "an SpGEMM is measured as A A, on a square matrix; this "
                    "one is " +
                    std::to_string(m.rows) + " x " + std::to_string(m.cols);
    return result;
  }
  if (schedule) {
    std::string why = whyIllegal(*schedule);
    if (why.empty())
      why = whyIllegalForShape(*schedule, m.rows, m.cols, m.nnz());
    // The row order is the matrix's (cpu/RowOrder.h).
    if (why.empty() && cpuKnobs(*schedule).rowOrder != RowOrderKind::Natural)
      why = whyNoReverseCuthillMcKee(m);
    if (!why.empty()) {
      result.status = MeasureStatus::Illegal;
      result.reason = why;
      return result;
    }
  }
  std::string error;
  size_t before = cache.size();
  CompiledBench *compiled = compile(spec, m, schedule, error);
  if (!compiled) {
    result.status = error.rfind("not applicable", 0) == 0
                        ? MeasureStatus::Illegal
                        : MeasureStatus::CompileError;
    result.reason = error;
    return result;
  }
  result.compileSeconds = cache.size() > before ? compiled->compileSeconds : 0;

  llvm::Expected<BenchInputs<T> &> prepared = inputs.get<T>(m, spec);
  if (!prepared) {
    result.status = MeasureStatus::Error;
    result.reason = llvm::toString(prepared.takeError());
    return result;
  }
  BenchInputs<T> &in = *prepared;
  if (opts.checkResult) {
    std::string wrong = checkBench(*compiled, in, checkTolerance(spec, opts));
    if (!wrong.empty()) {
      result.status = MeasureStatus::WrongResult;
      result.reason = wrong;
      return result;
    }
  }
  auto timed = [&](int reps, std::vector<double> &times) {
    times.assign(static_cast<size_t>(reps), 0.0);
    MemRefArg<double, 1> t(times.data(), {reps});
    callBench(compiled->time, in, t.ptr());
  };
  repeatAndSummarize(opts, timed, result);
  return result;
}

CpuMeasurer::CpuMeasurer() : impl(std::make_unique<Impl>()) {
  // Constructed where CPU measurements are about to run, so the warning
  // reaches whoever reads this process's stderr (the collector's log).
  cpu::warnOnceAboutOpenMpBinding();
}
CpuMeasurer::~CpuMeasurer() = default;

Measurement CpuMeasurer::measure(const CsrMatrix &matrix,
                                 const KernelSpec &spec,
                                 const Schedule &schedule,
                                 const MeasureOptions &options) {
  if (schedule.target != TargetKind::CPU || schedule.kernel != spec.kernel) {
    Measurement m;
    m.status = MeasureStatus::Illegal;
    m.reason = "schedule '" + schedule.str() + "' is not a CPU schedule for '" +
               toString(spec.kernel) + "'";
    return m;
  }
  return spec.elementBits == 64
             ? impl->run<double>(matrix, spec, &schedule, options)
             : impl->run<float>(matrix, spec, &schedule, options);
}

Measurement CpuMeasurer::measureUpstreamDefault(const CsrMatrix &matrix,
                                                const KernelSpec &spec,
                                                const MeasureOptions &options) {
  return spec.elementBits == 64
             ? impl->run<double>(matrix, spec, nullptr, options)
             : impl->run<float>(matrix, spec, nullptr, options);
}

std::string CpuMeasurer::lastModule() const { return impl->lastModule; }
