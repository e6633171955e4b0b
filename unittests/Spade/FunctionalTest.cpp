//===- FunctionalTest.cpp - SPADE programs compute the right result -------===//

#include "SpadeTestMatrices.h"
#include "spade/SpadeKnobs.h"

#include "spade/BoundProgram.h"
#include "spade/Functional.h"
#include "spade/ProgramBuilder.h"
#include "spade/Simulator.h"
#include "sptune/Support/Error.h"

#include "gtest/gtest.h"

using namespace sptune;
using namespace sptune::spadetest;

namespace {

struct NamedMatrix {
  const char *name;
  CsrMatrix m;
};

std::vector<NamedMatrix> varied() {
  std::vector<NamedMatrix> v;
  v.push_back({"uniform", uniformMatrix(300, 300, 7)});
  // Rectangular both ways.
  v.push_back({"wide", uniformMatrix(97, 1000, 11, 4)});
  v.push_back({"tall", uniformMatrix(1000, 61, 3, 5)});
  v.push_back({"power-law", powerLawMatrix(500, 400, 300)});
  v.push_back({"blocked", blockedMatrix(40, 40, 4, 3)});
  // Every third row empty, and whole empty column ranges.
  v.push_back({"empty-rows", makeMatrix(333, 777, 6, [](int64_t r, Rng &rng) {
                 std::vector<int64_t> c;
                 if (r % 3 != 0)
                   for (int n = 0; n < 5; ++n)
                     c.push_back(rng.below(100) + (r % 2 ? 600 : 0));
                 return c;
               })});
  // A single row and a single column.
  v.push_back({"one-row", uniformMatrix(1, 500, 40, 6)});
  v.push_back({"one-col", uniformMatrix(500, 1, 1, 7)});
  return v;
}

std::vector<Schedule> schedules(KernelType k) {
  std::vector<Schedule> out;
  auto add = [&](int64_t panel, int64_t width, int64_t tile, int pes,
                 bool barrier, RowReorder reorder, bool bypass) {
    Schedule s = Schedule::csr(TargetKind::SPADE, k);
    s.splitRow = panel;
    s.splitCol = width;
    s.tile = tile;
    spadeKnobs(s).pes = pes;
    spadeKnobs(s).barrier = barrier;
    spadeKnobs(s).reorder = reorder;
    spadeKnobs(s).bypassSparse = spadeKnobs(s).bypassDense = spadeKnobs(s).bypassOutput = bypass;
    out.push_back(canonicalize(s));
  };
  add(256, 1, 0, 0, false, RowReorder::None, false);
  add(1, 1, 0, 3, false, RowReorder::None, false);
  add(32, 64, 0, 0, false, RowReorder::ByLength, true);
  add(32, 64, 0, 0, true, RowReorder::BySimilarity, false);
  add(7, 100, 5, 5, true, RowReorder::ByLength, false);
  add(64, 1, 3, 0, false, RowReorder::BySimilarity, true);
  return out;
}

std::string check(const CsrMatrix &m, KernelType k, int64_t free,
                  const SpadeProgram &p, const SpadeMachineConfig &machine) {
  std::string error;
  std::optional<SpadeBoundProgram> b =
      takeValue(bindSpadeProgram(m, p, machine), error);
  if (!b)
    return "bind: " + error;
  SpadeDenseInputs in = makeSpadeInputs(m, k, free, 9);
  std::vector<double> scale;
  std::vector<double> ref = spadeReference(m, k, in, &scale);
  return compareSpadeResults(runSpadeFunctional(*b, in), ref, scale, 1e-9, k,
                             free);
}

void checkAll(KernelType k, int64_t free) {
  SpadeMachineConfig machine;
  machine.pes = 8;
  for (const NamedMatrix &nm : varied()) {
    for (const Schedule &s : schedules(k)) {
      KernelSpec spec;
      spec.kernel = k;
      spec.free = free;
      std::string error;
      std::optional<SpadeProgram> p =
          takeValue(buildSpadeProgram(nm.m, spec, s, machine), error);
      ASSERT_TRUE(p.has_value()) << nm.name << ", " << s.str() << ": " << error;
      EXPECT_EQ(check(nm.m, k, free, *p, machine), "")
          << nm.name << ", " << s.str();
      // The timing model walks the same entries.
      SpadeSimResult r = simulateSpade(nm.m, *p, machine);
      ASSERT_TRUE(r.ok()) << r.error;
      int64_t strips = s.tile ? (free + s.tile - 1) / s.tile : 1;
      EXPECT_EQ(int64_t(r.stats.nonzeros), nm.m.nnz() * strips) << nm.name;
      EXPECT_EQ(int64_t(r.stats.macs), nm.m.nnz() * free) << nm.name;
    }
  }
}

} // namespace

