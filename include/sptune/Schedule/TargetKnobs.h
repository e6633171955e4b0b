//===- TargetKnobs.h - A target's own part of a schedule --------*- C++ -*-===//
//
// Part of sptune. A `Schedule` is the part every target shares (formats of
// the sparse operand's levels, loop order, splits, tile, dense layouts,
// widths) plus a block of knobs that only one target reads: OpenMP and
// vectorization on the CPU, cuSPARSE on NVVM, an accelerator's cache
// bypassing. The
// values layer names no target: it stores the block opaquely (`KnobValues`)
// and asks the target's `TargetKnobs` — registered at start-up by the
// target's folder, the way LLVM registers a target's MC layer — to default,
// print, parse, range-check and canonicalize it.
//
// Plain C++: no MLIR, no torch.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_TARGETKNOBS_H
#define SPTUNE_SCHEDULE_TARGETKNOBS_H

#include "sptune/Schedule/Vocabulary.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

struct Schedule;
class ScheduleTokenSource;

/// The knob values of one schedule: a target's own struct (CpuKnobs,
/// GpuKnobs, ...) deriving from `KnobValuesOf<Itself>`. Held by `Schedule`
/// behind a shared pointer and copied on write, so schedules stay cheap
/// values.
class KnobValues {
public:
  virtual ~KnobValues();
  /// Identifies the concrete struct (the address of its `static char ID`,
  /// as LLVM's pass IDs).
  virtual const void *typeId() const = 0;
  virtual std::shared_ptr<KnobValues> clone() const = 0;
  /// Same struct and same values.
  virtual bool equals(const KnobValues &other) const = 0;
  /// Every value at its default (a schedule that sets no knob).
  virtual bool isDefault() const = 0;
};

/// CRTP base of a target's knob struct: `Derived` provides `static char ID`,
/// a default constructor giving the defaults and `operator==`.
template <typename Derived> class KnobValuesOf : public KnobValues {
public:
  const void *typeId() const final { return &Derived::ID; }
  std::shared_ptr<KnobValues> clone() const final {
    return std::make_shared<Derived>(static_cast<const Derived &>(*this));
  }
  bool equals(const KnobValues &other) const final {
    return other.typeId() == typeId() &&
           static_cast<const Derived &>(*this) ==
               static_cast<const Derived &>(other);
  }
  bool isDefault() const final {
    return static_cast<const Derived &>(*this) == Derived();
  }
};

/// What a parser made of one `key = value` of a schedule's knob block.
enum class KnobParseResult {
  NotAKnob, ///< `key` is not one of the target's knobs (nothing consumed)
  Parsed,   ///< the value was read into the schedule
  Failed    ///< the value is malformed (an error was emitted)
};

/// How the values layer treats one target's schedules. One object per
/// target, registered with `registerTargetKnobs` (TargetRegistry::add does
/// it for each target it registers).
class TargetKnobs {
public:
  virtual ~TargetKnobs();

  /// The target whose schedules these knobs belong to.
  virtual TargetKind target() const = 0;

  /// The knob values of a schedule that sets none (never null), and the
  /// `KnobValues::typeId()` of the target's knob struct.
  virtual std::shared_ptr<KnobValues> defaults() const = 0;
  virtual const void *valuesTypeId() const = 0;

  /// Appends the knobs to a printed schedule, each as ", key = value", in a
  /// fixed order (the printed form keys datasets and databases: it must not
  /// change for existing knobs).
  virtual void print(const Schedule &s, std::string &out) const = 0;

  /// Reads the value of knob `key` (the `=` already consumed) into `s`.
  virtual KnobParseResult parseKnob(std::string_view key,
                                    ScheduleTokenSource &tokens,
                                    Schedule &s) const = 0;

  /// Why the knob values of `s` are out of range or unsupported in
  /// combination with its shared part; empty when legal.
  virtual std::string whyIllegal(const Schedule &s) const { return ""; }

  /// Resets knobs that have no effect on `s` (e.g. OpenMP's chunk when
  /// nothing runs in parallel), and shared fields the target ignores, so
  /// that equivalent schedules compare equal.
  virtual void canonicalize(Schedule &s) const {}

  /// Whether the shared part's storage levels, loop order and bit widths
  /// mean anything on this target (they are MLIR sparsifier concepts). When
  /// they do not (an accelerator that tiles the matrix itself), they are
  /// neither printed
  /// nor parsed and legality checks skip them.
  virtual bool hasStorageLevels() const { return true; }

  /// Whether the target can store dense operands transposed
  /// (`Schedule::denseTransposed`, printed as `layout = [...]`).
  virtual bool hasDenseLayouts() const { return false; }

  /// Whether `s` runs a library's kernel on the stored format rather than
  /// loops generated from the schedule (loop-order rules do not apply).
  virtual bool runsLibraryKernel(const Schedule &s) const { return false; }
};

/// `TargetKnobs` of a target whose knob struct is `Values`.
template <typename Values> class TargetKnobsOf : public TargetKnobs {
public:
  std::shared_ptr<KnobValues> defaults() const final {
    return std::make_shared<Values>();
  }
  const void *valuesTypeId() const final { return &Values::ID; }
};

/// Registers `knobs` for its target (the first registration of a target
/// wins; registering again is harmless). `knobs` must outlive the program's
/// use of schedules (targets keep theirs in the registered Target).
void registerTargetKnobs(const TargetKnobs &knobs);

/// The knobs registered for `target`, or null. Lock-free.
const TargetKnobs *lookupTargetKnobs(TargetKind target);

/// The targets with registered knobs, in registration order: the targets
/// whose schedules this program can print and parse.
std::vector<TargetKind> targetsWithKnobs();

} // namespace sptune

#endif // SPTUNE_SCHEDULE_TARGETKNOBS_H
