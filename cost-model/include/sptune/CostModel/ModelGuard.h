//===- ModelGuard.h - When to trust the model -------------------*- C++ -*-===//
//
// Part of sptune. A learned pick replaces sptune's heuristic only when the
// model is sure enough that it is faster: the guard of a model file is an
// ensemble of members (the same network trained on the same data from other
// seeds, a deep ensemble) and a threshold calibrated on held-out data. For
// the model's pick and the heuristic's schedule, each member predicts the
// log speedup of the pick over the heuristic; the pick is trusted when the
// members' mean gain exceeds z times their standard deviation:
//
//   trusted  <=>  mean(g_1..g_M) > z * sd(g_1..g_M)
//
// z depends on the machine: a model is sure of itself where it was trained
// and much less so elsewhere (on another CPU its picks can be slower where
// every member agrees). The guard keeps the CPUs of its model's training
// data (machine.cpu of the records) and two thresholds: z on those, and
// z_other_machine, calibrated on another machine's measurements, anywhere
// else (and where the training machines are unknown). On other machines a
// kernel type may have a threshold of its own (z_other_machine_by_kernel):
// a model carries over to another CPU better for some kernels than for
// others. A threshold may be "never" (kNeverTrust): the calibration found
// no z at which the picks it trusts win more often than they lose, so the
// heuristic is kept for every problem it governs.
//
// The main model (the one that ranked) does not vote: it chose the pick
// because its own gain was the largest of ~1,200 candidates, so its gain is
// biased upwards; the members judge that pair without having chosen it.
//
// In the file: a "guard" section (JSON: version, z, members, machines,
// calibration; z_other_machine, calibration_other_machine and, version 2,
// z_other_machine_by_kernel; version 3, a threshold "never")
// and one section of plain weights per member ("guard.member.1", ...), in
// the layout of PlainWeights.h and with the main model's configuration. A
// file without them has no guard (the model decides alone).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_MODELGUARD_H
#define SPTUNE_COSTMODEL_MODELGUARD_H

#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/PlainModel.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// The section that holds the guard's settings.
inline constexpr const char *kGuardSection = "guard";
/// The guard format this build writes and reads: version 2 adds thresholds
/// per kernel type on other machines, version 3 the threshold "never"; each
/// is written only where a guard needs it (so that an older build refuses
/// such a guard instead of judging with thresholds it cannot read).
inline constexpr int kGuardVersion = 3;
/// The threshold "never": no gain exceeds it, whatever the members' spread
/// (in JSON, the string "never").
inline constexpr double kNeverTrust = std::numeric_limits<double>::infinity();
/// What a threshold may be, for messages.
inline constexpr const char *kThresholdRule =
    "a finite number >= 0 or \"never\"";
/// "1.80" (two decimals), or "never" for kNeverTrust.
std::string thresholdText(double z);
/// A threshold written as text (a command-line option): "never", or a
/// finite number >= 0; nullopt for anything else.
std::optional<double> thresholdFromText(llvm::StringRef text);
/// The section of member `n` (1-based).
std::string guardMemberSection(size_t n);

/// What the guard says of preferring a pick over the heuristic's schedule.
struct GuardVerdict {
  /// The members' mean predicted log speedup of the pick over the heuristic.
  double gain = 0;
  /// The members' standard deviation of that gain (n - 1 in the divisor).
  double spread = 0;
  /// The calibrated multiple of `spread` that `gain` must exceed.
  double z = 0;
  size_t members = 0;
  /// This machine's CPU is not one the model was trained on (`z` is then
  /// the other machines' threshold).
  bool otherMachine = false;
  /// Never for the threshold kNeverTrust, whatever the gain and spread.
  bool trusted() const { return z != kNeverTrust && gain > z * spread; }
  /// One line for remarks (no ';', which separates a remark's notes), e.g.
  /// "the model's pick is predicted 1.31x the heuristic's speed by 5
  /// ensemble members (spread 1.08x), trusted: the gain must exceed 1.00
  /// spreads".
  std::string str() const;
};

/// The guard's settings in a model file.
struct GuardSettings {
  /// The threshold on the machines the model was trained on.
  double z = 0;
  /// The threshold on any other machine; none: `z` everywhere.
  std::optional<double> zOtherMachine;
  /// Thresholds on other machines for single kernel types (by name: "spmm",
  /// "sddmm", "spmv", ...), where a calibration per kernel found that the
  /// model transfers to another CPU better for some kernels than for
  /// others; a kernel type without one takes `zOtherMachine`. Only with
  /// `zOtherMachine`.
  std::map<std::string, double> zOtherMachineByKernel;
  /// The CPUs (machine.cpu, as hostCpuName gives them) of the model's
  /// training data.
  std::vector<std::string> machines;
  size_t members = 0;
  /// How `z` and `zOtherMachine` were chosen (the calibrations' JSON).
  std::string calibration = "{}";
  std::string otherMachineCalibration = "{}";

