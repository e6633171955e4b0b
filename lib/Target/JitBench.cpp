//===- JitBench.cpp - What the JIT measurers share ------------------------===//

#include "sptune/Target/JitBench.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorAddress.h"
#include "llvm/Target/TargetMachine.h"

#include "sptune/Analysis/ScheduleMapping.h"
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

namespace {
/// A memref descriptor of any rank over caller data, laid out as
/// StridedMemRefType<T, rank>: base and aligned pointers, offset, sizes,
/// row-major strides, all 8-byte words.
class AnyRankMemRef {
public:
  AnyRankMemRef(void *data, const std::vector<int64_t> &sizes)
      : words(3 + 2 * sizes.size()) {
    static_assert(sizeof(void *) == sizeof(int64_t), "64-bit descriptors");
    int64_t ptr = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
    words[0] = words[1] = ptr;
    words[2] = 0;
    int64_t stride = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      words[3 + d] = sizes[d];
      words[3 + sizes.size() + d] = stride;
      stride *= sizes[d];
    }
  }
  void *ptr() { return words.data(); }

private:
  std::vector<int64_t> words;
};

/// Calls `fn` with `args` (4 to 10 of them).
void invoke(BenchEntry fn, const std::vector<void *> &a) {
  using P = void *;
  switch (a.size()) {
  case 4:
    return reinterpret_cast<void (*)(P, P, P, P)>(fn)(a[0], a[1], a[2], a[3]);
  case 5:
    return reinterpret_cast<void (*)(P, P, P, P, P)>(fn)(a[0], a[1], a[2], a[3],
                                                         a[4]);
  case 6:
    return reinterpret_cast<void (*)(P, P, P, P, P, P)>(fn)(a[0], a[1], a[2],
                                                            a[3], a[4], a[5]);
  case 7:
    return reinterpret_cast<void (*)(P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
  case 8:
    return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
  case 9:
    return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
  case 10:
    return reinterpret_cast<void (*)(P, P, P, P, P, P, P, P, P, P)>(fn)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
  default:
    llvm::report_fatal_error("bench entry point with " + llvm::Twine(a.size()) +
                             " arguments");
  }
}
} // namespace

template <typename T>
void sptune::callBench(BenchEntry fn, BenchInputs<T> &in, void *last,
                       std::vector<T> *vals) {
  std::vector<T> &v = vals ? *vals : in.vals;
  std::vector<AnyRankMemRef> descriptors;
  descriptors.reserve(3 + in.dense.size());
  descriptors.emplace_back(
      in.pos.data(), std::vector<int64_t>{static_cast<int64_t>(in.pos.size())});
  descriptors.emplace_back(
      in.crd.data(), std::vector<int64_t>{static_cast<int64_t>(in.crd.size())});
  descriptors.emplace_back(
      v.data(), std::vector<int64_t>{static_cast<int64_t>(v.size())});
  for (size_t n = 0; n < in.dense.size(); ++n)
    descriptors.emplace_back(in.dense[n].data(), in.shapes[n]);
  std::vector<void *> args;
  for (AnyRankMemRef &d : descriptors)
    args.push_back(d.ptr());
  args.push_back(last);
  invoke(fn, args);
}

