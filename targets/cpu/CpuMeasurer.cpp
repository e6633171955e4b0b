//===- CpuMeasurer.cpp - Measure schedules in the JIT ---------------------===//

#include "cpu/CpuMeasurer.h"

#include "cpu/CpuBenchModule.h"
#include "cpu/CpuPasses.h"

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/Config.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/InitAll.h"
#include "sptune/Matrix/Reference.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <map>

using namespace sptune;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// The #sptune.kernel of the measured kernel in canonical roles.
mlir::sptune::KernelAttr canonicalKernel(mlir::MLIRContext *ctx,
                                         const KernelSpec &spec, int64_t rows,
                                         int64_t cols) {
  using namespace mlir::sptune;
  mlir::Type et = spec.elementBits == 64
                      ? static_cast<mlir::Type>(mlir::Float64Type::get(ctx))
                      : static_cast<mlir::Type>(mlir::Float32Type::get(ctx));
  auto csr = mlir::cast<mlir::sparse_tensor::SparseTensorEncodingAttr>(
      mlir::parseAttribute(csrEncodingText(), ctx));
  using R = LoopRole;
  using K = OperandKind;
  llvm::SmallVector<R> loops, dims;
  llvm::SmallVector<int64_t> sizes, ranks;
  llvm::SmallVector<K> kinds;
  KernelKind kind = KernelKind::SpMM;
  switch (spec.kernel) {
  case KernelType::SpMM:
    kind = KernelKind::SpMM;
    loops = {R::I, R::J, R::K};
    sizes = {rows, spec.free, cols};
    kinds = {K::Sparse, K::Dense, K::Out};
    dims = {R::I, R::K, R::K, R::J, R::I, R::J};
    ranks = {2, 2, 2};
    break;
  case KernelType::SpMV:
    kind = KernelKind::SpMV;
    loops = {R::I, R::K};
    sizes = {rows, cols};
    kinds = {K::Sparse, K::Dense, K::Out};
    dims = {R::I, R::K, R::K, R::I};
    ranks = {2, 1, 1};
    break;
  case KernelType::SDDMM:
    kind = KernelKind::SDDMM;
    loops = {R::I, R::J, R::K};
    sizes = {rows, cols, spec.free};
    kinds = {K::Sparse, K::Dense, K::Dense, K::SparseOut};
    dims = {R::I, R::J, R::I, R::K, R::K, R::J, R::I, R::J};
    ranks = {2, 2, 2, 2};
    break;
  }
  return KernelAttr::get(ctx, kind, llvm::ArrayRef<R>(loops),
                         llvm::ArrayRef<int64_t>(sizes), llvm::ArrayRef<K>(kinds),
                         llvm::ArrayRef<R>(dims), llvm::ArrayRef<int64_t>(ranks),
                         et, csr);
  return {};
}

template <typename T, int N> struct MemRef {
  StridedMemRefType<T, N> desc;
  MemRef(T *data, std::array<int64_t, N> sizes) {
    desc.basePtr = desc.data = data;
    desc.offset = 0;
    int64_t stride = 1;
    for (int d = N - 1; d >= 0; --d) {
      desc.sizes[d] = sizes[d];
      desc.strides[d] = stride;
      stride *= sizes[d];
    }
  }
  void *ptr() { return &desc; }
};

/// All C-interface entry points take pointers to memref descriptors.
using Entry6 = void (*)(void *, void *, void *, void *, void *, void *);

struct Compiled {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  Entry6 time = nullptr;
  Entry6 check = nullptr;
  double compileSeconds = 0;
};

/// The inputs of one (matrix, kernel) in the element type T.
template <typename T> struct Inputs {
  std::vector<int64_t> pos, crd;
  std::vector<T> vals;
  std::vector<T> dense0, dense1; // B (SpMM), x (SpMV), A and B (SDDMM)
  std::vector<T> out;            // C / y
  ReferenceResult reference;
};

} // namespace

