//===- FeaturizerTest.cpp - Matrix features -------------------------------===//

#include "sptune/CostModel/MatrixFeatures.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace sptune;

namespace {
CsrMatrix fromEntries(int64_t rows, int64_t cols,
                      const std::vector<std::pair<int, int>> &entries,
                      double value = 1.0) {
  CooMatrix coo;
  coo.rows = rows;
  coo.cols = cols;
  for (auto [r, c] : entries)
    coo.add(r, c, value);
  return CsrMatrix::fromCoo(coo);
}

float pixel(const MatrixFeatures &f, int scale, int y, int x) {
  return f.images[scale][y * MatrixFeatures::kImageSizes[scale] + x];
}

int nonzeroPixels(const std::vector<float> &img) {
  int n = 0;
  for (float v : img)
    n += v != 0;
  return n;
}

size_t scalarIndex(const std::string &name) {
  const auto &names = scalarFeatureNames();
  return std::find(names.begin(), names.end(), name) - names.begin();
}
} // namespace

TEST(FeaturizerTest, DegreeBinsAreLog2) {
  EXPECT_EQ(degreeBin(0), 0);
  EXPECT_EQ(degreeBin(1), 1);
  EXPECT_EQ(degreeBin(2), 2);
  EXPECT_EQ(degreeBin(3), 2);
  EXPECT_EQ(degreeBin(4), 3);
  EXPECT_EQ(degreeBin(1023), 10);
  EXPECT_EQ(degreeBin(1024), 11);
  EXPECT_EQ(degreeBin(int64_t(1) << 40), MatrixFeatures::kHistBins - 1);
}

TEST(FeaturizerTest, IdentityByHand) {
  MatrixFeatures f =
      featurize(fromEntries(4, 4, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
  ASSERT_TRUE(f.isWellFormed());
  // Row r of 4 lands in image row r * S / 4.
  for (int s = 0; s < 3; ++s) {
    int side = MatrixFeatures::kImageSizes[s];
    EXPECT_EQ(nonzeroPixels(f.images[s]), 4) << "scale " << side;
    for (int r = 0; r < 4; ++r)
      EXPECT_FLOAT_EQ(pixel(f, s, r * side / 4, r * side / 4), 1.0f);
  }
  EXPECT_FLOAT_EQ(f.rowHist[1], 1.0f);
  EXPECT_FLOAT_EQ(f.colHist[1], 1.0f);
  EXPECT_FLOAT_EQ(f.scalars[scalarIndex("log_nnz")], std::log1p(4.0f));
  EXPECT_NEAR(f.scalars[scalarIndex("log10_density")], std::log10(0.25), 1e-6);
  EXPECT_FLOAT_EQ(f.scalars[scalarIndex("rel_bandwidth")], 0.0f);
  EXPECT_FLOAT_EQ(f.scalars[scalarIndex("empty_row_frac")], 0.0f);
}

TEST(FeaturizerTest, CountsAreLogScaledAndPooled) {
  // Four entries in the top-left 2x2 corner and one in the far corner of a
  // 256 x 256 matrix: the corner cell counts 4 at every scale.
  MatrixFeatures f = featurize(
      fromEntries(256, 256, {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {255, 255}}));
  float far = std::log(2.0f) / std::log(5.0f);
  for (int s = 0; s < 3; ++s) {
    int last = MatrixFeatures::kImageSizes[s] - 1;
    EXPECT_FLOAT_EQ(pixel(f, s, 0, 0), 1.0f);
    EXPECT_NEAR(pixel(f, s, last, last), far, 1e-6);
    EXPECT_EQ(nonzeroPixels(f.images[s]), 2);
  }
  EXPECT_NEAR(f.rowHist[0], 253.0 / 256, 1e-6);
  EXPECT_NEAR(f.rowHist[1], 1.0 / 256, 1e-6);
  EXPECT_NEAR(f.rowHist[2], 2.0 / 256, 1e-6);
  EXPECT_NEAR(f.scalars[scalarIndex("empty_row_frac")], 253.0 / 256, 1e-6);
}

TEST(FeaturizerTest, CoarseImagesArePoolingsOfTheFinest) {
  // Uneven shapes exercise the cell mapping; the coarse cells must count
  // exactly the fine cells they cover (checked through nonzero patterns).
  std::vector<std::pair<int, int>> entries;
  for (int r = 0; r < 1000; r += 7)
    entries.push_back({r, (r * 13) % 333});
  MatrixFeatures f = featurize(fromEntries(1000, 333, entries));
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      bool fine = pixel(f, 2, 2 * y, 2 * x) + pixel(f, 2, 2 * y + 1, 2 * x) +
                      pixel(f, 2, 2 * y, 2 * x + 1) +
                      pixel(f, 2, 2 * y + 1, 2 * x + 1) >
                  0;
      EXPECT_EQ(fine, pixel(f, 1, y, x) > 0) << y << "," << x;
    }
}

TEST(FeaturizerTest, IgnoresValues) {
  std::vector<std::pair<int, int>> entries = {{0, 3}, {2, 1}, {5, 5}, {7, 0}};
  MatrixFeatures a = featurize(fromEntries(8, 8, entries, 1.0));
  MatrixFeatures b = featurize(fromEntries(8, 8, entries, -42.5));
  EXPECT_EQ(a.images, b.images);
  EXPECT_EQ(a.vector(), b.vector());
}

TEST(FeaturizerTest, TransposeTransposesImagesAndSwapsHistograms) {
  std::vector<std::pair<int, int>> entries;
  for (int r = 0; r < 300; ++r)
    for (int c = 0; c <= r % 5; ++c)
      entries.push_back({r, (r * 31 + c * 97) % 300});
  CsrMatrix m = fromEntries(300, 300, entries);
  MatrixFeatures f = featurize(m);
  MatrixFeatures t = featurize(m.transposed());
  for (int s = 0; s < 3; ++s) {
    int side = MatrixFeatures::kImageSizes[s];
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x)
        ASSERT_FLOAT_EQ(pixel(f, s, y, x), pixel(t, s, x, y));
  }
  EXPECT_EQ(f.rowHist, t.colHist);
  EXPECT_EQ(f.colHist, t.rowHist);
}

