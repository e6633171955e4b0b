//===- WorkerProtocol.h - Measurement workers' protocol ---------*- C++ -*-===//
//
// Part of sptune. A measurement worker (`sptune-measure --worker`) reads one
// JSON request per line on stdin and writes one JSON response per line on
// stdout:
//
//   {"id": 7, "target": "cpu", "matrix": "<path or gen: spec>",
//    "kernel": "spmm", "free": 64, "bits": 32,
//    "schedule": "cpu spmm, ...",            // or "" with a baseline:
//    "baseline": "mlir-default" | "heuristic" | "eigen" | "rsb" | "",
//    "options": {"warmups": 2, "min_reps": 5, "max_reps": 1000,
//                "min_seconds": 0.2, "check": true, "tolerance": 1e-6}}
//
//   {"id": 7, "status": "ok", "reason": "", "schedule": "<measured>",
//    "time_s": {"median": .., "min": .., "max": .., "mad": .., "reps": ..},
//    "compile_s": .., "cycles": null, "details": {..},
//    "matrix": {"id": .., "source": .., "rows": .., "cols": .., "nnz": ..}}
//
// `MeasureService` is the worker side; sptune/Collect/WorkerPool.h the
// parent side.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_WORKERPROTOCOL_H
#define SPTUNE_COLLECT_WORKERPROTOCOL_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Target/Measurer.h"

#include <iosfwd>
#include <memory>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace sptune {

/// Why `options` are out of the ranges the worker protocol accepts (""
/// when they are fine): warmups in [0, 1000], min_reps in [1, 10^7],
/// max_reps in [min_reps, 10^8], min_seconds in [0, 3600], timeout_s in
/// (0, 86400], tolerance in [0, 1], all finite.
std::string whyInvalid(const MeasureOptions &options);

struct MeasureRequest {
  int64_t id = 0;
  std::string target = "cpu";
  std::string matrix;
  std::string kernel = "spmm";
  int64_t free = 64;
  int elementBits = 32;
  /// SDDMM only: B supplied as B^T (KernelSpec::transposedB).
  bool transposedB = false;
  /// The user's op (KernelSpec::descriptor), when measuring for one: its
  /// shape must be `kernel`'s.
  std::optional<KernelDescriptor> descriptor;
  std::string schedule;
  std::string baseline;
  MeasureOptions options;

  /// Checks the fields and the options; fails saying which is invalid.
  llvm::Error validate() const;
  std::string toJson() const;
  /// Reads a request line into `out` and validates it.
  static llvm::Error fromJson(const std::string &line, MeasureRequest &out);
};

struct MeasureResponse {
  int64_t id = 0;
  Measurement measurement;
  /// The schedule that was measured (a baseline's equivalent schedule; empty
  /// for library baselines).
  std::string schedule;
  MatrixInfo matrix;
  int64_t rows = 0, cols = 0, nnz = 0;
  /// Wall-clock seconds the collector waited for this measurement (the
  /// worker round trip: compile + check + timing, or the simulator's run;
  /// on a failure or timeout, the time spent until it). Not part of the
  /// worker protocol: set by the collector side (MeasureWorker::measure),
  /// neither written by toJson nor read by fromJson.
  double wallSeconds = 0;

  std::string toJson() const;
  static llvm::Error fromJson(const std::string &line, MeasureResponse &out);
};

/// The exit status of a worker whose request ran past its timeout_s (after
/// it answered `timeout`).
constexpr int kWorkerTimedOutExit = 3;

/// The worker side: loads matrices (the last one stays cached) and measures.
class MeasureService {
public:
  MeasureService();
  ~MeasureService();
  MeasureResponse handle(const MeasureRequest &request);
  /// `handle`, under a watchdog: a request still running past its
  /// timeout_s (a compile or a kernel call that does not return) gets a
  /// `timeout` response written to `out`, and the process exits with
  /// kWorkerTimedOutExit, for its stuck thread cannot be stopped.
  MeasureResponse handleWithin(const MeasureRequest &request,
                               llvm::raw_ostream &out);
  /// Serves requests until end of input, each under the watchdog of
  /// handleWithin; returns the exit code.
  int serve(std::istream &in, llvm::raw_ostream &out);
  /// The lowered module of the last CPU compile.
  std::string lastModule() const;
  /// Testing the fault tolerance of collectors: segfault (`crash`) or hang
  /// on requests whose baseline or schedule contains `text`.
  void injectFault(bool crash, std::string text);

private:
  /// `handle` for an MTTKRP or a batched SpMM: measured on the 3-D tensor the
  /// request's matrix source names (Measurer::measureTensor).
  MeasureResponse handleTensor(const MeasureRequest &request);

  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace sptune

#endif // SPTUNE_COLLECT_WORKERPROTOCOL_H
