//===- JitBench.h - What the JIT measurers share ----------------*- C++ -*-===//
//
// Part of sptune. The CPU and NVVM measurers both build a bench module
// (BenchModule.h), annotate its kernel and attach the schedule, lower it with
// their target's pipeline, JIT it, feed it one matrix's inputs and check the
// result against a double-precision reference. This header holds the steps
// that do not depend on the target; the lowering and the timing loop are the
// targets' own.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_JITBENCH_H
#define SPTUNE_TARGET_JITBENCH_H

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/Matrix/Reference.h"
#include "sptune/Support/AlignedVector.h"
#include "sptune/Target/BenchInputs.h"
#include "sptune/Target/BenchModule.h"
#include "sptune/Target/Measurer.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ExecutionEngine;
} // namespace mlir

namespace sptune {

/// A C-interface memref descriptor over caller-owned row-major data.
template <typename T, int N> struct MemRefArg {
  StridedMemRefType<T, N> desc;
  MemRefArg(T *data, std::array<int64_t, N> sizes) {
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

/// A C-interface entry point of a bench module: it takes a pointer to a
/// memref descriptor per argument, as many as its kernel has operands
/// (callBench casts it to its arity).
using BenchEntry = void (*)();

/// A JIT-compiled bench module and its entry points.
struct CompiledBench {
  CompiledBench();
  ~CompiledBench();
  std::unique_ptr<mlir::ExecutionEngine> engine;
  BenchEntry time = nullptr;
  BenchEntry check = nullptr; ///< a sparse output's checksum, else null
  double compileSeconds = 0;
};

/// Calls `fn` with pointers to the memref descriptors of `in`'s arguments:
/// pos, crd, vals (`vals` replaces in.vals when given: an in-place output
/// writes its values), every one of in.dense, and `last` (the times or the
/// checksum). Entry points of 4 to 10 arguments.
template <typename T>
void callBench(BenchEntry fn, BenchInputs<T> &in, void *last,
               std::vector<T> *vals = nullptr);

/// Runs the bench once and compares its result with the reference: a sparse
/// output through @sptune_check, a dense one through one timed call. Returns
/// the mismatch as a message (empty when the result is right).
template <typename T>
std::string checkBench(const CompiledBench &compiled, BenchInputs<T> &in,
                       double tolerance, std::vector<T> *vals = nullptr);

/// The tolerance to check a result of `spec` with.
double checkTolerance(const KernelSpec &spec, const MeasureOptions &options);

/// Says which reference value `got` misses first; empty when none.
std::string mismatch(const ReferenceResult &reference,
                     const std::vector<double> &got, double tolerance,
                     llvm::StringRef what = "result");

/// The key of a compiled bench in a measurer's cache (null: the upstream
/// default).
std::string benchKey(const KernelSpec &spec, int64_t rows, int64_t cols,
                     const Schedule *schedule);

/// A context for building and JIT-compiling bench modules: every upstream
/// dialect and extension, the sptune dialect, the builtin and LLVM dialect
/// translations plus those `addTargetTranslations` registers (OpenMP for the
/// CPU, GPU/NVVM for the GPU), all loaded. Initializes the native target for
/// the JIT once per process.
std::unique_ptr<mlir::MLIRContext> createJitContext(
    llvm::function_ref<void(mlir::DialectRegistry &)> addTargetTranslations);

/// Collects the error diagnostics of `ctx` while alive.
class ErrorCollector {
public:
  explicit ErrorCollector(mlir::MLIRContext *ctx);
  ~ErrorCollector();
  const std::string &text() const { return errors; }

private:
  mlir::MLIRContext *ctx;
  uint64_t handlerId;
  std::string errors;
};

/// Parses the bench module, annotates its kernel with sptune-extract-kernels
/// and attaches `schedule` to it (none: left unscheduled). The error carries
/// the diagnostics `collector` gathered.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
parseBenchModule(mlir::MLIRContext *ctx, const std::string &text,
                 const Schedule *schedule, const ErrorCollector &collector);

/// buildBenchModule(spec, rows, cols, encoding, sddmm), parsed and annotated
/// by parseBenchModule with `schedule`.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> buildAndParseBenchModule(
    mlir::MLIRContext *ctx, const KernelSpec &spec, int64_t rows, int64_t cols,
    const std::string &encoding, SddmmForm sddmm, const Schedule *schedule,
    const ErrorCollector &collector);

/// The bench module with @kernel written on `schedule`'s storage and the
/// schedule attached: the driver converts the CSR input to that storage
/// before the timed calls, so they time the kernel alone. Fails with "not
/// applicable: <why>" when the schedule does not apply to the kernel.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildAndParseScheduledBenchModule(mlir::MLIRContext *ctx,
                                  const KernelSpec &spec, int64_t rows,
                                  int64_t cols, SddmmForm sddmm,
                                  const Schedule &schedule,
                                  const ErrorCollector &collector);

/// The #sptune.kernel sptune-extract-kernels gave the kernel of a parsed
/// bench module; fails when it recognized none (a kernel sptune does not
/// schedule).
llvm::Expected<mlir::sptune::KernelAttr> benchKernelAttr(mlir::ModuleOp module);

/// JITs a lowered bench module at O3 with `libs` loaded and looks up its
/// entry points (@sptune_check where the module has one). `initialize` runs the
/// module's global constructors (a gpu.binary loads there).
llvm::Expected<std::unique_ptr<CompiledBench>>
jitBench(mlir::ModuleOp module, llvm::ArrayRef<llvm::StringRef> libs,
         bool aggressiveCodegen, bool initialize);

} // namespace sptune

#endif // SPTUNE_TARGET_JITBENCH_H