  /// The thresholds on other machines, as part of a remark's line (no ';'):
  /// "4.00 spreads" (one for every kernel), "1.80 spreads for spmm and 4.90
  /// for other kernel types, never for spmv", "never"; "" without
  /// `zOtherMachine`.
  std::string otherMachineThresholdsText() const;
  /// Whether a machine with CPU `cpu` is not one the model was trained on
  /// (unknown training machines count as other).
  bool isOtherMachine(const std::string &cpu) const;
  /// The threshold on a machine with CPU `cpu` (for a kernel type without
  /// a threshold of its own).
  double zFor(const std::string &cpu) const {
    return zOtherMachine && isOtherMachine(cpu) ? *zOtherMachine : z;
  }
  /// The threshold for kernel type `kernel` on a machine with CPU `cpu`.
  double zFor(const std::string &cpu, const std::string &kernel) const;
  /// Whether any threshold is kNeverTrust (a version 3 guard).
  bool anyNever() const;
};

/// The guard of one model file: its members, ready to score.
class ModelGuard {
public:
  /// The guard of the model file `bytes` (`what` names it in messages), or
  /// null when the file has none. Fails on a malformed guard section, a
  /// member section that is missing, or weights of other shapes than the
  /// main model's configuration.
  static llvm::Expected<std::unique_ptr<ModelGuard>>
  fromBytes(const std::string &bytes, const std::string &what);
  /// Same, from the decoded file (the cost model decodes it once).
  static llvm::Expected<std::unique_ptr<ModelGuard>>
  fromContents(const ModelFileContents &file, const std::string &what);

  const GuardSettings &settings() const { return settings_; }
  /// The CPU whose threshold `judge` uses: this machine's (hostCpuName), or
  /// the environment variable SPTUNE_GUARD_MACHINE when it is set (tests,
  /// and users whose CPU reports another name than the same model's), or
  /// what setHostCpu set.
  const std::string &hostCpu() const { return hostCpu_; }
  void setHostCpu(std::string cpu) { hostCpu_ = std::move(cpu); }

  /// The verdict on `pick` over `heuristic` (schedules of one target) for a
  /// matrix with `features` and free size `free`.
  llvm::Expected<GuardVerdict> judge(const MatrixFeatures &features,
                                     const Schedule &pick,
                                     const Schedule &heuristic,
                                     int64_t free) const;

  /// The members' predicted gains of `pick` over `heuristic`, one per
  /// member (what `judge` summarizes).
  llvm::Expected<std::vector<double>> gains(const MatrixFeatures &features,
                                            const Schedule &pick,
                                            const Schedule &heuristic,
                                            int64_t free) const;

private:
  ModelGuard() = default;
  GuardSettings settings_;
  std::string hostCpu_;
  std::vector<std::unique_ptr<PlainModel>> members_;
};

/// One line for a remark when `guard` judges with the other machines'
/// threshold on this machine ("" when not): the machines the model was
/// trained on, this one, and the two thresholds.
std::string otherMachineNote(const ModelGuard &guard);

/// Summarizes members' gains into a verdict with threshold `z`.
GuardVerdict guardVerdict(const std::vector<double> &gains, double z,
                          bool otherMachine = false);

/// The model file `modelBytes` written again with a guard: the plain
/// weights of each file in `memberBytes` (each a model file of the same
/// configuration and targets) and `settings` (its `members` is set here).
/// Fails, naming the member, when one is no model file, was built for other
/// features or targets, or has weights of other shapes; and on a z < 0 or
/// NaN (kNeverTrust is a threshold), or fewer than 2 members. A guard already
/// in `modelBytes` is replaced.
llvm::Expected<std::string>
attachGuard(const std::string &modelBytes,
            const std::vector<std::pair<std::string, std::string>> &members,
            GuardSettings settings);

/// The model file `modelBytes` without its guard (unchanged without one).
llvm::Expected<std::string> removeGuard(const std::string &modelBytes);

/// A calibration written by `python3 -m sptune.guard_calibrate`.
struct GuardCalibration {
  /// A number >= 0 or kNeverTrust ("never"), as are zByKernel's.
  double z = 0;
  /// The best threshold of each kernel type on its own (its "z_by_kernel";
  /// empty in calibrations of older builds).
  std::map<std::string, double> zByKernel;
  /// The file's text (kept in the guard section).
  std::string text;
  /// The CPUs its data were measured on (its "machines").
  std::vector<std::string> machines;
};

/// Reads a calibration file; the error names the file and what is wrong.
llvm::Expected<GuardCalibration> readGuardCalibration(const std::string &path);

/// The guard settings of the model file `bytes`, or nullopt without a guard.
llvm::Expected<std::optional<GuardSettings>>
readGuardSettings(const std::string &bytes, const std::string &what);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MODELGUARD_H
