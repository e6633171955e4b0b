//===- JitBench.cpp - What the JIT measurers share ------------------------===//

#include "sptune/Target/JitBench.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorAddress.h"
#include "llvm/Target/TargetMachine.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/Error.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>
#include <algorithm>
#include <ctime>

using namespace sptune;

CompiledBench::CompiledBench() = default;
CompiledBench::~CompiledBench() = default;

/// Fills `in` for (m, spec).
template <typename T>
static void prepare(const CsrMatrix &m, const KernelSpec &spec, SddmmForm sddmm,
                    BenchInputs<T> &in) {
  in.pos.assign(m.rowPtr.begin(), m.rowPtr.end());
  in.crd.assign(m.colIdx.begin(), m.colIdx.end());
  // The kernel reads the values at its element type, and so does its
  // reference (valueBits): an f64 kernel of a matrix with values beyond
  // float range computes with them, not with infinities (issue 35).
  constexpr int valueBits = sizeof(T) == 8 ? 64 : 32;
  in.vals.resize(m.values.size());
  for (size_t i = 0; i < m.values.size(); ++i)
    in.vals[i] = static_cast<T>(m.values[i]);
  in.dense1.clear();
  in.out.clear();
  auto cast = [](const std::vector<float> &v) {
    return AlignedVector<T>(v.begin(), v.end());
  };
  switch (spec.kernel) {
  case KernelType::SpMM: {
    std::vector<float> b = denseInput(m.cols, spec.free, 1);
    in.dense0 = cast(b);
    in.out.assign(static_cast<size_t>(m.rows * spec.free), T(0));
    in.reference = referenceSpMM(m, b, spec.free, valueBits);
    break;
  }
  case KernelType::SpMV: {
    std::vector<float> x = denseInput(m.cols, 1, 1);
    in.dense0 = cast(x);
    in.out.assign(static_cast<size_t>(m.rows), T(0));
    in.reference = referenceSpMV(m, x, valueBits);
    break;
  }
  case KernelType::SDDMM: {
    std::vector<float> a = denseInput(m.rows, spec.free, 2);
    std::vector<float> b = denseInput(spec.free, m.cols, 3);
    in.dense0 = cast(a);
    in.dense1 = cast(b);
    if (spec.transposedB) { // the same B, stored as B^T (cols x K)
      for (int64_t r = 0; r < spec.free; ++r)
        for (int64_t j = 0; j < m.cols; ++j)
          in.dense1[static_cast<size_t>(j * spec.free + r)] =
              static_cast<T>(b[static_cast<size_t>(r * m.cols + j)]);
    }
    if (sddmm == SddmmForm::SparseOutput) {
      in.reference = referenceSDDMMChecksum(m, a, b, spec.free, valueBits);
      break;
    }
    // In place with zero values: the sampled product on the pattern, the
    // reference of S .* (A B) with every stored value 1.
    std::fill(in.vals.begin(), in.vals.end(), T(0));
    CsrMatrix ones = m;
    std::fill(ones.values.begin(), ones.values.end(), 1.0);
    in.reference = referenceSDDMMChecksum(ones, a, b, spec.free, valueBits);
    break;
  }
  }
}

template <typename T>
BenchInputs<T> &BenchInputCache::get(const CsrMatrix &m,
                                     const KernelSpec &spec) {
  BenchInputs<T> *in;
  if constexpr (sizeof(T) == 4)
    in = &f32;
  else
    in = &f64;
  std::string wanted = std::to_string(contentHash(m)) + "|" +
                       std::to_string(static_cast<int>(spec.kernel)) + "|" +
                       std::to_string(spec.free) + "|" +
                       std::to_string(spec.elementBits) +
                       (spec.transposedB ? "|bt" : "");
  if (key != wanted) {
    prepare(m, spec, sddmm, *in);
    key = wanted;
  }
  return *in;
}

