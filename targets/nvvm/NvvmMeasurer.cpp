//===- NvvmMeasurer.cpp - Measure schedules on a CUDA GPU -----------------===//

#include "nvvm/NvvmMeasurer.h"
#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmTarget.h"
#include "sptune/Target/Target.h"

#include "nvvm/CudaRuntimeLoader.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmPasses.h"

#include "sptune/Config.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/JitBench.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

using namespace sptune;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    out += c;
  }
  return out + "\"";
}

/// The weighted checksum of sampled values in CSR order (Reference.h).
double checksum(const CsrMatrix &m, const double *values) {
  double sum = 0;
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t p = m.rowPtr[i]; p < m.rowPtr[i + 1]; ++p)
      sum += values[p] * checksumWeight(i, m.colIdx[p]);
  return sum;
}

/// The lowest PTX version `chip` (sm_XY) needs with LLVM 22's NVPTX.
std::string ptxFeaturesFor(const std::string &chip) {
  int arch = std::atoi(chip.c_str() + (chip.rfind("sm_", 0) == 0 ? 3 : 0));
  if (arch >= 120)
    return "+ptx87";
  if (arch >= 100)
    return "+ptx86";
  return "+ptx80";
}

} // namespace

struct NvvmMeasurer::Impl {
  explicit Impl(NvvmMeasurerOptions o) : opts(std::move(o)) {
    if (opts.runtimePath.empty())
      opts.runtimePath = defaultCudaRuntimePath();
    ctx = createJitContext([](mlir::DialectRegistry &registry) {
      mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
      mlir::registerGPUDialectTranslation(registry);
      mlir::registerNVVMDialectTranslation(registry);
      mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(
          registry);
    });
  }

  /// Loads the runtime and probes the device once; empty when usable.
  std::string ensureDevice() {
    if (!probed) {
      probed = true;
      rt = takeValue(loadCudaRuntime(opts.runtimePath), unavailable)
               .value_or(nullptr);
      if (rt) {
        char message[512] = {0};
        if (rt->probe(message, sizeof(message)) != 0)
          unavailable = std::string("no usable CUDA device: ") + message;
        else
          device = message;
      }
      // "NVIDIA H200, sm_90": the chip unless the options name one.
      size_t at = device.rfind("sm_");
      if (opts.chip.empty() && at != std::string::npos)
        opts.chip = device.substr(at);
    }
    return unavailable;
  }

  std::string chip() const { return opts.chip.empty() ? "sm_90" : opts.chip; }
  std::string features() const {
    return opts.features.empty() ? ptxFeaturesFor(chip()) : opts.features;
  }

  /// Builds, schedules and lowers the bench module; null with `error` set.
  mlir::OwningOpRef<mlir::ModuleOp> lower(const KernelSpec &spec, int64_t rows,
                                          int64_t cols, const Schedule &s,
                                          std::string &error);
  CompiledBench *compile(const KernelSpec &spec, int64_t rows, int64_t cols,
                         const Schedule &s, std::string &error);
  template <typename T>
  Measurement run(const CsrMatrix &m, const KernelSpec &spec, const Schedule &s,
                  const MeasureOptions &opts);
  template <typename T>
  Measurement runCusparse(const CsrMatrix &m, const KernelSpec &spec,
                          const MeasureOptions &opts);
  std::string details(const char *path, double endToEnd, int64_t launches);

  NvvmMeasurerOptions opts;
  std::unique_ptr<mlir::MLIRContext> ctx;
  const CudaRuntimeApi *rt = nullptr;
  bool probed = false;
  std::string unavailable, device;
  std::map<std::string, std::unique_ptr<CompiledBench>> cache;
  std::string lastModule;
  BenchInputCache inputs{SddmmForm::InPlace};
};

