//===- SpadeTarget.cpp - Target "spade" -----------------------------------===//

#include "spade/SpadeTarget.h"

#include "spade/SpadeKnobEncoding.h"
#include "spade/SpadeKernels.h"
#include "spade/SpadeKnobs.h"
#include "spade/SpadeScheduleSpace.h"
#include "sptune/Target/Target.h"

using namespace sptune;

namespace {
class SpadeTarget : public Target {
public:
  std::string_view name() const override { return "spade"; }
  TargetKind kind() const override { return TargetKind::SPADE; }
  const ScheduleSpace &space() const override { return spadeSpace; }
  /// Row panels of 256 rows over the whole column range, no barrier, no
  /// bypass, no reordering: SPADE's plain row-panel tiling.
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *,
                             int64_t) const override {
    return defaultSpadeSchedule(kernel);
  }
  Schedule referenceSchedule(KernelType kernel) const override {
    return defaultSpadeSchedule(kernel);
  }
  std::string whyIllegal(const Schedule &s) const override {
    if (!spadeRunsKernel(s.kernel))
      return "SPADE runs SpMM and SDDMM only";
    return sptune::whyIllegal(s);
  }
  /// SPADE programs are emitted (one file per kernel) rather than lowered.
  bool rewritesIR() const override { return false; }
  std::string whyUnsupportedElementType(std::string_view et) const override {
    return whyNotSpadeElementType(et);
  }
  std::string whyUnsupportedBody(const KernelDescriptor &d) const override {
    return d.scaled ? whyNotSpadeScaledBody() : "";
  }

  const TargetKnobs &knobs() const override { return spadeTargetKnobs(); }
  const KnobEncoding &knobEncoding() const override { return encoding; }

private:
  SpadeKnobEncoding encoding;
  SpadeScheduleSpace spadeSpace;
};
} // namespace

std::string sptune::whyNotSpadeElementType(std::string_view et) {
  if (isWordElementType(et))
    return "";
  return "SPADE's machine holds 32- or 64-bit elements, not " +
         std::string(et);
}

std::string sptune::whyNotSpadeScaledBody() {
  return "SPADE's processing elements multiply the operands' values only; "
         "the kernel's invariant factor (a fused scale) has no place in its "
         "program";
}

void sptune::registerSpadeTarget() {
  TargetRegistry::add(std::make_unique<SpadeTarget>());
}