template <typename T>
void sptune::callBench(BenchEntry fn, const CsrMatrix &m,
                       const KernelSpec &spec, BenchInputs<T> &in, void *last,
                       std::vector<T> *vals) {
  std::vector<T> &v = vals ? *vals : in.vals;
  MemRefArg<int64_t, 1> pos(in.pos.data(),
                            {static_cast<int64_t>(in.pos.size())});
  MemRefArg<int64_t, 1> crd(in.crd.data(),
                            {static_cast<int64_t>(in.crd.size())});
  MemRefArg<T, 1> valsArg(v.data(), {static_cast<int64_t>(v.size())});
  switch (spec.kernel) {
  case KernelType::SpMM: {
    MemRefArg<T, 2> b(in.dense0.data(), {m.cols, spec.free});
    MemRefArg<T, 2> c(in.out.data(), {m.rows, spec.free});
    fn(pos.ptr(), crd.ptr(), valsArg.ptr(), b.ptr(), c.ptr(), last);
    break;
  }
  case KernelType::SpMV: {
    MemRefArg<T, 1> x(in.dense0.data(), {m.cols});
    MemRefArg<T, 1> y(in.out.data(), {m.rows});
    fn(pos.ptr(), crd.ptr(), valsArg.ptr(), x.ptr(), y.ptr(), last);
    break;
  }
  case KernelType::SDDMM: {
    MemRefArg<T, 2> a(in.dense0.data(), {m.rows, spec.free});
    MemRefArg<T, 2> b(in.dense1.data(),
                      spec.transposedB ? std::array<int64_t, 2>{m.cols, spec.free}
                                       : std::array<int64_t, 2>{spec.free, m.cols});
    fn(pos.ptr(), crd.ptr(), valsArg.ptr(), a.ptr(), b.ptr(), last);
    break;
  }
  }
}

template <typename T>
std::string sptune::checkBench(const CompiledBench &compiled,
                               const CsrMatrix &m, const KernelSpec &spec,
                               BenchInputs<T> &in, double tolerance,
                               std::vector<T> *vals) {
  std::vector<double> got;
  if (spec.kernel == KernelType::SDDMM) {
    got.assign(1, 0.0);
    MemRefArg<double, 1> sum(got.data(), {1});
    callBench(compiled.check, m, spec, in, sum.ptr(), vals);
  } else {
    std::fill(in.out.begin(), in.out.end(), T(0));
    std::vector<double> once(1, 0.0);
    MemRefArg<double, 1> times(once.data(), {1});
    callBench(compiled.time, m, spec, in, times.ptr(), vals);
    got.assign(in.out.begin(), in.out.end());
  }
  return mismatch(in.reference, got, tolerance);
}

double sptune::checkTolerance(const KernelSpec &spec,
                              const MeasureOptions &options) {
  return spec.elementBits == 64 ? std::min(options.tolerance, 1e-12)
                                : options.tolerance;
}

std::string sptune::mismatch(const ReferenceResult &reference,
                             const std::vector<double> &got, double tolerance,
                             llvm::StringRef what) {
  int64_t bad = firstMismatch(reference, got.data(), tolerance);
  if (bad < 0)
    return "";
  // Enough digits to show the difference (std::to_string's 6 decimals
  // printed "0.640476, expected 0.640476" for an f64 mismatch).
  char text[128];
  std::snprintf(text, sizeof(text), " #%lld is %.17g, expected %.17g",
                static_cast<long long>(bad), got[bad], reference.values[bad]);
  return what.str() + text;
}

std::string sptune::benchKey(const KernelSpec &spec, int64_t rows, int64_t cols,
                             const Schedule *schedule) {
  return std::to_string(static_cast<int>(spec.kernel)) + "|" +
         std::to_string(spec.free) + "|" + std::to_string(spec.elementBits) +
         "|" + std::to_string(rows) + "x" + std::to_string(cols) + "|" +
         (spec.transposedB ? "bt|" : "") +
         (schedule ? schedule->str() : std::string("upstream"));
}

ErrorCollector::ErrorCollector(mlir::MLIRContext *ctx) : ctx(ctx) {
  handlerId = ctx->getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
      if (!errors.empty())
        errors += "; ";
      errors += d.str();
    }
    return mlir::success();
  });
}