mlir::OwningOpRef<mlir::ModuleOp>
NvvmMeasurer::Impl::lower(const KernelSpec &spec, int64_t rows, int64_t cols,
                          const Schedule &s, std::string &error) {
  ErrorCollector collector(ctx.get());
  // The kernel is written on CSR; sptune-apply-schedule gives it the
  // scheduled storage (its conversion is inside @kernel, as for a user).
  // Not so the in-place sampled product, whose timed calls pass its sparse
  // operand from one call to the next: a conversion inside @kernel returns
  // another tensor than it was given, which no loop can carry, so @kernel
  // is written on the scheduled storage and the driver converts once,
  // before the timed calls (as the CPU measurer does for every kernel).
  bool sampledInPlace =
      productShape(spec.kernel) == ProductShape::SampledMatrixMatrix;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (takeErrorMessage(
          (sampledInPlace ? buildAndParseScheduledBenchModule(
                                ctx.get(), spec, rows, cols, SddmmForm::InPlace,
                                s, collector)
                          : buildAndParseBenchModule(
                                ctx.get(), spec, rows, cols, csrEncodingText(),
                                SddmmForm::InPlace, &s, collector))
              .moveInto(module),
          error))
    return nullptr;
  mlir::PassManager pm(ctx.get());
  pm.addPass(mlir::sptune::createApplySchedule());
  mlir::sptune::NvvmLoweringOptions lowering;
  lowering.chip = chip();
  lowering.features = features();
  lowering.format = opts.format;
  lowering.enableRuntimeLibrary = opts.sparseRuntimeLibrary;
  mlir::sptune::buildNvvmLoweringPipeline(pm, lowering);
  if (mlir::failed(pm.run(*module))) {
    const std::string &diagnostics = collector.text();
    error = (diagnostics.find("cannot apply schedule") != std::string::npos ||
                     diagnostics.find("cannot run this schedule") !=
                         std::string::npos
                 ? "not applicable: "
                 : "lowering failed: ") +
            diagnostics;
    return nullptr;
  }
  lastModule.clear();
  llvm::raw_string_ostream(lastModule) << *module;
  return module;
}

CompiledBench *NvvmMeasurer::Impl::compile(const KernelSpec &spec, int64_t rows,
                                           int64_t cols, const Schedule &s,
                                           std::string &error) {
  std::string key = benchKey(spec, rows, cols, &s);
  if (auto it = cache.find(key); it != cache.end())
    return it->second.get();
  auto start = std::chrono::steady_clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module = lower(spec, rows, cols, s, error);
  if (!module)
    return nullptr;
  std::string runnerUtils =
      std::string(SPTUNE_MLIR_LIB_DIR) + "/libmlir_c_runner_utils.so";
  llvm::SmallVector<llvm::StringRef, 2> libs = {rt->path, runnerUtils};
  // Initializing runs the global constructors: they load the gpu.binary
  // (mgpuModuleLoad / mgpuModuleLoadJIT). Looking functions up does not.
  std::unique_ptr<CompiledBench> compiled;
  if (takeErrorMessage(jitBench(*module, libs,
                                /*aggressiveCodegen=*/false,
                                /*initialize=*/true)
                           .moveInto(compiled),
                       error))
    return nullptr;
  compiled->compileSeconds = seconds(start);
  CompiledBench *raw = compiled.get();
  cache[key] = std::move(compiled);
  return raw;
}

std::string NvvmMeasurer::Impl::details(const char *path, double endToEnd,
                                        int64_t launches) {
  std::string json = "{\"path\":" + jsonString(path) +
                     ",\"device\":" + jsonString(device) +
                     ",\"chip\":" + jsonString(chip());
  if (endToEnd > 0)
    json += ",\"endToEndMedianSeconds\":" + std::to_string(endToEnd);
  if (launches > 0)
    json += ",\"launchesPerCall\":" + std::to_string(launches);
  return json + "}";
}

