//===- Dataset.h - Measured schedules, grouped for ranking ------*- C++ -*-===//
//
// Part of sptune. Reads the JSONL datasets `sptune-collect` writes
// (docs/dataset.md) into groups of schedules measured on the same problem:
// (matrix, kernel, free size, target). Ranking losses and metrics compare
// schedules within a group only. Splits are by matrix, never by sample, so
// held-out metrics are about matrices the model has not seen.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_DATASET_H
#define SPTUNE_COSTMODEL_DATASET_H

#include "sptune/Machine/MachineDescriptor.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llvm::json {
class Object;
} // namespace llvm::json

namespace sptune {

/// The matrix a group was measured on, as the dataset records it.
struct MatrixRef {
  std::string id;
  /// A Matrix Market path or "gen:<spec>".
  std::string source;
  int64_t rows = 0, cols = 0, nnz = 0;
};

/// One schedule and its runtime (median seconds).
struct MeasuredSchedule {
  Schedule schedule; ///< canonical
  double time = 0;
  /// What measuring it cost, in seconds, summed over its records: the
  /// records' `wall_s`, or compile_s + median x reps where a record predates
  /// `wall_s` (the active-learning driver's replay charges this).
  double cost = 0;
  /// Whether one of its records is the MLIR default's or the heuristic's
  /// baseline record.
  bool isMlirDefault = false, isHeuristic = false;
};

/// All measurements of one problem on one target.
struct SampleGroup {
  MatrixRef matrix;
  KernelType kernel = kDefaultKernelType;
  int64_t free = 0;
  TargetKind target = TargetKind::CPU;
  /// The width of the kernel's elements in bits (the records' `bits`: 32,
  /// f32, the collector's default; 64, f64). Runtimes of one matrix at two
  /// widths are two groups, never one.
  int elementBits = 32;
  /// Distinct canonical schedules (repeated measurements merged by geometric
  /// mean), sorted by their printed form.
  std::vector<MeasuredSchedule> samples;
  /// Runtimes of the baselines that are schedules of the target, when the
  /// dataset has them.
  std::optional<double> mlirDefaultTime, heuristicTime;
  /// Library baselines by name ("eigen", "rsb", "cusparse", ...): the
  /// fastest measurement of each.
  std::map<std::string, double> libraryTimes;

