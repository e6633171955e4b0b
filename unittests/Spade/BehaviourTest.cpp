//===- BehaviourTest.cpp - The SPADE model responds to its knobs ----------===//
//
// Tests a wrong machine model would fail: each compares two simulations that
// differ in one knob and checks the direction (and a margin) of the effect
// the knob has on real hardware.
//
//===----------------------------------------------------------------------===//

#include "SpadeTestMatrices.h"
#include "spade/SpadeKnobs.h"

#include "spade/ProgramBuilder.h"
#include "spade/Simulator.h"
#include "sptune/Support/Error.h"

#include "gtest/gtest.h"

using namespace sptune;
using namespace sptune::spadetest;

namespace {

Schedule spadeSchedule(KernelType k, int64_t panel, int64_t width) {
  Schedule s = Schedule::csr(TargetKind::SPADE, k);
  s.splitRow = panel;
  s.splitCol = width;
  return s;
}

SpadeStats simulate(const CsrMatrix &m, KernelType k, int64_t free,
                    const Schedule &s, const SpadeMachineConfig &machine) {
  KernelSpec spec;
  spec.kernel = k;
  spec.free = free;
  std::string error;
  std::optional<SpadeProgram> p =
      takeValue(buildSpadeProgram(m, spec, s, machine), error);
  EXPECT_TRUE(p.has_value()) << error;
  if (!p)
    return SpadeStats();
  SpadeSimResult r = simulateSpade(m, *p, machine);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.stats;
}

double denseLlcHitRate(const SpadeStats &s) {
  return s.memory.llc[int(spade::Stream::Dense)].readHitRate();
}

/// A machine whose LLC is small enough to be under pressure in a unit test.
SpadeMachineConfig smallMachine(int pes) {
  SpadeMachineConfig m;
  m.pes = pes;
  m.privateBytes = 16 * 1024;
  m.privateWays = 4;
  m.llcBytes = 128 * 1024;
  m.llcWays = 16;
  return m;
}

} // namespace

TEST(SpadeBehaviour, BypassingTheSparseStreamProtectsDenseRowsInTheLlc) {
  // B (1536 rows of 16 fp32 = one line each, 96 KiB) almost fills the
  // 128 KiB LLC; the sparse stream (8 bytes per entry, 1.5 MiB) flows
  // through it. Letting it allocate evicts rows of B; bypassing it keeps
  // them.
  CsrMatrix m = uniformMatrix(6144, 1536, 32);
  SpadeMachineConfig machine = smallMachine(4);
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1);
  SpadeStats cached = simulate(m, KernelType::SpMM, 16, s, machine);
  spadeKnobs(s).bypassSparse = true;
  SpadeStats bypassed = simulate(m, KernelType::SpMM, 16, s, machine);

  EXPECT_GT(denseLlcHitRate(bypassed), denseLlcHitRate(cached) + 0.05)
      << "cached " << denseLlcHitRate(cached) << ", bypassed "
      << denseLlcHitRate(bypassed);
  EXPECT_LT(bypassed.memory.dramReadBytes[int(spade::Stream::Dense)],
            cached.memory.dramReadBytes[int(spade::Stream::Dense)]);
  // The sparse data still arrives, now around the caches.
  EXPECT_EQ(cached.memory.bypassedReads[int(spade::Stream::Sparse)], 0u);
  EXPECT_GT(bypassed.memory.bypassedReads[int(spade::Stream::Sparse)], 0u);
  EXPECT_LT(bypassed.cycles, cached.cycles);
}

TEST(SpadeBehaviour, BypassWithoutPressureChangesLittle) {
  // Control for the test above: with B far smaller than the LLC, the dense
  // rows hit either way.
  CsrMatrix m = uniformMatrix(6144, 256, 32);
  SpadeMachineConfig machine = smallMachine(4);
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1);
  SpadeStats cached = simulate(m, KernelType::SpMM, 16, s, machine);
  spadeKnobs(s).bypassSparse = true;
  SpadeStats bypassed = simulate(m, KernelType::SpMM, 16, s, machine);
  EXPECT_NEAR(denseLlcHitRate(bypassed), denseLlcHitRate(cached), 0.02);
}