template <typename T>
std::string sptune::checkBench(const CompiledBench &compiled,
                               BenchInputs<T> &in, double tolerance,
                               std::vector<T> *vals) {
  std::vector<double> got;
  if (in.sparseOutput) {
    if (!compiled.check)
      return "the bench module has no @sptune_check for its sparse output";
    // The checksum, and for SpGEMM its entries and those in order
    // (referenceSpGEMMChecksum).
    got.assign(std::max<size_t>(in.reference.values.size(), 1), 0.0);
    MemRefArg<double, 1> sum(got.data(), {static_cast<int64_t>(got.size())});
    callBench(compiled.check, in, sum.ptr(), vals);
  } else {
    AlignedVector<T> &out = in.dense.back();
    std::fill(out.begin(), out.end(), T(0));
    std::vector<double> once(1, 0.0);
    MemRefArg<double, 1> times(once.data(), {1});
    callBench(compiled.time, in, times.ptr(), vals);
    got.assign(out.begin(), out.end());
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
         (spec.descriptor ? spec.descriptor->str() + "|" : "") +
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

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
sptune::buildAndParseBenchModule(mlir::MLIRContext *ctx, const KernelSpec &spec,
                                 int64_t rows, int64_t cols,
                                 const std::string &encoding, SddmmForm sddmm,
                                 const Schedule *schedule,
                                 const ErrorCollector &collector) {
  std::string text;
  if (llvm::Error e =
          buildBenchModule(spec, rows, cols, encoding, sddmm).moveInto(text))
    return std::move(e);
  return parseBenchModule(ctx, text, schedule, collector);
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
sptune::buildAndParseScheduledBenchModule(mlir::MLIRContext *ctx,
                                          const KernelSpec &spec, int64_t rows,
                                          int64_t cols, SddmmForm sddmm,
                                          const Schedule &schedule,
                                          const ErrorCollector &collector) {
  // The kernel written on CSR tells its #sptune.kernel (what
  // sptune-extract-kernels sees in it: the user's op or the canonical one),
  // from which the scheduled storage follows.
  mlir::OwningOpRef<mlir::ModuleOp> csr;
  if (llvm::Error e =
          buildAndParseBenchModule(ctx, spec, rows, cols, csrEncodingText(),
                                   sddmm, nullptr, collector)
              .moveInto(csr))
    return std::move(e);
  mlir::sptune::KernelAttr kernel;
  if (llvm::Error e = benchKernelAttr(*csr).moveInto(kernel))
    return std::move(e);
  std::string why = mlir::sptune::whyNotApplicable(kernel, schedule);
  if (!why.empty())
    return makeError("not applicable: " + why);
  std::string encoding;
  llvm::raw_string_ostream os(encoding);
  os << mlir::sptune::buildScheduledEncoding(kernel, schedule);
  os.flush();
  return buildAndParseBenchModule(ctx, spec, rows, cols, encoding, sddmm,
                                  &schedule, collector);
}

llvm::Expected<mlir::sptune::KernelAttr>
sptune::benchKernelAttr(mlir::ModuleOp module) {
  mlir::sptune::KernelAttr kernel;
  module->walk([&](mlir::Operation *op) {
    if (auto a = op->getAttrOfType<mlir::sptune::KernelAttr>(
            mlir::sptune::SptuneDialect::kKernelAttrName))
      kernel = a;
  });
  if (!kernel)
    return makeError("the bench kernel was not recognized");
  return kernel;
}

/// Seconds on the monotonic clock, with nanosecond resolution.
static double monotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

llvm::Expected<std::unique_ptr<CompiledBench>>
sptune::jitBench(mlir::ModuleOp module, llvm::ArrayRef<llvm::StringRef> libs,
                 bool aggressiveCodegen, bool initialize) {
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
  // Only a kernel with a sparse output has a checksum entry point.
  if (module.lookupSymbol("sptune_check"))
    compiled->check = lookup("_mlir_ciface_sptune_check");
  if (!compiled->time ||
      (module.lookupSymbol("sptune_check") && !compiled->check))
    return makeError("JIT: bench entry points not found");
  if (initialize)
    compiled->engine->initialize();
  return std::move(compiled);
}

// The element types the measurers run.
template void sptune::callBench(BenchEntry, BenchInputs<float> &, void *,
                                std::vector<float> *);
template void sptune::callBench(BenchEntry, BenchInputs<double> &, void *,
                                std::vector<double> *);
template std::string sptune::checkBench(const CompiledBench &,
                                        BenchInputs<float> &, double,
                                        std::vector<float> *);
template std::string sptune::checkBench(const CompiledBench &,
                                        BenchInputs<double> &, double,
                                        std::vector<double> *);