template <typename T>
Measurement NvvmMeasurer::Impl::run(const CsrMatrix &m, const KernelSpec &spec,
                                    const Schedule &s,
                                    const MeasureOptions &opts) {
  Measurement result;
  auto fail = [&](MeasureStatus status, std::string reason) {
    result.status = status;
    result.reason = std::move(reason);
    return result;
  };
  std::string why = whyIllegalForNvvm(s, this->opts.sparseRuntimeLibrary);
  if (why.empty())
    why = whyIllegalForShape(s, m.rows, m.cols, m.nnz());
  if (!why.empty())
    return fail(MeasureStatus::Illegal, why);
  if (std::string no = ensureDevice(); !no.empty())
    return fail(MeasureStatus::Error, no);

  size_t before = cache.size();
  std::string error;
  CompiledBench *compiled = compile(spec, m.rows, m.cols, s, error);
  if (!compiled)
    return fail(error.rfind("not applicable", 0) == 0
                    ? MeasureStatus::Illegal
                    : MeasureStatus::CompileError,
                error);
  result.compileSeconds = cache.size() > before ? compiled->compileSeconds : 0;

  llvm::Expected<BenchInputs<T> &> prepared = inputs.get<T>(m, spec);
  if (!prepared)
    return fail(MeasureStatus::Error, llvm::toString(prepared.takeError()));
  BenchInputs<T> &in = *prepared;
  // SDDMM updates the values in place: a private zeroed copy per call.
  std::vector<T> vals = in.vals;
  auto call = [&](BenchEntry fn, void *last) {
    callBench(fn, in, last, &vals);
  };
  auto cudaFailed = [&]() -> bool { return rt->errorCount() > 0; };
  rt->resetErrors();

  if (opts.checkResult) {
    std::string wrong =
        checkBench(*compiled, in, checkTolerance(spec, opts), &vals);
    if (cudaFailed())
      return fail(MeasureStatus::Error,
                  std::string("CUDA: ") + rt->lastError());
    if (!wrong.empty())
      return fail(MeasureStatus::WrongResult, wrong);
    std::copy(in.vals.begin(), in.vals.end(), vals.begin());
  }

  // Timed batches: wall time per call from rtclock, device time from the
  // runtime's profiler. Not repeatAndSummarize: a batch can fail (a CUDA
  // error) and must stop the loop, and small kernels are bounded by the
  // wall time of their transfers rather than by their device time.
  std::vector<double> device, wall;
  int64_t launchesPerCall = 0;
  auto start = std::chrono::steady_clock::now();
  int reps = opts.warmups + std::max(opts.minReps, 1);
  while (true) {
    std::vector<double> times(static_cast<size_t>(reps), 0.0);
    std::vector<double> intervals(static_cast<size_t>(reps) * 64, 0.0);
    MemRefArg<double, 1> t(times.data(), {reps});
    rt->profileBegin();
    call(compiled->time, t.ptr());
    int64_t n = rt->profileEnd(intervals.data(),
                               static_cast<int64_t>(intervals.size()));
    if (cudaFailed() || n < 0)
      return fail(MeasureStatus::Error,
                  std::string("CUDA: ") + rt->lastError());
    if (n == 0 || n % reps != 0 || n > static_cast<int64_t>(intervals.size()))
      return fail(MeasureStatus::Error,
                  "the profiler recorded " + std::to_string(n) +
                      " device intervals for " + std::to_string(reps) +
                      " calls (expected the same number per call)");
    launchesPerCall = n / reps;
    int skip = device.empty() ? std::min(opts.warmups, reps) : 0;
    for (int r = skip; r < reps; ++r) {
      double sum = 0;
      for (int64_t l = 0; l < launchesPerCall; ++l)
        sum += intervals[static_cast<size_t>(r * launchesPerCall + l)];
      device.push_back(sum);
      wall.push_back(times[static_cast<size_t>(r)]);
    }
    double deviceTotal = 0, wallTotal = 0;
    for (size_t r = 0; r < device.size(); ++r) {
      deviceTotal += device[r];
      wallTotal += wall[r];
    }
    // Enough samples once minSeconds of device or of wall time passed (the
    // transfers of each call make small kernels wall-bound).
    if ((static_cast<int>(device.size()) >= opts.minReps &&
         (deviceTotal >= opts.minSeconds || wallTotal >= opts.minSeconds)) ||
        static_cast<int>(device.size()) >= opts.maxReps ||
        seconds(start) > opts.timeoutSeconds / 2)
      break;
    double perCall = std::max(median(wall), 1e-6);
    int more =
        static_cast<int>(std::ceil((opts.minSeconds - wallTotal) / perCall));
    more = std::max(more, opts.minReps - static_cast<int>(device.size()));
    reps = std::max(
        1, std::min(more, opts.maxReps - static_cast<int>(device.size())));
  }
  summarizeSamples(device, result);
  result.detailsJson = details(gpuKnobs(s).libgen ? "cusparse" : "codegen",
                               median(wall), launchesPerCall);
  return result;
}

