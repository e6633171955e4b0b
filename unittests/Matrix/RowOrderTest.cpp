//===- RowOrderTest.cpp - Reverse Cuthill-McKee row order -----------------===//

#include "sptune/Matrix/RowOrder.h"

#include "sptune/Matrix/Generators.h"

#include "TestUtil.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>

using namespace sptune;

namespace {

using test::csrOf;

bool isPermutation(std::vector<int32_t> order, int64_t n) {
  if (static_cast<int64_t>(order.size()) != n)
    return false;
  std::sort(order.begin(), order.end());
  for (int64_t i = 0; i < n; ++i)
    if (order[i] != i)
      return false;
  return true;
}

/// The largest |position(r) - position(c)| over m's entries under `order`.
int64_t bandwidth(const CsrMatrix &m, const std::vector<int32_t> &order) {
  std::vector<int64_t> position(m.rows);
  for (size_t n = 0; n < order.size(); ++n)
    position[order[n]] = static_cast<int64_t>(n);
  int64_t width = 0;
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t p = m.rowPtr[r]; p < m.rowPtr[r + 1]; ++p)
      width = std::max(width, std::abs(position[r] - position[m.colIdx[p]]));
  return width;
}

TEST(RowOrder, ScrambledPathBecomesBanded) {
  // The path 3 - 0 - 4 - 1 - 2 (symmetric, with a diagonal): numbered as it
  // is, entries lie up to 4 apart; any breadth-first order of a path is the
  // path itself, so the order puts neighbours next to each other.
  CsrMatrix m = csrOf(5, 5,
                      {{3, 0},
                       {0, 3},
                       {0, 4},
                       {4, 0},
                       {4, 1},
                       {1, 4},
                       {1, 2},
                       {2, 1},
                       {0, 0},
                       {1, 1},
                       {2, 2},
                       {3, 3},
                       {4, 4}});
  ASSERT_EQ(whyNoReverseCuthillMcKee(m), "");
  EXPECT_EQ(bandwidth(m, {0, 1, 2, 3, 4}), 4);
  std::vector<int32_t> order = reverseCuthillMcKee(m);
  ASSERT_TRUE(isPermutation(order, 5));
  EXPECT_EQ(bandwidth(m, order), 1);
  // The walk starts at the lowest-degree vertex of lowest number (2, an
  // end), so reversed it ends there.
  EXPECT_EQ(order, (std::vector<int32_t>{3, 0, 4, 1, 2}));
}

TEST(RowOrder, OneSidedEntriesAreSymmetrized) {
  // Only (i, j) with i < j stored, as an upper triangle: the same graph.
  CsrMatrix upper = csrOf(5, 5, {{0, 3}, {0, 4}, {1, 4}, {1, 2}});
  EXPECT_EQ(reverseCuthillMcKee(upper), (std::vector<int32_t>{3, 0, 4, 1, 2}));
}

TEST(RowOrder, ComponentsAndIsolatedRows) {
  // Two components {0, 2} and {1, 3, 4}, and row 5 with no entries.
  CsrMatrix m = csrOf(6, 6, {{0, 2}, {1, 3}, {3, 4}});
  std::vector<int32_t> order = reverseCuthillMcKee(m);
  ASSERT_TRUE(isPermutation(order, 6));
  // Each component's rows are consecutive.
  auto at = [&](int32_t r) {
    return std::find(order.begin(), order.end(), r) - order.begin();
  };
  EXPECT_EQ(std::abs(at(0) - at(2)), 1);
  std::vector<long> big = {at(1), at(3), at(4)};
  std::sort(big.begin(), big.end());
  EXPECT_EQ(big[2] - big[0], 2);
}

TEST(RowOrder, DeterministicPermutationOfGeneratedMatrices) {
  for (const char *text :
       {"gen:rmat:rows=4096,cols=4096,nnz=30000,seed=5",
        "gen:uniform:rows=2000,cols=2000,nnz=12000,seed=2"}) {
    llvm::Expected<GenSpec> spec = parseGenSpec(text);
    ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
    llvm::Expected<CooMatrix> coo = generate(*spec);
    ASSERT_TRUE(static_cast<bool>(coo)) << llvm::toString(coo.takeError());
    CsrMatrix m = CsrMatrix::fromCoo(std::move(*coo));
    ASSERT_EQ(whyNoReverseCuthillMcKee(m), "") << text;
    std::vector<int32_t> order = reverseCuthillMcKee(m);
    EXPECT_TRUE(isPermutation(order, m.rows)) << text;
    EXPECT_EQ(order, reverseCuthillMcKee(m)) << text;
  }
}

TEST(RowOrder, EmptyAndRectangular) {
  CsrMatrix empty = csrOf(0, 0, {});
  EXPECT_EQ(whyNoReverseCuthillMcKee(empty), "");
  EXPECT_TRUE(reverseCuthillMcKee(empty).empty());
  CsrMatrix wide = csrOf(2, 3, {{0, 2}});
  EXPECT_NE(whyNoReverseCuthillMcKee(wide).find("not square"),
            std::string::npos);
}

} // namespace