  /// "<matrix id>|<kernel>|<free>|<target>", then "|<bits>-bit" when the
  /// elements are not 32-bit (so that 32-bit groups keep their keys).
  std::string key() const;
  /// The MLIR default's runtime: its baseline record, else the sample whose
  /// schedule is `mlirDefaultSchedule`; nullopt when neither was measured.
  std::optional<double> defaultTime() const;
  /// What runtimes are relative to: `defaultTime()`, else the geometric mean
  /// of the samples (so a group without a baseline still trains).
  double referenceTime() const;
};

/// What reading saw, for the warning line.
struct DatasetCounts {
  size_t lines = 0;      ///< non-empty lines read (less otherMachine)
  size_t unparsable = 0; ///< not JSON, or required fields missing/mistyped
  size_t unsupportedSchema = 0;
  size_t notOk = 0;       ///< status != ok (failed compiles, timeouts, ...)
  size_t badSchedule = 0; ///< schedule text that does not parse or mismatches
  size_t duplicates = 0;  ///< repeated measurements merged into one
  size_t samples = 0;     ///< schedule measurements kept
  size_t baselines = 0;   ///< library baseline runtimes kept
  size_t otherMachine = 0; ///< records of machines the filter left out
  /// Records of kernels the model has no feature for (hasKernelFeature:
  /// the Hadamard product, types added at run time), left out.
  size_t unmodeledKernel = 0;
  /// Records (any status) per machine, "<cpu> @ <host>" ("" when a record
  /// has no machine).
  std::map<std::string, size_t> machines;
  /// One line summarizing the counts.
  std::string summary() const;
};

/// Accumulates records from any number of files, then yields the groups.
class DatasetReader {
public:
  /// Reads every line of `path`. Fails only when the file cannot be read;
  /// bad lines are counted and skipped.
  llvm::Error addFile(const std::string &path);
  /// Adds one JSONL record; returns false (and counts why) when skipped.
  bool addLine(std::string_view line);
  /// Adds one parsed record (null: the line was no JSON object); returns
  /// false (and counts why) when skipped.
  bool addRecord(const llvm::json::Object *record);
  const DatasetCounts &counts() const { return counts_; }
  /// Keeps only records measured on `machine` (its cpu or its host,
  /// exactly; recordOnMachine); empty: all. The lines it leaves out (any
  /// other line, unparsable ones included, as filterDatasetByMachine) count
  /// in `otherMachine` only, not in `lines`: the counts are those of the
  /// filtered dataset.
  void setMachineFilter(std::string machine) { machineFilter_ = machine; }
  /// The groups read so far, sorted by key; groups with no schedule sample
  /// are dropped.
  std::vector<SampleGroup> groups() const;

private:
  /// Repeated measurements of one schedule.
  struct Repeats {
    Schedule schedule;
    double sumLogTime = 0;
    int count = 0;
    double cost = 0;
    bool isMlirDefault = false, isHeuristic = false;
  };
  struct Accumulator {
    SampleGroup group;
    /// Printed schedule -> its measurements.
    std::map<std::string, Repeats> times;
  };
  Accumulator &accumulator(const MatrixRef &m, KernelType k, int64_t free,
                           TargetKind t, int elementBits);
  std::unordered_map<std::string, Accumulator> groups_;
  DatasetCounts counts_;
  std::string machineFilter_;
};

/// "<cpu> @ <host>" of a record's `machine` ("" when it has none).
std::string recordMachine(const llvm::json::Object &record);
/// Whether a record was measured on `machine`: its cpu or its host.
bool recordOnMachine(const llvm::json::Object &record,
                     std::string_view machine);

/// The one reader of dataset files: calls `onLine` for every line of `path`
/// that is not blank, with the line and its JSON object (null when the line
/// is not one). A gzipped file (the shipped `*.jsonl.gz`) is read through
/// gzip, known by its first two bytes, not its name. Fails only when the
/// file cannot be read, or is gzip that does not inflate whole.
llvm::Error
forEachDatasetLine(const std::string &path,
                   llvm::function_ref<void(llvm::StringRef line,
                                           const llvm::json::Object *record)>
                       onLine);

/// One machine of a dataset: how many records it measured, and its
/// descriptor as the first record that carries one gives it (nullopt for
/// records written before descriptors, sptune/Machine/MachineDescriptor.h).
struct DatasetMachine {
  size_t records = 0;
  std::optional<MachineDescriptor> descriptor;
};

/// The machines the records of `files` were measured on: "<cpu> @ <host>"
/// -> its records. Fails when a file cannot be read.
llvm::Error datasetMachines(const std::vector<std::string> &files,
                            std::map<std::string, DatasetMachine> &machines);

/// Copies the lines of `input` measured on `machine` (recordOnMachine) to
/// `output`; counts what it kept and dropped.
llvm::Error filterDatasetByMachine(const std::string &input,
                                   const std::string &output,
                                   std::string_view machine, size_t &kept,
                                   size_t &dropped);

/// The seconds a record's measurement took: its `wall_s`, else (records
/// written before it existed) compile time plus the timed repetitions; 0
/// when neither can be read.
double recordMeasurementCost(const llvm::json::Object &record);

/// Why `groups` cannot train one cost model, or "": they hold kernels of
/// more than one element width (a model's features do not see the width,
/// so f32 and f64 runtimes of one matrix would be two answers to one
/// question). `sptune-train` (training and --evaluate) and `sptune-learn`
/// refuse such datasets.
std::string whyMixedElementWidths(const std::vector<SampleGroup> &groups);

/// Groups of `target` only.
std::vector<SampleGroup> filterTarget(std::vector<SampleGroup> groups,
                                      TargetKind target);

/// A split of groups by matrix.
struct DatasetSplit {
  std::vector<size_t> train, test; ///< indices into the groups
  std::vector<std::string> trainMatrices, testMatrices;
};

/// Holds out round(holdout * matrices) distinct matrices (at least one and
/// at most all but one when holdout > 0 and there are two or more), chosen
/// by a seeded shuffle; every group of a held-out matrix is in `test`.
DatasetSplit splitByMatrix(const std::vector<SampleGroup> &groups,
                           double holdout, uint64_t seed);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_DATASET_H
