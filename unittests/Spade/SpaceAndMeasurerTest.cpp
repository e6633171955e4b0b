//===- SpaceAndMeasurerTest.cpp - SPADE schedule space and measurer -------===//

#include "SpadeTestMatrices.h"
#include "spade/SpadeKnobs.h"

#include "spade/SpadeMeasurer.h"
#include "spade/SpadeScheduleSpace.h"

#include "gtest/gtest.h"

#include <set>

using namespace sptune;
using namespace sptune::spadetest;

namespace {

std::vector<Schedule> all(const ProblemShape &shape) {
  std::vector<Schedule> out;
  SpadeScheduleSpace().enumerate(shape, [&](const Schedule &s) {
    out.push_back(s);
    return true;
  });
  return out;
}

ProblemShape shape(KernelType k, int64_t rows, int64_t cols) {
  ProblemShape p;
  p.kernel = k;
  p.rows = rows;
  p.cols = cols;
  p.free = 64;
  return p;
}

} // namespace

TEST(SpadeScheduleSpace, HasAFewHundredCanonicalDistinctSchedules) {
  for (KernelType k : {KernelType::SpMM, KernelType::SDDMM}) {
    ProblemShape big = shape(k, 100000, 100000);
    std::vector<Schedule> v = all(big);
    EXPECT_EQ(v.size(), 252u);
    EXPECT_EQ(SpadeScheduleSpace().size(big), 252u);
    std::set<std::string> seen;
    for (const Schedule &s : v) {
      EXPECT_EQ(s.target, TargetKind::SPADE);
      EXPECT_EQ(s.kernel, k);
      EXPECT_TRUE(isLegal(s)) << s.str();
      EXPECT_EQ(canonicalize(s), s) << s.str();
      std::optional<Schedule> parsed =
          llvm::expectedToOptional(parseSchedule(s.str()));
      ASSERT_TRUE(parsed.has_value()) << s.str();
      EXPECT_EQ(*parsed, s);
      EXPECT_TRUE(seen.insert(s.str()).second) << "twice: " << s.str();
      EXPECT_FALSE(spadeKnobs(s).barrier && s.splitCol == 1) << s.str();
    }
    // Deterministic order.
    EXPECT_EQ(all(big), v);
    EXPECT_TRUE(SpadeScheduleSpace().contains(big, defaultSpadeSchedule(k)));
  }
}

TEST(SpadeScheduleSpace, PrunesKnobsTheShapeMakesEqual) {
  // 100 columns: every column tiling covers all columns; 100 rows: panels of
  // 256 and 2048 are the same single panel.
  std::vector<Schedule> v = all(shape(KernelType::SpMM, 100, 100));
  EXPECT_EQ(v.size(), 2u * 12u);
  for (const Schedule &s : v) {
    EXPECT_EQ(s.splitCol, 1);
    EXPECT_LE(s.splitRow, 256);
  }
  // Unknown shape: the full space.
  EXPECT_EQ(all(shape(KernelType::SpMM, 0, 0)).size(), 252u);
  // SPADE has no SpMV.
  EXPECT_TRUE(all(shape(KernelType::SpMV, 1000, 1000)).empty());
}

TEST(SpadeScheduleSpace, SamplesDeterministically) {
  SpadeScheduleSpace space;
  ProblemShape big = shape(KernelType::SpMM, 50000, 50000);
  std::vector<Schedule> a = space.sample(big, 20, 5);
  std::vector<Schedule> b = space.sample(big, 20, 5);
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(a, b);
  EXPECT_NE(space.sample(big, 20, 6), a);
}

