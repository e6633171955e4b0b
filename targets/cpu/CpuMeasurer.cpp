//===- CpuMeasurer.cpp - Measure schedules in the JIT ---------------------===//

#include "cpu/CpuMeasurer.h"

#include "cpu/CpuKnobs.h"
#include "cpu/CpuPasses.h"
#include "cpu/OpenMpBinding.h"
#include "cpu/RowOrder.h"

#include "sptune/Analysis/BatchedSpmmForm.h"
#include "sptune/Analysis/MttkrpForm.h"
#include "sptune/Config.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Matrix/RowOrder.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/JitBench.h"
#include "sptune/Target/TensorBench.h"
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
#include <optional>

using namespace sptune;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// Illegal when `schedule` is not a CPU schedule for `spec`'s kernel.
std::optional<Measurement> notForThisKernel(const Schedule &schedule,
                                            const KernelSpec &spec) {
  if (schedule.target == TargetKind::CPU && schedule.kernel == spec.kernel)
    return std::nullopt;
  Measurement m;
  m.status = MeasureStatus::Illegal;
  m.reason = "schedule '" + schedule.str() + "' is not a CPU schedule for '" +
             toString(spec.kernel) + "'";
  return m;
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

  /// Lowers `module` (its schedule applied) as sptune-lower-cpu does with
  /// `lowering`, JIT-compiles it and caches it under `key`; its compile time
  /// counts from `start`. Null on failure, with `error` set.
  CompiledBench *lowerAndJit(const std::string &key, mlir::ModuleOp module,
                             const mlir::sptune::CpuLoweringOptions &lowering,
                             std::chrono::steady_clock::time_point start,
                             const ErrorCollector &diagnostics,
                             std::string &error);

  template <typename T>
  Measurement runTensor(const CooTensor &b, const KernelSpec &spec,
                        const Schedule &schedule, const MeasureOptions &opts);

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
  mlir::sptune::CpuLoweringOptions lowering;
  if (!schedule) {
    lowering.parallelization = mlir::sptune::ParallelizationChoice::DenseOuterLoop;
    lowering.vectorLength = 0;
    // Upstream's default for a sparse x sparse product: its sparsifier (in
    // one thread), not sptune's Gustavson kernel.
    lowering.gustavsonSpgemm = false;
  }
  return lowerAndJit(key, *module, lowering, start, diagnostics, error);
}

