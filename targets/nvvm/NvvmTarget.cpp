//===- NvvmTarget.cpp - Target "nvvm" -------------------------------------===//

#include "nvvm/NvvmTarget.h"

#include "nvvm/NvvmKnobEncoding.h"
#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmScheduleSpace.h"
#include "sptune/Target/Target.h"

using namespace sptune;

namespace {
class NvvmTarget : public Target {
public:
  std::string_view name() const override { return "nvvm"; }
  TargetKind kind() const override { return TargetKind::NVVM; }
  const ScheduleSpace &space() const override { return nvvmSpace; }
  /// CSR (GPU code generation offloads only a dense outer loop) with the
  /// largest blocks; an SDDMM runs in place on the GPU (the sampling matrix
  /// is the output), which is correct with k outside the innermost level.
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *,
                             int64_t) const override {
    Schedule s = Schedule::csr(TargetKind::NVVM, kernel);
    gpuKnobs(s).threads = 1024;
    if (productShape(kernel) == ProductShape::SampledMatrixMatrix)
      s.loopOrder = {{Role::I, Part::Whole},
                     {Role::K, Part::Whole},
                     {Role::J, Part::Whole}};
    return canonicalize(s);
  }
  /// Untuned GPU code: the heuristic's CSR without sptune's choices is the
  /// same schedule (MLIR's GPU code generation has no other default).
  Schedule referenceSchedule(KernelType kernel) const override {
    return heuristicSchedule(kernel, nullptr, 0);
  }
  /// cuSPARSE, and sptune's runtime around it, compute in f32 and f64: an
  /// integer kernel on the cuSPARSE path fails when it runs.
  std::string
  whyScheduleRefusesElementType(const Schedule &s,
                                std::string_view et) const override {
    if (!gpuKnobs(s).libgen || et == "f32" || et == "f64")
      return "";
    return "the cuSPARSE path (libgen = true) computes in f32 and f64, not " +
           std::string(et);
  }
  std::string whyIllegal(const Schedule &s) const override {
    return whyIllegalForNvvm(s);
  }
  /// The GPU measurer and cuSPARSE baseline feed 32- and 64-bit values;
  /// narrower types are not measured (nor tested) on a GPU.
  std::string whyUnsupportedElementType(std::string_view et) const override {
    if (isWordElementType(et))
      return "";
    return "the nvvm target measures 32- and 64-bit element types, not " +
           std::string(et);
  }
  std::string whyUnsupportedBody(const KernelDescriptor &d) const override {
    if (!d.scaled)
      return "";
    return "the nvvm target's cuSPARSE path and measurer compute plain "
           "products; a product with an invariant factor (a fused scale) "
           "was never run on a GPU here";
  }
  std::vector<std::string> baselines() const override { return {"cusparse"}; }

  const TargetKnobs &knobs() const override { return nvvmTargetKnobs(); }
  const KnobEncoding &knobEncoding() const override { return encoding; }

private:
  NvvmKnobEncoding encoding;
  NvvmScheduleSpace nvvmSpace;
};
} // namespace

void sptune::registerNvvmTarget() {
  TargetRegistry::add(std::make_unique<NvvmTarget>());
}