TEST(FeaturizerTest, SensitiveToStructure) {
  // Diagonal vs anti-diagonal: same histograms and nnz, different images.
  std::vector<std::pair<int, int>> diag, anti;
  for (int r = 0; r < 512; ++r) {
    diag.push_back({r, r});
    anti.push_back({r, 511 - r});
  }
  MatrixFeatures d = featurize(fromEntries(512, 512, diag));
  MatrixFeatures a = featurize(fromEntries(512, 512, anti));
  EXPECT_EQ(d.rowHist, a.rowHist);
  EXPECT_NE(d.images[2], a.images[2]);
  EXPECT_NE(d.scalars[scalarIndex("rel_bandwidth")],
            a.scalars[scalarIndex("rel_bandwidth")]);
  // One more entry in a row changes its degree bin.
  diag.push_back({0, 5});
  MatrixFeatures d2 = featurize(fromEntries(512, 512, diag));
  EXPECT_NE(d.rowHist, d2.rowHist);
}

TEST(FeaturizerTest, EmptyAndDegenerateMatricesAreFinite) {
  for (CsrMatrix m : {fromEntries(0, 0, {}), fromEntries(10, 3, {}),
                      fromEntries(1, 100000, {{0, 99999}})}) {
    MatrixFeatures f = featurize(m);
    ASSERT_TRUE(f.isWellFormed());
    for (float v : f.vector())
      EXPECT_TRUE(std::isfinite(v));
    for (const auto &img : f.images)
      for (float v : img)
        EXPECT_TRUE(std::isfinite(v) && v >= 0 && v <= 1);
  }
  EXPECT_EQ(static_cast<int>(scalarFeatureNames().size()),
            MatrixFeatures::kNumScalars);
}

TEST(FeaturizerTest, TensorsAreSeenThroughTheirFibers) {
  // Slice 0: fibers (0,0) of 3 entries and (0,2) of 1; slice 3: (3,1) of 2.
  CooTensor t;
  t.dims = {4, 3, 5};
  for (auto [i, j, k] : std::vector<std::array<int, 3>>{
           {0, 0, 0}, {0, 0, 1}, {0, 0, 4}, {0, 2, 4}, {3, 1, 0}, {3, 1, 2}})
    t.add(i, j, k, 1.0);
  MatrixFeatures f = featurizeTensor(t);
  ASSERT_TRUE(f.isWellFormed());
  MatrixFeatures fibers = featurize(fiberMatrix(t));
  // Images, fibers per slice and the fiber matrix's shape are the fiber
  // matrix's.
  EXPECT_EQ(f.images, fibers.images);
  EXPECT_EQ(f.rowHist, fibers.rowHist);
  EXPECT_FLOAT_EQ(f.scalars[scalarIndex("log_rows")], std::log1p(4.0f));
  EXPECT_FLOAT_EQ(f.scalars[scalarIndex("log_nnz")], std::log1p(3.0f));
  // Entries per fiber (3, 1, 2) where a matrix has column degrees.
  EXPECT_FLOAT_EQ(f.colHist[degreeBin(1)], 1.0f / 3);
  EXPECT_FLOAT_EQ(f.colHist[degreeBin(2)], 2.0f / 3);
  EXPECT_EQ(degreeBin(3), degreeBin(2));
  // The tensor's own scalars where a matrix has its diagonal ones.
  const std::vector<std::string> &names = tensorScalarFeatureNames();
  ASSERT_EQ(names.size(), scalarFeatureNames().size());
  auto at = [&](const std::string &name) {
    return f
        .scalars[std::find(names.begin(), names.end(), name) - names.begin()];
  };
  EXPECT_FLOAT_EQ(at("log_tensor_nnz"), std::log1p(6.0f));
  EXPECT_FLOAT_EQ(at("log_tensor_dim2"), std::log1p(5.0f));
  EXPECT_FLOAT_EQ(at("log_typical_fiber_length"), std::log1p(14.0f / 6));
  EXPECT_EQ(std::count(names.begin(), names.end(), "log_bandwidth"), 0);
  // featurizeOperand dispatches on the operand.
  MeasuredOperand operand;
  operand.matrix = fiberMatrix(t);
  operand.tensor = t;
  EXPECT_EQ(featurizeOperand(operand).colHist, f.colHist);
  operand.tensor.reset();
  EXPECT_EQ(featurizeOperand(operand).colHist, fibers.colHist);
  // An empty tensor is finite.
  CooTensor empty;
  empty.dims = {3, 3, 3};
  MatrixFeatures e = featurizeTensor(empty);
  ASSERT_TRUE(e.isWellFormed());
  for (float x : e.vector())
    EXPECT_TRUE(std::isfinite(x));
}