CompiledBench *
CpuMeasurer::Impl::lowerAndJit(const std::string &key, mlir::ModuleOp module,
                               const mlir::sptune::CpuLoweringOptions &lowering,
                               std::chrono::steady_clock::time_point start,
                               const ErrorCollector &diagnostics,
                               std::string &error) {
  mlir::PassManager lower(ctx.get());
  mlir::sptune::buildCpuLoweringPipeline(lower, lowering);
  if (mlir::failed(lower.run(module))) {
    error = "lowering failed: " + diagnostics.text();
    return nullptr;
  }
  lastModule.clear();
  llvm::raw_string_ostream(lastModule) << module;

  std::string libDir = SPTUNE_MLIR_LIB_DIR;
  std::string runnerUtils = libDir + "/libmlir_c_runner_utils.so";
  std::string omp = libDir + "/libomp.so";
  llvm::SmallVector<llvm::StringRef, 2> libs = {runnerUtils, omp};
  std::unique_ptr<CompiledBench> compiled;
  if (takeErrorMessage(jitBench(module, libs,
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

template <typename T>
Measurement CpuMeasurer::Impl::runTensor(const CooTensor &b,
                                         const KernelSpec &spec,
                                         const Schedule &schedule,
                                         const MeasureOptions &opts) {
  Measurement result;
  auto refuse = [&](MeasureStatus status, std::string why) {
    result.status = status;
    result.reason = std::move(why);
    return result;
  };
  if (!isMeasuredOnTensor(spec.kernel))
    return refuse(MeasureStatus::Illegal,
                  std::string("only MTTKRP and batched SpMM kernels are "
                              "measured on a 3-D tensor, not '") +
                      toString(spec.kernel) + "'");
  bool batched = spec.kernel == KernelType::BatchedSpMM;
  if (std::string why = whyIllegal(schedule); !why.empty())
    return refuse(MeasureStatus::Illegal, why);
  int64_t maxRowBytes = batched ? mlir::sptune::kMaxBatchedRowBytes
                                : mlir::sptune::kMaxMttkrpRowBytes;
  if (spec.free < 1 || spec.free * spec.elementBits / 8 > maxRowBytes)
    return refuse(MeasureStatus::Illegal,
                  std::string("not applicable: sptune's ") +
                      (batched ? "batched SpMM kernel keeps a row of C"
                               : "MTTKRP kernel keeps a row of A") +
                      " of at most " + std::to_string(maxRowBytes) +
                      " bytes in registers; " +
                      (batched ? "an N of " : "a rank of ") +
                      std::to_string(spec.free) + " is " +
                      std::to_string(spec.free * spec.elementBits / 8));
  if (!b.isCanonical())
    return refuse(MeasureStatus::Error,
                  "the tensor's entries are not sorted without repeats");
  KernelDescriptor d = tensorBenchDescriptor(spec, b.dims);
  std::string key = "tensor|" + d.str() + "|" + schedule.str();
  size_t before = cache.size();
  CompiledBench *compiled = nullptr;
  if (auto it = cache.find(key); it != cache.end()) {
    compiled = it->second.get();
  } else {
    auto start = std::chrono::steady_clock::now();
    ErrorCollector diagnostics(ctx.get());
    std::string text, error;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    if (takeErrorMessage(buildTensorBenchModule(d).moveInto(text), error))
      return refuse(MeasureStatus::CompileError, error);
    // The matcher recognizes only the MTTKRPs and batched SpMMs sptune's
    // kernels compute: an op in other storage or form has nothing to
    // schedule.
    if (takeErrorMessage(
            parseBenchModule(ctx.get(), text, &schedule, diagnostics)
                .moveInto(module),
            error)) {
      bool recognized = error.find("not recognized") == std::string::npos;
      return refuse(
          recognized ? MeasureStatus::CompileError : MeasureStatus::Illegal,
          recognized ? error
          : batched  ? "not applicable: the batched SpMM is not one sptune's "
                       "kernel computes "
                       "(include/sptune/Analysis/BatchedSpmmForm.h)"
                     : "not applicable: the MTTKRP is not one sptune's "
                       "kernel computes "
                       "(include/sptune/Analysis/MttkrpForm.h)");
    }
    mlir::PassManager apply(ctx.get());
    apply.addPass(mlir::sptune::createApplySchedule());
    if (mlir::failed(apply.run(*module)))
      return refuse(MeasureStatus::CompileError,
                    "lowering failed: " + diagnostics.text());
    compiled = lowerAndJit(key, *module, mlir::sptune::CpuLoweringOptions(),
                           start, diagnostics, error);
    if (!compiled)
      return refuse(MeasureStatus::CompileError, error);
  }
  result.compileSeconds = cache.size() > before ? compiled->compileSeconds : 0;

  TensorBenchInputs<T> in;
  prepareTensorBenchInputs(b, spec.kernel, spec.free, in);
  int64_t nnz = b.nnz(), free = spec.free;
  MemRefArg<int64_t, 1> pos(in.pos.data(), {2});
  MemRefArg<int64_t, 2> crd(in.crd.data(), {nnz, 3});
  MemRefArg<T, 1> vals(in.vals.data(), {nnz});
  // The entry points' arguments but the last (times, or the output): the
  // tensor's entries, then the dense inputs in the op's operand order.
  llvm::SmallVector<void *, 5> args = {pos.ptr(), crd.ptr(), vals.ptr()};
  void *out = nullptr;
  std::optional<MemRefArg<T, 3>> bDense, cOut; // batched SpMM
  std::optional<MemRefArg<T, 2>> c, dd, aOut;  // MTTKRP
  if (batched) {
    bDense.emplace(in.dense[0].data(),
                   std::array<int64_t, 3>{b.dims[0], b.dims[2], free});
    cOut.emplace(in.out.data(),
                 std::array<int64_t, 3>{b.dims[0], b.dims[1], free});
    args.push_back(bDense->ptr());
    out = cOut->ptr();
  } else {
    c.emplace(in.dense[0].data(), std::array<int64_t, 2>{b.dims[1], free});
    dd.emplace(in.dense[1].data(), std::array<int64_t, 2>{b.dims[2], free});
    aOut.emplace(in.out.data(), std::array<int64_t, 2>{b.dims[0], free});
    // C(k, j) is the dense input indexed by B's second dimension.
    const KernelOperand *bOperand = nullptr;
    for (const KernelOperand &o : d.operands)
      if (o.sparse())
        bOperand = &o;
    bool cFirst = true;
    for (unsigned n = 0; n < 3; ++n)
      if (!d.operands[n].sparse()) {
        cFirst = d.operands[n].dims[0] == bOperand->dims[1];
        break;
      }
    args.push_back(cFirst ? c->ptr() : dd->ptr());
    args.push_back(cFirst ? dd->ptr() : c->ptr());
    out = aOut->ptr();
  }
  auto invoke = [&](BenchEntry entry, void *last) {
    if (args.size() == 4)
      reinterpret_cast<void (*)(void *, void *, void *, void *, void *)>(entry)(
          args[0], args[1], args[2], args[3], last);
    else
      reinterpret_cast<void (*)(void *, void *, void *, void *, void *,
                                void *)>(entry)(args[0], args[1], args[2],
                                                args[3], args[4], last);
  };
  if (opts.checkResult) {
    invoke(compiled->check, out);
    std::vector<double> got(in.out.begin(), in.out.end());
    std::string wrong = mismatch(in.reference, got, checkTolerance(spec, opts),
                                 batched ? "C" : "A");
    if (!wrong.empty())
      return refuse(MeasureStatus::WrongResult, wrong);
  }
  auto timed = [&](int reps, std::vector<double> &times) {
    times.assign(static_cast<size_t>(reps), 0.0);
    MemRefArg<double, 1> t(times.data(), {reps});
    invoke(compiled->time, t.ptr());
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
  if (std::optional<Measurement> refused = notForThisKernel(schedule, spec))
    return *refused;
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

Measurement CpuMeasurer::measureTensor(const CooTensor &tensor,
                                       const KernelSpec &spec,
                                       const Schedule &schedule,
                                       const MeasureOptions &options) {
  if (std::optional<Measurement> refused = notForThisKernel(schedule, spec))
    return *refused;
  return spec.elementBits == 64
             ? impl->runTensor<double>(tensor, spec, schedule, options)
             : impl->runTensor<float>(tensor, spec, schedule, options);
}

std::string CpuMeasurer::lastModule() const { return impl->lastModule; }