template <typename T>
Measurement NvvmMeasurer::Impl::runCusparse(const CsrMatrix &m,
                                            const KernelSpec &spec,
                                            const MeasureOptions &opts) {
  Measurement result;
  auto fail = [&](MeasureStatus status, std::string reason) {
    result.status = status;
    result.reason = std::move(reason);
    return result;
  };
  const ProductShape shape = productShape(spec.kernel);
  const bool spmm = shape == ProductShape::MatrixMatrix;
  if (shape == ProductShape::MatrixVector)
    return fail(MeasureStatus::Illegal, "no cuSPARSE baseline for spmv");
  if (!spmm && shape != ProductShape::SampledMatrixMatrix)
    return fail(MeasureStatus::Illegal,
                std::string("no cuSPARSE baseline for '") +
                    toString(spec.kernel) + "'");
  if (std::string no = ensureDevice(); !no.empty())
    return fail(MeasureStatus::Error, no);
  llvm::Expected<BenchInputs<T> &> prepared = inputs.get<T>(m, spec);
  if (!prepared)
    return fail(MeasureStatus::Error, llvm::toString(prepared.takeError()));
  // The dense inputs: B (SpMM), A and B (SDDMM).
  const std::vector<AlignedVector<T>> &dense = prepared->dense;
  std::vector<T> values(m.values.begin(), m.values.end());
  std::vector<T> out(spmm ? static_cast<size_t>(m.rows * spec.free)
                          : static_cast<size_t>(m.nnz()),
                     T(0));
  char error[512] = {0};
  std::vector<double> samples;
  auto batch = [&](int warmups, int reps) -> bool {
    std::vector<double> times(static_cast<size_t>(reps), 0.0);
    int32_t status =
        spmm
            ? rt->cusparseSpMM(m.rows, m.cols, m.nnz(), m.rowPtr.data(),
                               m.colIdx.data(), values.data(), spec.elementBits,
                               spec.free, dense[0].data(), out.data(), warmups,
                               reps, times.data(), error, sizeof(error))
            : rt->cusparseSDDMM(m.rows, m.cols, m.nnz(), m.rowPtr.data(),
                                m.colIdx.data(), spec.elementBits, spec.free,
                                dense[0].data(), dense[1].data(), out.data(),
                                warmups, reps, times.data(), error,
                                sizeof(error));
    samples.insert(samples.end(), times.begin(), times.end());
    return status == 0;
  };
  rt->resetErrors();
  if (!batch(opts.warmups, std::max(opts.minReps, 1)))
    return fail(MeasureStatus::Error, std::string("cuSPARSE: ") + error);
  double total = 0;
  for (double s : samples)
    total += s;
  if (total < opts.minSeconds &&
      static_cast<int>(samples.size()) < opts.maxReps) {
    int more = static_cast<int>(
        std::ceil((opts.minSeconds - total) / std::max(median(samples), 1e-7)));
    more = std::min(more, opts.maxReps - static_cast<int>(samples.size()));
    if (more > 0 && !batch(0, more))
      return fail(MeasureStatus::Error, std::string("cuSPARSE: ") + error);
  }
  if (opts.checkResult) {
    // `out` holds the result of one call (SpMM overwrites C: beta = 0).
    std::vector<double> got;
    if (spmm) {
      got.assign(out.begin(), out.end());
    } else {
      std::vector<double> sampled(out.begin(), out.end());
      got = {checksum(m, sampled.data())};
    }
    std::string wrong = mismatch(prepared->reference, got,
                                 checkTolerance(spec, opts), "cuSPARSE result");
    if (!wrong.empty())
      return fail(MeasureStatus::WrongResult, wrong);
  }
  summarizeSamples(samples, result);
  result.detailsJson = details("cusparse-baseline", 0, 1);
  return result;
}

