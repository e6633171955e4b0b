//===- TensorStatsTest.cpp - Structural statistics of a 3-D tensor --------===//

#include "sptune/Matrix/TensorStats.h"

#include "gtest/gtest.h"

using namespace sptune;

namespace {

TEST(TensorStatsTest, CountsSlicesAndFibers) {
  CooTensor t;
  t.dims = {4, 3, 5};
  // Slice 0: fibers (0,0) with 3 entries, (0,2) with 1; slice 3: (3,1) with 2.
  t.add(0, 0, 0, 1);
  t.add(0, 0, 1, 1);
  t.add(0, 0, 4, 1);
  t.add(0, 2, 4, 1);
  t.add(3, 1, 0, 1);
  t.add(3, 1, 2, 1);
  ASSERT_TRUE(t.isCanonical());
  TensorStats s = computeTensorStats(t);
  EXPECT_EQ(s.nnz, 6);
  EXPECT_DOUBLE_EQ(s.density, 6.0 / 60);
  EXPECT_EQ(s.slices, 2);
  EXPECT_EQ(s.fibers, 3);
  EXPECT_DOUBLE_EQ(s.entriesPerSlice.mean, 3);
  EXPECT_DOUBLE_EQ(s.entriesPerSlice.stddev, 1);
  EXPECT_EQ(s.entriesPerSlice.max, 4);
  EXPECT_DOUBLE_EQ(s.fibersPerSlice.mean, 1.5);
  EXPECT_EQ(s.fibersPerSlice.max, 2);
  EXPECT_DOUBLE_EQ(s.entriesPerFiber.mean, 2);
  EXPECT_EQ(s.entriesPerFiber.max, 3);
  // Fibers of 3, 1 and 2 entries: (9 + 1 + 4) / 6.
  EXPECT_DOUBLE_EQ(s.typicalFiberLength, 14.0 / 6);
  EXPECT_EQ(s.distinctJ, 3);
  EXPECT_EQ(s.distinctK, 4);
  std::string json = s.toJson();
  EXPECT_NE(json.find("\"fibers\":3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"dims\":[4,3,5]"), std::string::npos) << json;
  std::string line = tensorStatsJsonLine(s, "t", "/x/t.tns");
  EXPECT_EQ(line.rfind("{\"id\":\"t\",\"source\":\"/x/t.tns\",", 0), 0u)
      << line;
  EXPECT_EQ(line.back(), '\n');
  EXPECT_NE(tensorStatsTableRow(s, "t").find("4x3x5"), std::string::npos);
}

TEST(TensorStatsTest, EmptyTensor) {
  CooTensor t;
  t.dims = {2, 2, 2};
  TensorStats s = computeTensorStats(t);
  EXPECT_EQ(s.slices, 0);
  EXPECT_EQ(s.fibers, 0);
  EXPECT_EQ(s.entriesPerFiber.max, 0);
  EXPECT_EQ(s.distinctK, 0);
  EXPECT_EQ(s.typicalFiberLength, 0);
}

} // namespace
