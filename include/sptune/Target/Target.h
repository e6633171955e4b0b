//===- Target.h - A target sptune tunes for, and the registry ---*- C++ -*-===//
//
// Part of sptune. The one place a target plugs in (IREE's HAL target registry
// is the model): a `Target` says what its schedules are (space, heuristic,
// untuned reference, legality) and how its scheduled kernels are lowered;
// the registry maps names to targets. Each target folder (targets/cpu,
// targets/nvvm, ...) defines one and a `registerXTarget()`
// function; `registerAllTargets()` (sptune/InitAllTargets.h) calls them all.
// Adding a target is a folder and one registration line.
//
// Measuring is not part of a target's description: the measurement side
// (JIT benches, library baselines, the simulator) registers a measurer
// factory per target, and only the tools that measure link it. So the pass
// library, which needs the description, links no measurement stack.
//
// Plain C++: no MLIR, no torch. The lowering pipeline is textual, for
// mlir::parsePassPipeline.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_TARGET_H
#define SPTUNE_TARGET_TARGET_H

#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace sptune {

class KnobEncoding;
class TargetKnobs;
class Measurer;
class ScheduleSpace;
struct MatrixStats;

/// Whether `elementType` (as MLIR prints it) is f32, f64, i32 or i64: the
/// types of the targets that move 4- or 8-byte elements only.
inline bool isWordElementType(std::string_view elementType) {
  return elementType == "f32" || elementType == "f64" ||
         elementType == "i32" || elementType == "i64";
}

class Target {
public:
  virtual ~Target();

  /// The name used in options, printed schedules and datasets ("cpu").
  virtual std::string_view name() const = 0;

  /// The kind its schedules carry (`Schedule::target`). Built-in targets
  /// have their own enumerator; a target added at run time gets the kind
  /// `addTargetKind(name())` allocates.
  virtual TargetKind kind() const = 0;

  /// The schedules this target can run.
  virtual const ScheduleSpace &space() const = 0;

  /// The model-free schedule (MLGO's heuristic mode). `stats` may be null;
  /// of a kernel measured on a 3-D tensor they are tensorHeuristicStats
  /// (MeasuredOperand.h: its stored entries as nnz). `free` is the free
  /// dense loop's size (0 = unknown).
  virtual Schedule heuristicSchedule(KernelType kernel,
                                     const MatrixStats *stats,
                                     int64_t free) const = 0;

  /// What runs when nobody tunes: the reference speedups are measured
  /// against (MLIR's sparsifier default on CPU, a simulator's default
  /// configuration).
  virtual Schedule referenceSchedule(KernelType kernel) const = 0;

  /// Why this target cannot run `s`, or empty. The default is the
  /// structural `sptune::whyIllegal`; targets add their own rules.
  virtual std::string whyIllegal(const Schedule &s) const;

  /// Whether its schedules are applied to the IR by sptune-apply-schedule
  /// (so they must fit the op's encoding, orientation and output form).
  /// A simulated accelerator's are not: its own pass turns them into
  /// programs for its simulator.
  virtual bool rewritesIR() const { return true; }

  /// Why this target does not tune kernels whose values have the element
  /// type `elementType` (as MLIR prints it: "f32", "bf16", "i8"), or empty.
  /// Such kernels are left unscheduled with a remark. The default: every
  /// type the kernel matcher accepts.
  virtual std::string whyUnsupportedElementType(std::string_view elementType) const {
    return "";
  }

  /// Why `s` cannot run a kernel whose values have the element type
  /// `elementType` (as MLIR prints it), or empty: a schedule that hands the
  /// kernel to a library computing in some types only. Checked when a
  /// schedule is applied (whyNotApplicable): the tuner skips such candidates
  /// and a hand-written one is refused. The default: every schedule runs
  /// every supported type.
  virtual std::string
  whyScheduleRefusesElementType(const Schedule &s,
                                std::string_view elementType) const {
    return "";
  }

  /// Why this target does not tune kernels whose body is `kernel`'s, or
  /// empty: a target whose programs compute plain products refuses a
  /// scaled one (KernelDescriptor::scaled). Such kernels are left
  /// unscheduled with a remark. The default: every body the kernel matcher
  /// accepts.
  virtual std::string whyUnsupportedBody(const KernelDescriptor &kernel) const {
    return "";
  }

  /// Whether the target computes kernels of type `kernel` with a kernel of
  /// its own that its schedules' knobs build: the kernel types whose
  /// schedules convert nothing (keepsOperandStorage: SpGEMM, MTTKRP, the
  /// batched SpMM),
  /// so that only a target with such a kernel can honour one. One that does
  /// not leaves them unscheduled, with a remark. The default: no.
  virtual bool hasOwnKernel(KernelType kernel) const { return false; }

