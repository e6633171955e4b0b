//===- NvvmKnobs.cpp - The NVVM target's own part of a schedule -----------===//

#include "nvvm/NvvmKnobs.h"

#include "sptune/Schedule/ScheduleGrammar.h"

#include <string>

using namespace sptune;

char GpuKnobs::ID = 0;

bool GpuKnobs::operator==(const GpuKnobs &o) const {
  return threads == o.threads && libgen == o.libgen;
}

namespace {
class NvvmTargetKnobs : public TargetKnobsOf<GpuKnobs> {
public:
  TargetKind target() const override { return TargetKind::NVVM; }
  bool runsLibraryKernel(const Schedule &s) const override {
    return gpuKnobs(s).libgen;
  }

  void print(const Schedule &s, std::string &out) const override {
    const GpuKnobs &g = gpuKnobs(s);
    out += ", threads = " + std::to_string(g.threads) +
           ", libgen = " + (g.libgen ? "true" : "false");
  }

  KnobParseResult parseKnob(std::string_view key, ScheduleTokenSource &t,
                            Schedule &s) const override {
    bool ok;
    if (key == "threads")
      ok = parseInt(t, gpuKnobs(s).threads);
    else if (key == "libgen")
      ok = parseBool(t, gpuKnobs(s).libgen);
    else
      return KnobParseResult::NotAKnob;
    return ok ? KnobParseResult::Parsed : KnobParseResult::Failed;
  }

  std::string whyIllegal(const Schedule &s) const override {
    const GpuKnobs &g = gpuKnobs(s);
    if (g.threads < 1 || g.threads > 1024)
      return "GPU thread count must be in [1, 1024]";
    return "";
  }

  void canonicalize(Schedule &s) const override {
    // The cuSPARSE path runs the library's own kernel on the stored format:
    // loop order and code generation threads play no part.
    if (gpuKnobs(static_cast<const Schedule &>(s)).libgen) {
      gpuKnobs(s).threads = GpuKnobs().threads;
      std::vector<StorageLevel> levels = s.levels;
      s.setLevels(levels);
    }
  }
};
} // namespace

const TargetKnobs &sptune::nvvmTargetKnobs() {
  static const NvvmTargetKnobs knobs;
  return knobs;
}
