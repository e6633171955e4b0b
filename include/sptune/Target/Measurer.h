//===- Measurer.h - Measure a schedule on a target --------------*- C++ -*-===//
//
// Part of sptune. A target's measurer runs a kernel with a schedule on a
// matrix and reports how long it took (or simulated cycles), with the result
// checked against a reference. Plain C++: the collector drives any target's
// measurer the same way.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_MEASURER_H
#define SPTUNE_TARGET_MEASURER_H

#include "sptune/Matrix/CooTensor.h"
#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Schedule/Schedule.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

/// The kernel to measure. The sparse operand is the matrix (rows x cols in
/// canonical roles: A(i,k) for SpMM/SpMV, S(i,j) for SDDMM); an SpGEMM is
/// measured as A A (the matrix square), its result sparse.
struct KernelSpec {
  KernelType kernel = kDefaultKernelType;
  /// N (dense columns) of SpMM, K (inner size) of SDDMM; ignored for SpMV.
  int64_t free = 64;
  /// Element type: 32 (f32) or 64 (f64).
  int elementBits = 32;
  /// SDDMM only: B is supplied as B^T (cols x K, row-major — how GNN code
  /// stores feature matrices), and the kernel as written transposes it with
  /// a linalg.transpose before the product. A layout that reads B^T then
  /// elides the transposition.
  bool transposedB = false;
  /// The op as the user wrote it (the matcher's descriptor), when the
  /// measurement is for one: the CPU bench compiles this op rather than the
  /// canonical form of `kernel`. At measuring, the loops of its sparse
  /// operand take the matrix's sizes and its other loops `free`.
  std::optional<KernelDescriptor> descriptor;
};

/// Why kernels of type `kernel` are not measured on a matrix, or "": an
/// MTTKRP's and a batched SpMM's sparse operand is a 3-D tensor
/// (Measurer::measureTensor, isMeasuredOnTensor), and the schedule fuzzer
/// takes matrices.
std::string whyKernelNotMeasured(KernelType kernel);

/// Why kernels of type `kernel` are not measured on a 3-D tensor (when
/// `isTensor`) or on a matrix, or "": an MTTKRP and a batched SpMM want a
/// tensor, every other kernel a matrix. `id` names the operand in the
/// message.
std::string whyNotMeasuredOn(KernelType kernel, bool isTensor,
                             const std::string &id);

/// Bytes a measurement of `spec` on a rows x cols matrix of `nnz` entries
/// allocates besides the matrix: the dense inputs, the output and the
/// reference result it is checked against. A double: 2^31 rows times a
/// 65,536-wide operand must not overflow. Checked against the memory budget
/// (sptune/Support/MemoryBudget.h) before anything is allocated.
double measurementBytes(const KernelSpec &spec, int64_t rows, int64_t cols,
                        int64_t nnz);

struct MeasureOptions {
  int warmups = 2;
  int minReps = 5;
  int maxReps = 1000;
  double minSeconds = 0.2; ///< keep repeating until both minReps and this
  double timeoutSeconds = 120; ///< per candidate, compile + run
  bool checkResult = true;
  /// Allowed error, relative to the sum of |products| times the reduction
  /// length (an upper bound on float rounding error in any order).
  double tolerance = 1e-6;
};

enum class MeasureStatus {
  Ok,
  Illegal,      ///< rejected by legality checks before compiling
  CompileError, ///< the compiler reported an error
  Crash,        ///< the compiling or running process died
  Timeout,
  WrongResult,
  Error,        ///< anything else (I/O, resources)
};
const char *toString(MeasureStatus);

struct Measurement {
  MeasureStatus status = MeasureStatus::Error;
  std::string reason;
  double medianSeconds = 0, minSeconds = 0, maxSeconds = 0;
  /// Median absolute deviation of the repetitions.
  double madSeconds = 0;
  int reps = 0;
  double compileSeconds = 0;
  /// Simulated cycles (simulator targets), else empty.
  std::optional<double> cycles;
  /// Target-specific details as a JSON object text ("{}" when none).
  std::string detailsJson = "{}";

  bool ok() const { return status == MeasureStatus::Ok; }

  /// A measurement refused before anything ran (Illegal), with `reason`.
  static Measurement refused(std::string reason) {
    Measurement m;
    m.status = MeasureStatus::Illegal;
    m.reason = std::move(reason);
    return m;
  }
};

/// Fills `m`'s timing statistics (median, min, max, MAD, count) from
/// `samples` in seconds and marks it Ok.
void summarizeSamples(std::vector<double> samples, Measurement &m);

/// The repetition policy every measurer shares: calls `batch(reps, times)`,
/// which runs `reps` back-to-back repetitions and stores each one's seconds
/// in `times` (the first `options.warmups` are warm-ups and dropped), as
/// often as needed to reach both `minReps` and `minSeconds` (or `maxReps`,
/// or half the timeout), then summarizes into `m`. A first batch still
/// warming up (its median over twice its fastest repetition) is dropped
/// once and run again.
void repeatAndSummarize(
    const MeasureOptions &options,
    const std::function<void(int reps, std::vector<double> &times)> &batch,
    Measurement &m);

/// repeatAndSummarize for a library kernel called in this process: each call
/// of `call` timed on its own with the monotonic clock (like the JIT's
/// per-call timing). `call` returns false to stop the repetitions (a
/// library reported an error); the times up to there are kept.
void timeEachCall(const MeasureOptions &options,
                  const std::function<bool()> &call, Measurement &m);

class Measurer {
public:
  virtual ~Measurer();
  virtual TargetKind target() const = 0;
  virtual Measurement measure(const CsrMatrix &matrix, const KernelSpec &spec,
                              const Schedule &schedule,
                              const MeasureOptions &options) = 0;

  /// Measures the baseline called `name` (one of the target's
  /// `Target::baselines()`, e.g. "eigen" on CPU, "cusparse" on NVVM). The
  /// default knows none: status Illegal with the reason.
  virtual Measurement measureBaseline(std::string_view name,
                                      const CsrMatrix &matrix,
                                      const KernelSpec &spec,
                                      const MeasureOptions &options);

  /// The schedule a baseline stands for, when it is one ("mlir-default" on
  /// CPU), for the record; empty otherwise.
  virtual std::string baselineSchedule(std::string_view name,
                                       const KernelSpec &spec) const;

  /// Times `schedule` on the 3-D tensor `tensor` for the kernels measured
  /// on one (isMeasuredOnTensor): an MTTKRP (spec.free its rank) or a
  /// batched SpMM (the tensor's first dimension its batches, spec.free its
  /// N). The default measures none: status Illegal with the reason.
  virtual Measurement measureTensor(const CooTensor &tensor,
                                    const KernelSpec &spec,
                                    const Schedule &schedule,
                                    const MeasureOptions &options);

  /// The compiled module of the last measurement, for debugging (empty
  /// where the target compiles none).
  virtual std::string lastModule() const { return ""; }
};

} // namespace sptune

#endif // SPTUNE_TARGET_MEASURER_H