ErrorCollector::~ErrorCollector() {
  ctx->getDiagEngine().eraseHandler(handlerId);
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
sptune::parseBenchModule(mlir::MLIRContext *ctx, const std::string &text,
                         const Schedule *schedule,
                         const ErrorCollector &collector) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, ctx);
  if (!module)
    return makeError("bench module does not parse: " + collector.text());
  mlir::PassManager annotate(ctx);
  mlir::sptune::ExtractKernelsOptions extract;
  extract.emitRemarks = false;
  annotate.addPass(mlir::sptune::createExtractKernels(extract));
  if (mlir::failed(annotate.run(*module)))
    return makeError("kernel extraction failed: " + collector.text());
  if (!schedule)
    return std::move(module);
  bool attached = false;
  module->walk([&](mlir::Operation *op) {
    if (op->hasAttr(mlir::sptune::SptuneDialect::kKernelAttrName)) {
      op->setAttr(mlir::sptune::SptuneDialect::kScheduleAttrName,
                  mlir::sptune::ScheduleAttr::get(ctx, *schedule));
      attached = true;
    }
  });
  if (!attached)
    return makeError("the bench kernel was not recognized");
  return std::move(module);
}

/// Seconds on the monotonic clock, with nanosecond resolution.
static double monotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

llvm::Expected<std::unique_ptr<CompiledBench>>
sptune::jitBench(mlir::ModuleOp module, KernelType kernel,
                 llvm::ArrayRef<llvm::StringRef> libs, bool aggressiveCodegen,
                 bool initialize) {
  mlir::ExecutionEngineOptions engineOptions;
  // LLVM's optimizer gets the host's target machine, as mlir-runner gives
  // it: without one its cost model knows no vector registers, and loops the
  // sparsifier leaves scalar are never vectorized.
  std::unique_ptr<llvm::TargetMachine> hostMachine;
  if (auto builder = llvm::orc::JITTargetMachineBuilder::detectHost()) {
    if (auto tm = builder->createTargetMachine())
      hostMachine = std::move(*tm);
    else
      llvm::consumeError(tm.takeError());
  } else {
    llvm::consumeError(builder.takeError());
  }
  auto transformer = mlir::makeOptimizingTransformer(3, 0, hostMachine.get());
  engineOptions.transformer = transformer;
  if (aggressiveCodegen)
    engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = libs;
  auto engine = mlir::ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return makeError("JIT failed: " + llvm::toString(engine.takeError()));
  // The drivers time each call with `rtclock`. MLIR's runner utils define it
  // with gettimeofday (microseconds), which rounds kernels of a few
  // microseconds to 0 or 1 us; this process's definition, found first,
  // reads the monotonic clock in nanoseconds.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("rtclock")] = {
        llvm::orc::ExecutorAddr::fromPtr(&monotonicSeconds),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  auto compiled = std::make_unique<CompiledBench>();
  compiled->engine = std::move(*engine);
  auto lookup = [&](const char *name) -> BenchEntry {
    llvm::Expected<void *> fn = compiled->engine->lookup(name);
    if (!fn) {
      llvm::consumeError(fn.takeError());
      return nullptr;
    }
    return reinterpret_cast<BenchEntry>(*fn);
  };
  compiled->time = lookup("_mlir_ciface_sptune_time");
  if (kernel == KernelType::SDDMM)
    compiled->check = lookup("_mlir_ciface_sptune_check");
  if (!compiled->time || (kernel == KernelType::SDDMM && !compiled->check))
    return makeError("JIT: bench entry points not found");
  if (initialize)
    compiled->engine->initialize();
  return std::move(compiled);
}

// The element types the measurers run.
template BenchInputs<float> &BenchInputCache::get(const CsrMatrix &,
                                                  const KernelSpec &);
template BenchInputs<double> &BenchInputCache::get(const CsrMatrix &,
                                                   const KernelSpec &);
template void sptune::callBench(BenchEntry, const CsrMatrix &,
                                const KernelSpec &, BenchInputs<float> &,
                                void *, std::vector<float> *);
template void sptune::callBench(BenchEntry, const CsrMatrix &,
                                const KernelSpec &, BenchInputs<double> &,
                                void *, std::vector<double> *);
template std::string sptune::checkBench(const CompiledBench &,
                                        const CsrMatrix &, const KernelSpec &,
                                        BenchInputs<float> &, double,
                                        std::vector<float> *);
template std::string sptune::checkBench(const CompiledBench &,
                                        const CsrMatrix &, const KernelSpec &,
                                        BenchInputs<double> &, double,
                                        std::vector<double> *);