TEST(SpadeMeasurer, MeasuresCyclesAndChecksTheResult) {
  CsrMatrix m = powerLawMatrix(2000, 2000, 1500);
  SpadeMeasurer measurer;
  MeasureOptions options;
  for (KernelType k : {KernelType::SpMM, KernelType::SDDMM}) {
    KernelSpec spec;
    spec.kernel = k;
    spec.free = 32;
    Schedule s = defaultSpadeSchedule(k);
    s.splitCol = 256;
    spadeKnobs(s).barrier = true;
    Measurement a = measurer.measure(m, spec, s, options);
    ASSERT_TRUE(a.ok()) << a.reason;
    ASSERT_TRUE(a.cycles.has_value());
    EXPECT_GT(*a.cycles, 0);
    EXPECT_DOUBLE_EQ(a.medianSeconds,
                     *a.cycles / (measurer.machine().clockGHz * 1e9));
    EXPECT_EQ(a.reps, 1);
    for (const char *key :
         {"\"cycles\"", "\"llc\"", "\"private\"", "\"hit_rate\"", "\"dram\"",
          "\"imbalance\"", "\"pe_busy\"", "\"pe_stall\""})
      EXPECT_NE(a.detailsJson.find(key), std::string::npos) << key;
    EXPECT_EQ(a.detailsJson.find("wall_seconds"), std::string::npos);
    // Deterministic, details included.
    Measurement b = measurer.measure(m, spec, s, options);
    EXPECT_EQ(*b.cycles, *a.cycles);
    EXPECT_EQ(b.detailsJson, a.detailsJson);
    // The knobs matter.
    Schedule other = defaultSpadeSchedule(k);
    other.splitRow = 2048;
    Measurement c = measurer.measure(m, spec, other, options);
    ASSERT_TRUE(c.ok()) << c.reason;
    EXPECT_NE(*c.cycles, *a.cycles);
  }
}

TEST(SpadeMeasurer, RejectsWhatItCannotRun) {
  CsrMatrix m = uniformMatrix(100, 100, 3);
  SpadeMeasurer measurer;
  MeasureOptions options;
  KernelSpec spec;
  Measurement cpu = measurer.measure(
      m, spec, Schedule::csr(TargetKind::CPU, KernelType::SpMM), options);
  EXPECT_EQ(cpu.status, MeasureStatus::Illegal);
  EXPECT_NE(cpu.reason.find("'cpu' schedule"), std::string::npos);

  spec.kernel = KernelType::SpMV;
  Measurement spmv = measurer.measure(
      m, spec, Schedule::csr(TargetKind::SPADE, KernelType::SpMV), options);
  EXPECT_EQ(spmv.status, MeasureStatus::Illegal);

  spec.kernel = KernelType::SpMM;
  Schedule s = defaultSpadeSchedule(KernelType::SpMM);
  spadeKnobs(s).pes = 1000;
  Measurement many = measurer.measure(m, spec, s, options);
  EXPECT_EQ(many.status, MeasureStatus::Illegal);
  EXPECT_NE(many.reason.find("1000 PEs"), std::string::npos) << many.reason;

  KernelSpec half = spec;
  half.elementBits = 16;
  Measurement f16 =
      measurer.measure(m, half, defaultSpadeSchedule(spec.kernel), options);
  EXPECT_EQ(f16.status, MeasureStatus::Illegal);

  SpadeMachineConfig broken;
  broken.mshrs = 0;
  Measurement bad = SpadeMeasurer(broken).measure(
      m, spec, defaultSpadeSchedule(spec.kernel), options);
  EXPECT_EQ(bad.status, MeasureStatus::Error);
}

TEST(SpadeMeasurer, DoublePrecisionMovesMoreBytes) {
  CsrMatrix m = uniformMatrix(4096, 65536, 8);
  SpadeMeasurer measurer;
  MeasureOptions options;
  KernelSpec f32;
  f32.free = 32;
  KernelSpec f64 = f32;
  f64.elementBits = 64;
  Schedule s = defaultSpadeSchedule(KernelType::SpMM);
  Measurement a = measurer.measure(m, f32, s, options);
  Measurement b = measurer.measure(m, f64, s, options);
  ASSERT_TRUE(a.ok() && b.ok()) << a.reason << b.reason;
  EXPECT_GT(*b.cycles, 1.3 * *a.cycles);
}

TEST(SpadeMeasurer, TimesOut) {
  CsrMatrix m = uniformMatrix(20000, 20000, 16);
  MeasureOptions options;
  options.timeoutSeconds = 1e-4;
  options.checkResult = false;
  KernelSpec spec;
  Measurement r = SpadeMeasurer().measure(
      m, spec, defaultSpadeSchedule(KernelType::SpMM), options);
  EXPECT_EQ(r.status, MeasureStatus::Timeout) << r.reason;
}
