//===- ProgramTest.cpp - SPADE programs: text form, builder, binding ------===//

#include "SpadeTestMatrices.h"
#include "spade/SpadeKnobs.h"

#include "spade/BoundProgram.h"
#include "spade/ProgramBuilder.h"
#include "spade/ProgramText.h"
#include "spade/Simulator.h"
#include "sptune/Support/Error.h"

#include "gtest/gtest.h"

using namespace sptune;
using namespace sptune::spadetest;

namespace {

const char *kGood = R"(# a small program
spade-program 1
kernel spmm
shape 100 80
free 16
pes 2
bypass sparse output
reorder length
tile 0 0:50 0:40 0:16
tile 1 50:100 0:40 0:16   # second panel
barrier
tile 0 0:50 40:80 0:16 acc
tile 1 50:100 40:80 0:16 acc
)";

std::string parseError(const std::string &text) {
  std::string error;
  std::optional<SpadeProgram> p =
      takeValue(parseSpadeProgram(text, "p.spade"), error);
  if (p)
    return "<parsed>";
  return error;
}

Schedule spadeSched(KernelType k, int64_t panel, int64_t width) {
  Schedule s = Schedule::csr(TargetKind::SPADE, k);
  s.splitRow = panel;
  s.splitCol = width;
  return s;
}

} // namespace

TEST(SpadeProgramText, ParsesAndRoundTrips) {
  std::string error;
  std::optional<SpadeProgram> p = takeValue(parseSpadeProgram(kGood), error);
  ASSERT_TRUE(p.has_value()) << error;
  EXPECT_EQ(p->kernel, KernelType::SpMM);
  EXPECT_EQ(p->rows, 100);
  EXPECT_EQ(p->cols, 80);
  EXPECT_EQ(p->free, 16);
  EXPECT_EQ(p->pes, 2);
  EXPECT_TRUE(p->bypassSparse);
  EXPECT_FALSE(p->bypassDense);
  EXPECT_TRUE(p->bypassOutput);
  EXPECT_EQ(p->reorder, RowReorder::ByLength);
  ASSERT_EQ(p->instrs.size(), 5u);
  EXPECT_EQ(p->numTiles(), 4);
  EXPECT_EQ(p->numBarriers(), 1);
  const SpadeTile &t = p->instrs[4].tile;
  EXPECT_EQ(t.pe, 1);
  EXPECT_EQ(t.rowBegin, 50);
  EXPECT_EQ(t.colEnd, 80);
  EXPECT_TRUE(t.accumulate);

  std::string text = printSpadeProgram(*p);
  std::optional<SpadeProgram> again = takeValue(parseSpadeProgram(text), error);
  ASSERT_TRUE(again.has_value()) << error;
  EXPECT_EQ(*again, *p);
  EXPECT_EQ(printSpadeProgram(*again), text);
}

TEST(SpadeProgramText, BuiltProgramsRoundTrip) {
  for (KernelType k : {KernelType::SpMM, KernelType::SDDMM}) {
    Schedule s = spadeSched(k, 16, 32);
    s.tile = 4;
    spadeKnobs(s).barrier = true;
    spadeKnobs(s).bypassDense = true;
    spadeKnobs(s).reorder = RowReorder::BySimilarity;
    KernelSpec spec;
    spec.kernel = k;
    spec.free = 10;
    std::optional<SpadeProgram> p =
        llvm::expectedToOptional(buildSpadeProgram(50, 70, spec, s, 4));
    ASSERT_TRUE(p.has_value());
    std::string error;
    std::optional<SpadeProgram> q =
        takeValue(parseSpadeProgram(printSpadeProgram(*p)), error);
    ASSERT_TRUE(q.has_value()) << error;
    EXPECT_EQ(*q, *p);
  }
}