struct CpuMeasurer::Impl {
  Impl() {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::sptune::registerAllSptuneDialects(registry);
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    mlir::registerOpenMPDialectTranslation(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    static bool nativeReady = [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      return true;
    }();
    (void)nativeReady;
  }

  /// Compiles the bench module; on failure returns null and sets `error`.
  Compiled *compile(const KernelSpec &spec, int64_t rows, int64_t cols,
                    const Schedule *schedule, std::string &error);

  template <typename T>
  Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                  const Schedule *schedule, const MeasureOptions &opts);

  std::unique_ptr<mlir::MLIRContext> ctx;
  std::map<std::string, std::unique_ptr<Compiled>> cache;
  std::string lastModule;
  // Inputs of the last matrix (measurers see one matrix many times).
  const CsrMatrix *inputsFor = nullptr;
  std::string inputsKey;
  Inputs<float> inputsF32;
  Inputs<double> inputsF64;
};

Compiled *CpuMeasurer::Impl::compile(const KernelSpec &spec, int64_t rows,
                                     int64_t cols, const Schedule *schedule,
                                     std::string &error) {
  std::string key = std::to_string(static_cast<int>(spec.kernel)) + "|" +
                    std::to_string(spec.free) + "|" +
                    std::to_string(spec.elementBits) + "|" +
                    std::to_string(rows) + "x" + std::to_string(cols) + "|" +
                    (schedule ? schedule->str() : std::string("upstream"));
  if (auto it = cache.find(key); it != cache.end())
    return it->second.get();
  auto start = std::chrono::steady_clock::now();

  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(ctx.get(), [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
      if (!diagnostics.empty())
        diagnostics += "; ";
      diagnostics += d.str();
    }
    return mlir::success();
  });

  std::string encoding = csrEncodingText();
  mlir::sptune::KernelAttr kernel = canonicalKernel(ctx.get(), spec, rows, cols);
  if (schedule) {
    std::string why = mlir::sptune::whyNotApplicable(kernel, *schedule);
    if (!why.empty()) {
      error = "not applicable: " + why;
      return nullptr;
    }
    llvm::raw_string_ostream os(encoding);
    encoding.clear();
    os << mlir::sptune::buildScheduledEncoding(kernel, *schedule);
  }
  std::string text = buildCpuBenchModule(spec, rows, cols, encoding);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get());
  if (!module) {
    error = "bench module does not parse: " + diagnostics;
    return nullptr;
  }

  // Annotate @kernel, attach the schedule, apply it and lower.
  mlir::PassManager annotate(ctx.get());
  mlir::sptune::ExtractKernelsOptions extract;
  extract.emitRemarks = false;
  annotate.addPass(mlir::sptune::createExtractKernels(extract));
  if (mlir::failed(annotate.run(*module))) {
    error = "kernel extraction failed: " + diagnostics;
    return nullptr;
  }
  if (schedule) {
    bool attached = false;
    module->walk([&](mlir::Operation *op) {
      if (op->hasAttr(mlir::sptune::SptuneDialect::kKernelAttrName)) {
        op->setAttr(mlir::sptune::SptuneDialect::kScheduleAttrName,
                    mlir::sptune::ScheduleAttr::get(ctx.get(), *schedule));
        attached = true;
      }
    });
    if (!attached) {
      error = "the bench kernel was not recognized";
      return nullptr;
    }
  }
  mlir::PassManager lower(ctx.get());
  lower.addPass(mlir::sptune::createApplySchedule());
  mlir::sptune::CpuLoweringOptions lowering;
  if (!schedule) {
    lowering.parallelization = "dense-outer-loop";
    lowering.vectorLength = 0;
  }
  mlir::sptune::buildCpuLoweringPipeline(lower, lowering);
  if (mlir::failed(lower.run(*module))) {
    error = "lowering failed: " + diagnostics;
    return nullptr;
  }
  lastModule.clear();
  llvm::raw_string_ostream(lastModule) << *module;

  std::string libDir = SPTUNE_MLIR_LIB_DIR;
  std::string runnerUtils = libDir + "/libmlir_c_runner_utils.so";
  std::string omp = libDir + "/libomp.so";
  llvm::SmallVector<llvm::StringRef, 2> libs = {runnerUtils, omp};
  mlir::ExecutionEngineOptions engineOptions;
  auto transformer = mlir::makeOptimizingTransformer(3, 0, nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = libs;
  auto engine = mlir::ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    error = "JIT failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  auto compiled = std::make_unique<Compiled>();
  compiled->engine = std::move(*engine);
  auto lookup = [&](const char *name) -> Entry6 {
    llvm::Expected<void *> fn = compiled->engine->lookup(name);
    if (!fn) {
      llvm::consumeError(fn.takeError());
      return nullptr;
    }
    return reinterpret_cast<Entry6>(*fn);
  };
  compiled->time = lookup("_mlir_ciface_sptune_time");
  if (spec.kernel == KernelType::SDDMM)
    compiled->check = lookup("_mlir_ciface_sptune_check");
  if (!compiled->time ||
      (spec.kernel == KernelType::SDDMM && !compiled->check)) {
    error = "JIT: bench entry points not found";
    return nullptr;
  }
  compiled->compileSeconds = seconds(start);
  Compiled *raw = compiled.get();
  cache[key] = std::move(compiled);
  return raw;
}