  /// The target's own part of its schedules (sptune/Schedule/TargetKnobs.h):
  /// how they are defaulted, printed, parsed, checked and canonicalized.
  /// TargetRegistry::add registers it with the values layer. The default:
  /// no knobs of its own (schedules print their shared part only).
  virtual const TargetKnobs &knobs() const;

  /// How the cost model sees this target's own knobs. The default: none
  /// (a zero-width vector; the target's schedules are told apart by the
  /// common features only).
  virtual const KnobEncoding &knobEncoding() const;

  /// `s` with the knobs that `knobEncoding()` cannot see set by the
  /// target's own rule, or `s` itself. A knob newer than the model's
  /// features scores the same either way, so a learned pick would take it
  /// by chance; the tuner applies this to every candidate it ranks but the
  /// heuristic and the reference (TuneOptions::unseenKnobsByRule). The
  /// result must be legal wherever `s` is. The default: `s`.
  virtual Schedule withUnseenKnobsByRule(const Schedule &s) const { return s; }

  /// `s` as one variant of a kernel compiled without its matrix
  /// (sptune/Tune/Multiversion.h), or `s` itself. A dispatch rule fitted to
  /// training matrices may route any matrix to any variant, so a choice that
  /// pays only on the training matrices it was made for, and costs most on
  /// others, is undone here (the CPU: a schedule that runs in one thread, as
  /// picked for a tiny matrix, gets its OpenMP loop back). The result must be
  /// legal wherever `s` is. The default: `s`.
  virtual Schedule asVariant(const Schedule &s) const { return s; }

  /// Names of the library or reference baselines its measurer can run
  /// besides schedules ("heuristic" is available on every target).
  virtual std::vector<std::string> baselines() const { return {}; }
  /// Whether baseline `name` (one of `baselines()`) computes `kernel`; a
  /// collection plans no measurement of one that does not. The default:
  /// every kernel.
  virtual bool baselineComputes(std::string_view name,
                                KernelType kernel) const {
    return true;
  }
};

/// Creates the measurer of one target (the measurement side registers it).
using MeasurerFactory = std::function<std::unique_ptr<Measurer>()>;

/// Adds to a module pass manager the passes that lower kernels carrying a
/// target's schedules after `sptune-apply-schedule`, with their default
/// options (the lowering side registers it; `sptune-lower` runs it).
using LoweringPipelineBuilder = std::function<void(mlir::OpPassManager &)>;

/// Name -> target. Registering a target also registers its knobs
/// (registerTargetKnobs), so that its schedules can be printed and parsed.
/// Registration happens at start-up from explicit
/// `register*` calls (static libraries drop self-registering globals);
/// lookups after that are read-only and thread-safe.
class TargetRegistry {
public:
  /// Adds `target`; a second target of the same name is ignored (so the
  /// register functions are idempotent). Returns the registered one.
  static const Target &add(std::unique_ptr<Target> target);

  /// The target called `name`, or null.
  static const Target *lookup(std::string_view name);
  /// The target of schedules of `kind`, or null.
  static const Target *lookup(TargetKind kind);
  /// The target called `name`, or an error that lists the registered ones.
  static llvm::Expected<const Target &> get(std::string_view name);
  /// The target of `kind`, or an error naming it.
  static llvm::Expected<const Target &> get(TargetKind kind);

  /// Every registered target, in registration order.
  static std::vector<const Target *> all();
  /// The names, comma-separated ("cpu, nvvm, ..."), or "none".
  static std::string names();

  /// Makes `factory` the measurer of the target of `kind` (replaces any).
  static void addMeasurer(TargetKind kind, MeasurerFactory factory);
  /// A new measurer for `kind`, or an error saying this program was linked
  /// without one.
  static llvm::Expected<std::unique_ptr<Measurer>> createMeasurer(TargetKind kind);

  /// Makes `builder` the lowering of the target of `kind` (replaces any).
  /// A target's pass registration function (registerAllTargetPasses())
  /// calls it.
  static void addLowering(TargetKind kind, LoweringPipelineBuilder builder);
  /// Adds the lowering of `kind` to `pm`, or an error saying this program
  /// registered none for it.
  static llvm::Error buildLowering(TargetKind kind, mlir::OpPassManager &pm);
};

} // namespace sptune

#endif // SPTUNE_TARGET_TARGET_H