TEST(SpadeProgramText, RejectsMalformedPrograms) {
  const std::string header = "spade-program 1\nkernel spmm\nshape 10 10\n"
                             "free 4\npes 2\n";
  struct Case {
    std::string text;
    const char *expected; ///< part of the message, with the line number
  };
  const Case cases[] = {
      {"", "p.spade:1: empty program"},
      {"kernel spmm\n", "p.spade:1: expected 'spade-program 1' first"},
      {"spade-program 2\n", "p.spade:1: unsupported program version '2'"},
      {"spade-program 1\nkernel spmv\n", "p.spade:2: unknown kernel 'spmv'"},
      {"spade-program 1\nkernel spmm\nkernel spmm\n",
       "p.spade:3: duplicate 'kernel'"},
      {"spade-program 1\nkernel spmm\nshape 10\n",
       "p.spade:3: 'shape' takes 2 values"},
      {"spade-program 1\nkernel spmm\nshape 10 -3\n",
       "p.spade:3: 'shape' needs two positive integers"},
      {"spade-program 1\nkernel spmm\nfree 4\npes 1\ntile 0 0:1 0:1 0:1\n",
       "p.spade:5: missing 'shape' before the first instruction"},
      {header + "pes 3\n", "p.spade:6: duplicate 'pes'"},
      {header + "bypass sparse cache\n", "p.spade:6: unknown stream 'cache'"},
      {header + "reorder random\n", "p.spade:6: unknown reordering 'random'"},
      {header + "warp 3\n", "p.spade:6: unknown directive 'warp'"},
      {header + "tile 2 0:5 0:5 0:4\n", "p.spade:6: PE 2 is outside [0, 2)"},
      {header + "tile 0 0:11 0:5 0:4\n",
       "p.spade:6: row range [0, 11) is empty or outside [0, 10)"},
      {header + "tile 0 5:5 0:5 0:4\n", "p.spade:6: row range [5, 5)"},
      {header + "tile 0 0:5 3:2 0:4\n", "p.spade:6: column range [3, 2)"},
      {header + "tile 0 0:5 0:5 0:5\n", "p.spade:6: free range [0, 5)"},
      {header + "tile 0 0-5 0:5 0:4\n", "p.spade:6: bad row range '0-5'"},
      {header + "tile 0 0:5 0:5\n", "p.spade:6: 'tile' takes a PE"},
      {header + "tile 0 0:5 0:5 0:4 add\n", "p.spade:6: unexpected 'add'"},
      {header + "tile x 0:5 0:5 0:4\n", "p.spade:6: bad PE 'x'"},
      {header + "barrier now\n", "p.spade:6: 'barrier' takes no operands"},
      {header + "jump 3\n", "p.spade:6: unknown directive 'jump'"},
      {header + "barrier\nfree 8\n",
       "p.spade:7: 'free' after the first instruction"},
      {header + "barrier\nhalt\n", "p.spade:7: unknown instruction 'halt'"},
      {header + "tile 0 0:99999999999999999999999 0:5 0:4\n",
       "p.spade:6: bad row range"},
  };
  for (const Case &c : cases) {
    std::string error = parseError(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "program:\n"
        << c.text << "\nerror: " << error << "\nexpected: " << c.expected;
  }
  EXPECT_EQ(parseError(header), "<parsed>");
  EXPECT_EQ(parseError(header + "tile 1 9:10 9:10 3:4 acc # ok\n"), "<parsed>");
}

TEST(SpadeProgramText, MissingFileIsAnError) {
  std::string error;
  EXPECT_FALSE(takeValue(readSpadeProgramFile("/nonexistent/x.spade"), error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST(SpadeProgramBuilder, TilesPanelsAcrossPes) {
  KernelSpec spec;
  spec.free = 64;
  std::optional<SpadeProgram> p = llvm::expectedToOptional(buildSpadeProgram(
      1000, 3000, spec, spadeSched(KernelType::SpMM, 256, 1024), 3));
  ASSERT_TRUE(p.has_value());
  // 4 panels x 3 column tiles, panel-major, no barriers.
  EXPECT_EQ(p->numTiles(), 12);
  EXPECT_EQ(p->numBarriers(), 0);
  EXPECT_EQ(p->pes, 3);
  const SpadeTile &t0 = p->instrs[0].tile, &t1 = p->instrs[1].tile;
  EXPECT_EQ(t0.pe, 0);
  EXPECT_EQ(t1.pe, 0);
  EXPECT_EQ(t1.colBegin, 1024);
  EXPECT_FALSE(t0.accumulate);
  EXPECT_TRUE(t1.accumulate);
  const SpadeTile &last = p->instrs.back().tile;
  EXPECT_EQ(last.pe, 0); // panel 3 -> PE 0
  EXPECT_EQ(last.rowBegin, 768);
  EXPECT_EQ(last.rowEnd, 1000);
  EXPECT_EQ(last.colEnd, 3000);
  EXPECT_EQ(last.freeEnd, 64);
}

TEST(SpadeProgramBuilder, BarrierSeparatesColumnPhases) {
  KernelSpec spec;
  spec.free = 64;
  Schedule s = spadeSched(KernelType::SpMM, 256, 1024);
  spadeKnobs(s).barrier = true;
  spadeKnobs(s).pes = 2;
  s.tile = 32;
  std::optional<SpadeProgram> p =
      llvm::expectedToOptional(buildSpadeProgram(1000, 3000, spec, s, 16));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pes, 2);
  // 2 strips x 3 column tiles x 4 panels; a barrier between phases.
  EXPECT_EQ(p->numTiles(), 24);
  EXPECT_EQ(p->numBarriers(), 5);
  // Within a phase, every tile has the same column range.
  int64_t col = -1;
  for (const SpadeInstr &i : p->instrs) {
    if (i.isBarrier()) {
      col = -1;
      continue;
    }
    if (col >= 0) {
      EXPECT_EQ(i.tile.colBegin, col);
    }
    col = i.tile.colBegin;
    EXPECT_EQ(i.tile.accumulate, i.tile.colBegin > 0);
    EXPECT_EQ(i.tile.freeEnd - i.tile.freeBegin, 32);
  }
}

TEST(SpadeProgramBuilder, SddmmStripsAccumulate) {
  KernelSpec spec;
  spec.kernel = KernelType::SDDMM;
  spec.free = 10;
  Schedule s = spadeSched(KernelType::SDDMM, 8, 1);
  s.tile = 4;
  std::optional<SpadeProgram> p =
      llvm::expectedToOptional(buildSpadeProgram(16, 16, spec, s, 2));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->numTiles(), 6);
  for (const SpadeInstr &i : p->instrs)
    EXPECT_EQ(i.tile.accumulate, i.tile.freeBegin > 0);
  EXPECT_EQ(p->instrs.back().tile.freeBegin, 8);
  EXPECT_EQ(p->instrs.back().tile.freeEnd, 10);
}

TEST(SpadeProgramBuilder, RejectsWhatSpadeCannotRun) {
  KernelSpec spec;
  std::string error;
  Schedule cpu = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  EXPECT_FALSE(takeValue(buildSpadeProgram(10, 10, spec, cpu, 4), error));
  EXPECT_NE(error.find("not a SPADE schedule"), std::string::npos) << error;

  Schedule spmv = Schedule::csr(TargetKind::SPADE, KernelType::SpMV);
  spec.kernel = KernelType::SpMV;
  EXPECT_FALSE(takeValue(buildSpadeProgram(10, 10, spec, spmv, 4), error));
  EXPECT_NE(error.find("spmm and sddmm"), std::string::npos) << error;

  spec.kernel = KernelType::SDDMM;
  EXPECT_FALSE(takeValue(
      buildSpadeProgram(10, 10, spec, spadeSched(KernelType::SpMM, 4, 1), 4),
      error));
  EXPECT_NE(error.find("the kernel is 'sddmm'"), std::string::npos) << error;

  spec.kernel = KernelType::SpMM;
  Schedule many = spadeSched(KernelType::SpMM, 4, 1);
  spadeKnobs(many).pes = 5;
  EXPECT_FALSE(takeValue(buildSpadeProgram(10, 10, spec, many, 4), error));
  EXPECT_NE(error.find("5 PEs, the machine has 4"), std::string::npos) << error;

  Schedule bad = spadeSched(KernelType::SpMM, 0, 1);
  EXPECT_FALSE(takeValue(buildSpadeProgram(10, 10, spec, bad, 4), error));
  EXPECT_NE(error.find("illegal schedule"), std::string::npos) << error;

  // Splits that would need billions of tiles are refused, not attempted.
  Schedule tiny = spadeSched(KernelType::SpMM, 2, 2);
  EXPECT_FALSE(takeValue(
      buildSpadeProgram(int64_t(1) << 30, int64_t(1) << 30, spec, tiny, 4),
      error));
  EXPECT_NE(error.find("use larger splits"), std::string::npos) << error;
}

TEST(SpadeBinding, RejectsProgramsThatDoNotFit) {
  CsrMatrix m = uniformMatrix(100, 80, 4);
  SpadeMachineConfig machine;
  std::string error;
  std::optional<SpadeProgram> p = takeValue(parseSpadeProgram(kGood), error);
  ASSERT_TRUE(p.has_value()) << error;
  EXPECT_TRUE(takeValue(bindSpadeProgram(m, *p, machine), error).has_value())
      << error;

  CsrMatrix other = uniformMatrix(100, 81, 4);
  EXPECT_FALSE(takeValue(bindSpadeProgram(other, *p, machine), error));
  EXPECT_NE(error.find("built for a 100 x 80 operand, the matrix is 100 x 81"),
            std::string::npos)
      << error;

  SpadeMachineConfig one = machine;
  one.pes = 1;
  EXPECT_FALSE(takeValue(bindSpadeProgram(m, *p, one), error));
  EXPECT_NE(error.find("uses 2 PEs, the machine has 1"), std::string::npos)
      << error;

  SpadeMachineConfig broken = machine;
  broken.llcBytes = 1000;
  EXPECT_FALSE(takeValue(bindSpadeProgram(m, *p, broken), error));
  EXPECT_NE(error.find("invalid machine"), std::string::npos) << error;

  SpadeProgram edited = *p;
  edited.instrs[0].tile.pe = 7;
  SpadeSimResult r = simulateSpade(m, edited, machine);
  EXPECT_EQ(r.status, SpadeSimStatus::Invalid);
  EXPECT_NE(r.error.find("instruction 0: PE 7"), std::string::npos) << r.error;
}