/// Fills the inputs and the reference for (m, spec), once per matrix.
template <typename T>
static void prepare(const CsrMatrix &m, const KernelSpec &spec,
                    Inputs<T> &in) {
  in.pos.assign(m.rowPtr.begin(), m.rowPtr.end());
  in.crd.assign(m.colIdx.begin(), m.colIdx.end());
  in.vals.assign(m.values.begin(), m.values.end());
  auto cast = [](const std::vector<float> &v) {
    return std::vector<T>(v.begin(), v.end());
  };
  switch (spec.kernel) {
  case KernelType::SpMM: {
    std::vector<float> b = denseInput(m.cols, spec.free, 1);
    in.dense0 = cast(b);
    in.out.assign(static_cast<size_t>(m.rows * spec.free), T(0));
    in.reference = referenceSpMM(m, b, spec.free);
    break;
  }
  case KernelType::SpMV: {
    std::vector<float> x = denseInput(m.cols, 1, 1);
    in.dense0 = cast(x);
    in.out.assign(static_cast<size_t>(m.rows), T(0));
    in.reference = referenceSpMV(m, x);
    break;
  }
  case KernelType::SDDMM: {
    std::vector<float> a = denseInput(m.rows, spec.free, 2);
    std::vector<float> b = denseInput(spec.free, m.cols, 3);
    in.dense0 = cast(a);
    in.dense1 = cast(b);
    in.reference = referenceSDDMMChecksum(m, a, b, spec.free);
    break;
  }
  }
}