TEST(SpadeBehaviour, BarrierRaisesDenseRowReuseWhenRowsShareColumns) {
  // Every row draws its columns from one shared set spread over all 8192
  // columns (B = 512 KiB, four times the LLC); panels differ in length, so
  // PEs without a barrier drift apart and gather from different column tiles
  // at once. With a barrier all PEs gather from the same 1024-column tile
  // (64 KiB of B), which the LLC holds.
  const int64_t cols = 8192;
  Rng setRng(7);
  std::vector<int64_t> shared;
  for (int n = 0; n < 4096; ++n)
    shared.push_back(setRng.below(cols));
  CsrMatrix m = makeMatrix(4096, cols, 8, [&](int64_t r, Rng &rng) {
    int64_t len = 16 + 16 * ((r / 64) % 4);
    std::vector<int64_t> c;
    for (int64_t n = 0; n < len; ++n)
      c.push_back(shared[size_t(rng.below(int64_t(shared.size())))]);
    return c;
  });
  SpadeMachineConfig machine = smallMachine(8);
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1024);
  SpadeStats free = simulate(m, KernelType::SpMM, 16, s, machine);
  spadeKnobs(s).barrier = true;
  SpadeStats synced = simulate(m, KernelType::SpMM, 16, s, machine);

  EXPECT_GT(denseLlcHitRate(synced), denseLlcHitRate(free) + 0.05)
      << "no barrier " << denseLlcHitRate(free) << ", barrier "
      << denseLlcHitRate(synced);
  EXPECT_LT(synced.memory.dramReadBytes[int(spade::Stream::Dense)],
            free.memory.dramReadBytes[int(spade::Stream::Dense)]);
  EXPECT_EQ(synced.barriers, 7u);
  EXPECT_EQ(free.barriers, 0u);
}

TEST(SpadeBehaviour, MorePesGiveFewerCyclesOnABalancedMatrix) {
  // Long uniform rows and N = 128: enough reuse of B (512 KiB, in a 4 MiB
  // LLC, larger than the calibrated default's) that DRAM does not saturate
  // before 16 PEs, so each doubling of the PEs nearly halves the cycles.
  CsrMatrix m = uniformMatrix(4096, 1024, 32);
  SpadeMachineConfig machine;
  machine.privateBytes = 256 * 1024;
  machine.llcBytes = 4 * 1024 * 1024;
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1);
  uint64_t last = 0, first = 0;
  for (int pes : {1, 2, 4, 8, 16}) {
    spadeKnobs(s).pes = pes;
    SpadeStats st = simulate(m, KernelType::SpMM, 128, s, machine);
    EXPECT_EQ(st.pesUsed, pes);
    EXPECT_LT(st.imbalance, 1.1) << pes << " PEs";
    if (last) {
      EXPECT_LT(double(st.cycles), 0.7 * double(last))
          << pes << " PEs: " << st.cycles << " cycles, half as many: " << last;
    } else {
      first = st.cycles;
    }
    last = st.cycles;
  }
  EXPECT_LT(double(last), double(first) / 8);
}

TEST(SpadeBehaviour, DramBandwidthLimitsScaling) {
  // Short rows, N = 32, B and C far larger than the LLC: every PE streams
  // from DRAM, and once the 16 PEs saturate it, more bandwidth is what
  // helps, not more PEs.
  CsrMatrix m = uniformMatrix(16384, 65536, 8);
  SpadeMachineConfig machine;
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1);
  SpadeStats base = simulate(m, KernelType::SpMM, 32, s, machine);
  double bytesPerCycle = double(base.memory.dramBytes()) / double(base.cycles);
  EXPECT_GT(bytesPerCycle, 0.8 * machine.dramBytesPerCycle);
  EXPECT_LE(bytesPerCycle, double(machine.dramBytesPerCycle));
  SpadeMachineConfig wide = machine;
  wide.dramBytesPerCycle *= 2;
  SpadeStats faster = simulate(m, KernelType::SpMM, 32, s, wide);
  EXPECT_LT(double(faster.cycles), 0.75 * double(base.cycles));
}