TEST(SpadeFunctional, SpmmMatchesTheReference) {
  checkAll(KernelType::SpMM, 16);
  checkAll(KernelType::SpMM, 7);
}

TEST(SpadeFunctional, SddmmMatchesTheReference) {
  checkAll(KernelType::SDDMM, 16);
  checkAll(KernelType::SDDMM, 5);
}

TEST(SpadeFunctional, ReferenceIsTheProduct) {
  // A 2 x 3 matrix by hand: C = A * B.
  CooMatrix coo;
  coo.rows = 2;
  coo.cols = 3;
  coo.add(0, 0, 2.0);
  coo.add(0, 2, -1.0);
  coo.add(1, 1, 3.0);
  CsrMatrix m = CsrMatrix::fromCoo(coo);
  SpadeDenseInputs in;
  in.free = 2;
  in.b = {1, 2, 3, 4, 5, 6}; // rows of B: (1,2) (3,4) (5,6)
  std::vector<double> c = spadeReference(m, KernelType::SpMM, in);
  EXPECT_EQ(c, (std::vector<double>{2 - 5, 4 - 6, 9, 12}));
  // SDDMM: X_ij = S_ij * dot(A_i, B_j) with B stored as cols x K.
  in.a = {1, 1, 0, 2};
  std::vector<double> x = spadeReference(m, KernelType::SDDMM, in);
  EXPECT_EQ(x, (std::vector<double>{2 * 3, -1 * 11, 3 * 8}));
}

TEST(SpadeFunctional, AWrongAccumulateFlagIsCaught) {
  CsrMatrix m = uniformMatrix(64, 256, 16);
  SpadeMachineConfig machine;
  Schedule s = Schedule::csr(TargetKind::SPADE, KernelType::SpMM);
  s.splitRow = 16;
  s.splitCol = 64;
  KernelSpec spec;
  spec.free = 8;
  std::optional<SpadeProgram> p =
      llvm::expectedToOptional(buildSpadeProgram(m, spec, s, machine));
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(check(m, KernelType::SpMM, 8, *p, machine), "");
  // Overwriting instead of accumulating loses earlier column tiles.
  for (SpadeInstr &i : p->instrs)
    i.tile.accumulate = false;
  EXPECT_NE(check(m, KernelType::SpMM, 8, *p, machine), "");
}

TEST(SpadeFunctional, AMissingOrRepeatedTileIsCaught) {
  CsrMatrix m = uniformMatrix(64, 64, 8);
  SpadeMachineConfig machine;
  Schedule s = Schedule::csr(TargetKind::SPADE, KernelType::SDDMM);
  s.splitRow = 16;
  KernelSpec spec;
  spec.kernel = KernelType::SDDMM;
  spec.free = 8;
  std::optional<SpadeProgram> p =
      llvm::expectedToOptional(buildSpadeProgram(m, spec, s, machine));
  ASSERT_TRUE(p.has_value());
  SpadeProgram missing = *p;
  missing.instrs.pop_back();
  EXPECT_NE(check(m, KernelType::SDDMM, 8, missing, machine), "");
  SpadeProgram repeated = *p;
  SpadeInstr again = repeated.instrs.front();
  again.tile.accumulate = true;
  repeated.instrs.push_back(again);
  EXPECT_NE(check(m, KernelType::SDDMM, 8, repeated, machine), "");
}
