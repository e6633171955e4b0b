//===- NvvmTarget.cpp - Target "nvvm" -------------------------------------===//

#include "nvvm/NvvmTarget.h"

#include "nvvm/NvvmKnobEncoding.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmScheduleSpace.h"
#include "sptune/Schedule/DefaultSchedule.h"
#include "sptune/Target/Target.h"

using namespace sptune;

namespace {
class NvvmTarget : public Target {
public:
  std::string_view name() const override { return "nvvm"; }
  TargetKind kind() const override { return TargetKind::NVVM; }
  const ScheduleSpace &space() const override { return nvvmSpace; }
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *stats,
                             int64_t free) const override {
    return defaultSchedule(TargetKind::NVVM, kernel, stats, free);
  }
  /// Untuned GPU code: the heuristic's CSR without sptune's choices is the
  /// same schedule (MLIR's GPU code generation has no other default).
  Schedule referenceSchedule(KernelType kernel) const override {
    return defaultSchedule(TargetKind::NVVM, kernel, nullptr, 0);
  }
  std::string whyIllegal(const Schedule &s) const override {
    return whyIllegalForNvvm(s);
  }
  std::string loweringPipeline() const override { return "sptune-lower-nvvm"; }
  std::vector<std::string> baselines() const override { return {"cusparse"}; }

  const KnobEncoding &knobEncoding() const override { return knobs; }

private:
  NvvmKnobEncoding knobs;
  NvvmScheduleSpace nvvmSpace;
};
} // namespace

void sptune::registerNvvmTarget() {
  TargetRegistry::add(std::make_unique<NvvmTarget>());
}