TEST(SpadeBehaviour, ImbalanceShowsOnAPowerLawMatrix) {
  SpadeMachineConfig machine;
  Schedule s = spadeSchedule(KernelType::SpMM, 256, 1);
  SpadeStats power = simulate(powerLawMatrix(8192, 8192, 4000),
                              KernelType::SpMM, 32, s, machine);
  SpadeStats uniform =
      simulate(uniformMatrix(8192, 8192, 6), KernelType::SpMM, 32, s, machine);
  EXPECT_LT(uniform.imbalance, 1.15);
  EXPECT_GT(power.imbalance, 1.5);
  // The busiest PE is the one holding the panel of the longest rows.
  uint64_t busiest = 0;
  for (size_t i = 1; i < power.pes.size(); ++i)
    if (power.pes[i].busy + power.pes[i].stall >
        power.pes[busiest].busy + power.pes[busiest].stall)
      busiest = i;
  EXPECT_EQ(busiest, 0u);
  // Small panels spread the long rows over the PEs.
  SpadeStats fine =
      simulate(powerLawMatrix(8192, 8192, 4000), KernelType::SpMM, 32,
               spadeSchedule(KernelType::SpMM, 1, 1), machine);
  EXPECT_LT(fine.imbalance, power.imbalance);
}

TEST(SpadeBehaviour, ColumnTilingCostsOutputTraffic) {
  // An accumulating SpMM tile reads back the partial rows of C: more column
  // tiles, more output reads.
  CsrMatrix m = uniformMatrix(2048, 8192, 32);
  SpadeMachineConfig machine = smallMachine(4);
  SpadeStats whole = simulate(m, KernelType::SpMM, 32,
                              spadeSchedule(KernelType::SpMM, 64, 1), machine);
  SpadeStats tiled =
      simulate(m, KernelType::SpMM, 32,
               spadeSchedule(KernelType::SpMM, 64, 512), machine);
  const int out = int(spade::Stream::Output);
  EXPECT_EQ(whole.memory.privateCache[out].reads, 0u);
  EXPECT_GT(tiled.memory.privateCache[out].reads, 0u);
  EXPECT_GT(tiled.tiles, whole.tiles);
}

TEST(SpadeBehaviour, SimulationIsDeterministic) {
  CsrMatrix m = powerLawMatrix(4096, 4096, 2000);
  SpadeMachineConfig machine;
  Schedule s = spadeSchedule(KernelType::SDDMM, 128, 1024);
  spadeKnobs(s).barrier = true;
  spadeKnobs(s).reorder = RowReorder::BySimilarity;
  spadeKnobs(s).bypassOutput = true;
  SpadeStats a = simulate(m, KernelType::SDDMM, 32, s, machine);
  SpadeStats b = simulate(m, KernelType::SDDMM, 32, s, machine);
  EXPECT_GT(a.cycles, 0u);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.toJson(false), b.toJson(false));
}

TEST(SpadeBehaviour, MoreWorkTakesMoreCycles) {
  SpadeMachineConfig machine;
  Schedule s = spadeSchedule(KernelType::SpMM, 64, 1);
  SpadeStats n16 =
      simulate(uniformMatrix(4096, 4096, 8), KernelType::SpMM, 16, s, machine);
  SpadeStats n128 =
      simulate(uniformMatrix(4096, 4096, 8), KernelType::SpMM, 128, s, machine);
  EXPECT_GT(n128.cycles, 2 * n16.cycles);
  EXPECT_EQ(n128.macs, 8 * n16.macs);
}

TEST(SpadeBehaviour, HostSkipsReadingPartialsNobodyWrote) {
  // A diagonal matrix in 64 x 64 tiles: each panel's only nonempty tile is
  // its diagonal one, flagged to accumulate for every column tile but the
  // first. Its earlier tiles were all empty, so there is no partial output
  // to read: the host runs it as an overwriting tile.
  CsrMatrix m = makeMatrix(1024, 1024, 5, [](int64_t r, Rng &) {
    return std::vector<int64_t>{r};
  });
  SpadeMachineConfig machine;
  SpadeStats s = simulate(m, KernelType::SpMM, 16,
                          spadeSchedule(KernelType::SpMM, 64, 64), machine);
  const int out = int(spade::Stream::Output);
  EXPECT_EQ(s.memory.privateCache[out].reads, 0u);
  EXPECT_EQ(s.tiles, 16u);
  EXPECT_EQ(s.emptyTiles, 16u * 15u);
  // Two entries per row, in different column tiles: the second tile of each
  // row really adds to the first's partial row and reads it.
  CsrMatrix two = makeMatrix(1024, 1024, 5, [](int64_t r, Rng &) {
    return std::vector<int64_t>{r, (r + 512) % 1024};
  });
  SpadeStats t = simulate(two, KernelType::SpMM, 16,
                          spadeSchedule(KernelType::SpMM, 64, 64), machine);
  EXPECT_EQ(t.memory.privateCache[out].reads, 1024u);
}
