//===- CalibrationTest.cpp - Effects the calibrated SPADE machine shows ---===//
//
// The default SpadeMachineConfig is scaled so that the dense operand of the
// matrices a sweep can afford exceeds the LLC many times over, as SPADE's
// large graphs exceed its LLC (targets/spade/README.md, "Calibration"). Each
// test checks one effect the calibration is meant to reproduce, on the same
// R-MAT graph (8,192 x 8,192, 60,000 entries: B is 2 MiB at 64 lanes, four
// times the calibrated 512 KiB LLC), against the pre-calibration machine
// (4 MiB LLC, 256 KiB private caches) where the effect is absent or smaller.
//
//===----------------------------------------------------------------------===//

#include "spade/ProgramBuilder.h"
#include "spade/SpadeKnobs.h"
#include "spade/Simulator.h"
#include "sptune/Matrix/Generators.h"
#include "sptune/Support/Error.h"

#include "Support/ErrorTesting.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <initializer_list>

using namespace sptune;

namespace {

/// The machine before calibration: B of every matrix above fits its LLC.
SpadeMachineConfig roomyMachine() {
  SpadeMachineConfig m;
  m.privateBytes = 256 * 1024;
  m.llcBytes = 4 * 1024 * 1024;
  return m;
}

const CsrMatrix &powerLawGraph() {
  static const CsrMatrix m = [] {
    llvm::Expected<GenSpec> spec =
        parseGenSpec("gen:rmat:rows=8192,cols=8192,nnz=60000,seed=3");
    EXPECT_TRUE(test::succeeded(spec));
    llvm::Expected<CooMatrix> coo = generate(*spec);
    EXPECT_TRUE(test::succeeded(coo));
    return CsrMatrix::fromCoo(std::move(*coo));
  }();
  return m;
}

struct Knobs {
  int64_t panel = 256;
  int64_t width = 1;
  bool barrier = false;
  bool bypass = false; ///< sparse and output streams
  RowReorder reorder = RowReorder::None;
};

uint64_t cycles(KernelType kernel, const Knobs &k,
                const SpadeMachineConfig &machine) {
  Schedule s = Schedule::csr(TargetKind::SPADE, kernel);
  s.splitRow = k.panel;
  s.splitCol = k.width;
  spadeKnobs(s).barrier = k.barrier;
  spadeKnobs(s).bypassSparse = spadeKnobs(s).bypassOutput = k.bypass;
  spadeKnobs(s).reorder = k.reorder;
  KernelSpec spec;
  spec.kernel = kernel;
  spec.free = 64;
  std::string error;
  std::optional<SpadeProgram> p =
      takeValue(buildSpadeProgram(powerLawGraph(), spec, s, machine), error);
  EXPECT_TRUE(p.has_value()) << error;
  if (!p)
    return 0;
  SpadeSimResult r = simulateSpade(powerLawGraph(), *p, machine);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.stats.cycles;
}

/// SPADE's default schedule: 256-row panels, no tiling, bypass or reordering.
const Knobs kDefault;

TEST(SpadeCalibration, TheDenseOperandExceedsTheLlcOfTheDefaultMachine) {
  SpadeMachineConfig machine;
  const int64_t denseBytes = powerLawGraph().cols * 64 * machine.elemBytes;
  EXPECT_GE(denseBytes, 4 * machine.llcBytes);
  EXPECT_LT(denseBytes, roomyMachine().llcBytes);
  EXPECT_EQ(machine.whyInvalid(), "");
}

TEST(SpadeCalibration, ABarrierOnColumnTilesPaysForSddmmOnlyWhenBExceedsTheLlc) {
  // With the barrier every PE gathers from the same 1,024-column tile of B
  // (256 KiB), which the LLC holds; without it they drift over several.
  Knobs tiled{32, 1024, false};
  Knobs synced{32, 1024, true};
  SpadeMachineConfig machine;
  EXPECT_LT(double(cycles(KernelType::SDDMM, synced, machine)),
            0.9 * double(cycles(KernelType::SDDMM, tiled, machine)));
  EXPECT_LT(double(cycles(KernelType::SDDMM, synced, machine)),
            0.9 * double(cycles(KernelType::SDDMM, kDefault, machine)));
  // B fits the roomy LLC whole: the barrier buys (almost) nothing.
  SpadeMachineConfig roomy = roomyMachine();
  EXPECT_GT(double(cycles(KernelType::SDDMM, synced, roomy)),
            0.95 * double(cycles(KernelType::SDDMM, tiled, roomy)));
}

TEST(SpadeCalibration, SimilarityReorderingCompoundsColumnTiling) {
  // Rows that share columns become neighbours, so a panel's tile gathers
  // fewer distinct rows of B.
  Knobs synced{32, 1024, true, true};
  Knobs reordered = synced;
  reordered.reorder = RowReorder::BySimilarity;
  SpadeMachineConfig machine;
  EXPECT_LT(double(cycles(KernelType::SDDMM, reordered, machine)),
            0.85 * double(cycles(KernelType::SDDMM, synced, machine)));
}

TEST(SpadeCalibration, BypassingPaysForSpmmOnlyUnderLlcPressure) {
  // Streaming the sparse data and C around the caches keeps B's rows in the
  // small LLC; where B fits anyway, the bypassed streams only lose their
  // (write-back and re-read) locality.
  Knobs cached{32, 1};
  Knobs bypassed{32, 1, false, true};
  SpadeMachineConfig machine;
  EXPECT_LT(double(cycles(KernelType::SpMM, bypassed, machine)),
            0.97 * double(cycles(KernelType::SpMM, cached, machine)));
  SpadeMachineConfig roomy = roomyMachine();
  EXPECT_GT(cycles(KernelType::SpMM, bypassed, roomy),
            cycles(KernelType::SpMM, cached, roomy));
}

TEST(SpadeCalibration, TheSpaceHasMoreHeadroomOverTheDefault) {
  // Best of a few schedules of the space over the default: the calibrated
  // machine makes the choice matter more than the roomy one does.
  auto headroom = [](const SpadeMachineConfig &machine) {
    uint64_t def = cycles(KernelType::SDDMM, kDefault, machine);
    uint64_t best = def;
    for (const Knobs &k :
         {Knobs{32, 1}, Knobs{32, 1024, true},
          Knobs{32, 1024, true, true, RowReorder::BySimilarity},
          Knobs{32, 1, false, true}})
      best = std::min(best, cycles(KernelType::SDDMM, k, machine));
    return double(def) / double(best);
  };
  const double calibrated = headroom(SpadeMachineConfig());
  const double roomy = headroom(roomyMachine());
  EXPECT_GT(calibrated, 1.4);
  EXPECT_GT(calibrated, roomy + 0.15)
      << "calibrated " << calibrated << ", roomy " << roomy;
}

} // namespace