template <typename T>
Measurement CpuMeasurer::Impl::run(const CsrMatrix &m, const KernelSpec &spec,
                                   const Schedule *schedule,
                                   const MeasureOptions &opts) {
  Measurement result;
  if (schedule) {
    std::string why = whyIllegal(*schedule);
    if (why.empty())
      why = whyIllegalForShape(*schedule, m.rows, m.cols, m.nnz());
    if (!why.empty()) {
      result.status = MeasureStatus::Illegal;
      result.reason = why;
      return result;
    }
  }
  bool cached = cache.size();
  std::string error;
  size_t before = cache.size();
  Compiled *compiled = compile(spec, m.rows, m.cols, schedule, error);
  (void)cached;
  if (!compiled) {
    result.status = error.rfind("not applicable", 0) == 0
                        ? MeasureStatus::Illegal
                        : MeasureStatus::CompileError;
    result.reason = error;
    return result;
  }
  result.compileSeconds = cache.size() > before ? compiled->compileSeconds : 0;

  Inputs<T> &in = [&]() -> Inputs<T> & {
    if constexpr (sizeof(T) == 4)
      return inputsF32;
    else
      return inputsF64;
  }();
  // Identify the matrix by content: callers reuse one CsrMatrix object for
  // different matrices.
  uint64_t fingerprint = 1469598103934665603ull;
  auto mix = [&](uint64_t x) {
    fingerprint = (fingerprint ^ x) * 1099511628211ull;
  };
  mix(static_cast<uint64_t>(m.rows));
  mix(static_cast<uint64_t>(m.cols));
  for (int64_t p : m.rowPtr)
    mix(static_cast<uint64_t>(p));
  for (int32_t c : m.colIdx)
    mix(static_cast<uint64_t>(c));
  for (double v : m.values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    mix(bits);
  }
  std::string key = std::to_string(fingerprint) + "|" +
                    std::to_string(static_cast<int>(spec.kernel)) + "|" +
                    std::to_string(spec.free) + "|" +
                    std::to_string(spec.elementBits);
  if (inputsKey != key) {
    prepare(m, spec, in);
    inputsKey = key;
  }

  MemRef<int64_t, 1> pos(in.pos.data(), {static_cast<int64_t>(in.pos.size())});
  MemRef<int64_t, 1> crd(in.crd.data(), {static_cast<int64_t>(in.crd.size())});
  MemRef<T, 1> vals(in.vals.data(), {static_cast<int64_t>(in.vals.size())});
  auto call = [&](Entry6 fn, void *last) {
    switch (spec.kernel) {
    case KernelType::SpMM: {
      MemRef<T, 2> b(in.dense0.data(), {m.cols, spec.free});
      MemRef<T, 2> c(in.out.data(), {m.rows, spec.free});
      fn(pos.ptr(), crd.ptr(), vals.ptr(), b.ptr(), c.ptr(), last);
      break;
    }
    case KernelType::SpMV: {
      MemRef<T, 1> x(in.dense0.data(), {m.cols});
      MemRef<T, 1> y(in.out.data(), {m.rows});
      fn(pos.ptr(), crd.ptr(), vals.ptr(), x.ptr(), y.ptr(), last);
      break;
    }
    case KernelType::SDDMM: {
      MemRef<T, 2> a(in.dense0.data(), {m.rows, spec.free});
      MemRef<T, 2> b(in.dense1.data(), {spec.free, m.cols});
      fn(pos.ptr(), crd.ptr(), vals.ptr(), a.ptr(), b.ptr(), last);
      break;
    }
    }
  };
  auto timed = [&](int reps, std::vector<double> &times) {
    times.assign(static_cast<size_t>(reps), 0.0);
    MemRef<double, 1> t(times.data(), {reps});
    call(compiled->time, t.ptr());
  };

  if (opts.checkResult) {
    std::vector<double> got;
    if (spec.kernel == KernelType::SDDMM) {
      got.assign(1, 0.0);
      MemRef<double, 1> sum(got.data(), {1});
      call(compiled->check, sum.ptr());
    } else {
      std::fill(in.out.begin(), in.out.end(), T(0));
      std::vector<double> once;
      timed(1, once);
      got.assign(in.out.begin(), in.out.end());
    }
    double tolerance = spec.elementBits == 64 ? std::min(opts.tolerance, 1e-12)
                                              : opts.tolerance;
    int64_t bad = firstMismatch(in.reference, got.data(), tolerance);
    if (bad >= 0) {
      result.status = MeasureStatus::WrongResult;
      result.reason = "result #" + std::to_string(bad) + " is " +
                      std::to_string(got[bad]) + ", expected " +
                      std::to_string(in.reference.values[bad]);
      return result;
    }
  }

  repeatAndSummarize(opts, timed, result);
  return result;
}

CpuMeasurer::CpuMeasurer() : impl(std::make_unique<Impl>()) {}
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

const std::string &CpuMeasurer::lastModule() const { return impl->lastModule; }