NvvmMeasurer::NvvmMeasurer(NvvmMeasurerOptions options)
    : impl(std::make_unique<Impl>(std::move(options))) {}
NvvmMeasurer::~NvvmMeasurer() = default;

std::string NvvmMeasurer::whyUnavailable(std::string *device) {
  std::string why = impl->ensureDevice();
  if (device)
    *device = impl->device;
  return why;
}

Measurement NvvmMeasurer::measure(const CsrMatrix &matrix,
                                  const KernelSpec &spec,
                                  const Schedule &schedule,
                                  const MeasureOptions &options) {
  if (schedule.target != TargetKind::NVVM || schedule.kernel != spec.kernel) {
    Measurement m;
    m.status = MeasureStatus::Illegal;
    m.reason = "schedule '" + schedule.str() +
               "' is not an nvvm schedule for '" + toString(spec.kernel) + "'";
    return m;
  }
  return spec.elementBits == 64
             ? impl->run<double>(matrix, spec, schedule, options)
             : impl->run<float>(matrix, spec, schedule, options);
}

Measurement NvvmMeasurer::measureCusparse(const CsrMatrix &matrix,
                                          const KernelSpec &spec,
                                          const MeasureOptions &options) {
  return spec.elementBits == 64
             ? impl->runCusparse<double>(matrix, spec, options)
             : impl->runCusparse<float>(matrix, spec, options);
}

std::string NvvmMeasurer::lastModule() const { return impl->lastModule; }

Measurement NvvmMeasurer::measureBaseline(std::string_view name,
                                          const CsrMatrix &matrix,
                                          const KernelSpec &spec,
                                          const MeasureOptions &options) {
  if (name == "cusparse")
    return measureCusparse(matrix, spec, options);
  return Measurer::measureBaseline(name, matrix, spec, options);
}

void sptune::registerNvvmMeasurer() {
  TargetRegistry::addMeasurer(TargetKind::NVVM,
                              [] { return std::make_unique<NvvmMeasurer>(); });
}

llvm::Error NvvmMeasurer::compileOnly(const KernelSpec &spec, int64_t rows,
                                      int64_t cols, const Schedule &schedule) {
  std::string why =
      whyIllegalForNvvm(schedule, impl->opts.sparseRuntimeLibrary);
  if (!why.empty())
    return makeError("illegal: " + why);
  std::string error;
  if (!impl->lower(spec, rows, cols, schedule, error))
    return makeError(error);
  return llvm::Error::success();
}

llvm::Error NvvmMeasurer::jitOnly(const KernelSpec &spec, int64_t rows,
                                  int64_t cols, const Schedule &schedule) {
  std::string why =
      whyIllegalForNvvm(schedule, impl->opts.sparseRuntimeLibrary);
  if (!why.empty())
    return makeError("illegal: " + why);
  if (!impl->rt) {
    llvm::Expected<const CudaRuntimeApi *> rt =
        loadCudaRuntime(impl->opts.runtimePath);
    if (!rt)
      return rt.takeError();
    impl->rt = *rt;
  }
  std::string error;
  if (!impl->compile(spec, rows, cols, schedule, error))
    return makeError(error);
  return llvm::Error::success();
}
