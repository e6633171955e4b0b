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
  /// cuSPARSE on CSR: on an H200 it ran 8x to 365x faster than the
  /// reference below on every matrix measured (docs/results.md, GPU).
  /// Where the cuSPARSE path cannot take a kernel (integer values, an SDDMM
  /// into a separate output) the tuner and the untuned path fall back to the
  /// reference schedule, which generates the kernel.
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *,
                             int64_t) const override {
    Schedule s = generatedCsr(kernel);
    gpuKnobs(s).libgen = true;
    return canonicalize(s);
  }
  /// Untuned GPU code: MLIR's GPU code generation on CSR with the largest
  /// blocks (it offloads only a dense outer loop); an SDDMM runs in place on
  /// the GPU (the sampling matrix is the output), which is correct with k
  /// outside the innermost level.
  Schedule referenceSchedule(KernelType kernel) const override {
    return canonicalize(generatedCsr(kernel));
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
  static Schedule generatedCsr(KernelType kernel) {
    Schedule s = Schedule::csr(TargetKind::NVVM, kernel);
    gpuKnobs(s).threads = 1024;
    if (productShape(kernel) == ProductShape::SampledMatrixMatrix)
      s.loopOrder = {{Role::I, Part::Whole},
                     {Role::K, Part::Whole},
                     {Role::J, Part::Whole}};
    return s;
  }

  NvvmKnobEncoding encoding;
  NvvmScheduleSpace nvvmSpace;
};
} // namespace

void sptune::registerNvvmTarget() {
  TargetRegistry::add(std::make_unique<NvvmTarget>());
}
