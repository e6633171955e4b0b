//===- ReferenceTest.cpp - Checking results against the reference ---------===//

#include "sptune/Matrix/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace sptune;

namespace {

TEST(Reference, MismatchWithinTheBound) {
  ReferenceResult ref{{1.0, 2.0}, {1.0, 1.0}};
  double close[] = {1.0 + 1e-7, 2.0};
  EXPECT_EQ(firstMismatch(ref, close, 1e-6), -1);
  double off[] = {1.0, 2.1};
  EXPECT_EQ(firstMismatch(ref, off, 1e-6), 1);
}

/// A value beyond float range is read as an infinity: a result of equal
/// infinities (or NaN where the reference is NaN) matches; |inf - inf| is
/// NaN, which made every such measurement a wrong result (issue 35).
TEST(Reference, EqualInfinitiesMatch) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::numeric_limits<double>::quiet_NaN();
  ReferenceResult ref{{-inf, inf, nan, 3.0}, {inf, inf, nan, 1.0}};
  double same[] = {-inf, inf, nan, 3.0};
  EXPECT_EQ(firstMismatch(ref, same, 1e-6), -1);
  double flipped[] = {inf, inf, nan, 3.0};
  EXPECT_EQ(firstMismatch(ref, flipped, 1e-6), 0);
  double finite[] = {-inf, inf, 1.0, 3.0};
  EXPECT_EQ(firstMismatch(ref, finite, 1e-6), 2);
  double nanForFinite[] = {-inf, inf, nan, nan};
  EXPECT_EQ(firstMismatch(ref, nanForFinite, 1e-6), 3);
}

/// An f64 kernel reads the stored values as they are; its reference too
/// (issue 35: the references read every width at float precision, so an
/// f64 kernel of a matrix with 1e39 in it was checked against infinities).
TEST(Reference, ValuesAreReadAtTheKernelsWidth) {
  CooMatrix coo;
  coo.rows = coo.cols = 2;
  coo.add(0, 0, 1e39);
  coo.add(1, 1, 0.1);
  CsrMatrix m = CsrMatrix::fromCoo(coo);
  std::vector<float> x = {2.0f, 4.0f};
  ReferenceResult f32 = referenceSpMV(m, x, 32);
  EXPECT_TRUE(std::isinf(f32.values[0]));
  EXPECT_EQ(f32.values[1], static_cast<double>(0.1f) * 4.0);
  ReferenceResult f64 = referenceSpMV(m, x, 64);
  EXPECT_EQ(f64.values[0], 2e39);
  EXPECT_EQ(f64.values[1], 0.1 * 4.0);
  EXPECT_EQ(referenceSpMM(m, x, 1, 64).values, f64.values);
  std::vector<float> a = {1.0f, 1.0f}, b = {1.0f, 1.0f};
  EXPECT_TRUE(std::isinf(referenceSDDMMChecksum(m, a, b, 1, 32).values[0]));
  EXPECT_TRUE(std::isfinite(referenceSDDMMChecksum(m, a, b, 1, 64).values[0]));
  EXPECT_EQ(kValueBits<float>, 32);
  EXPECT_EQ(kValueBits<double>, 64);
}

/// The SpGEMM checksum is sum_ij (A B)_ij w(i, j) over the product's entries,
/// computed here by hand: a cancelling sum is an entry that adds nothing,
/// and its terms still widen the bound.
TEST(Reference, SpgemmChecksumOfAHandProduct) {
  // A = [[1, 2], [0, 3]], B = [[4, 0], [-2, 5]] as 2 x 2 CSR:
  // A B = [[1*4 + 2*-2, 2*5], [3*-2, 3*5]] = [[0, 10], [-6, 15]].
  CooMatrix a, b;
  a.rows = a.cols = b.rows = b.cols = 2;
  a.add(0, 0, 1);
  a.add(0, 1, 2);
  a.add(1, 1, 3);
  b.add(0, 0, 4);
  b.add(1, 0, -2);
  b.add(1, 1, 5);
  CsrMatrix ca = CsrMatrix::fromCoo(a), cb = CsrMatrix::fromCoo(b);
  ReferenceResult r = referenceSpGEMMChecksum(ca, cb, 64);
  double expected = 0 * checksumWeight(0, 0) + 10 * checksumWeight(0, 1) -
                    6 * checksumWeight(1, 0) + 15 * checksumWeight(1, 1);
  ASSERT_EQ(r.values.size(), 3u);
  EXPECT_DOUBLE_EQ(r.values[0], expected);
  // |4| + |-4| over 2 products at (0, 0), widened by (count + 2).
  EXPECT_GE(r.bounds[0], 8 * checksumWeight(0, 0) * 4);
  // Four entries (the cancelled sum at (0, 0) included), all in order,
  // counted exactly: one entry more, or one out of order, is a mismatch.
  EXPECT_EQ(r.values[1], 4.0);
  EXPECT_EQ(r.values[2], 4.0);
  EXPECT_EQ(r.bounds[1], 0.0);
  double duplicated[] = {expected, 5.0, 4.0};
  EXPECT_EQ(firstMismatch(r, duplicated, 1e-6), 1);
  double unsorted[] = {expected, 4.0, 3.0};
  EXPECT_EQ(firstMismatch(r, unsorted, 1e-6), 2);
  double right[] = {expected, 4.0, 4.0};
  EXPECT_EQ(firstMismatch(r, right, 1e-6), -1);
  // A different product gives a different checksum.
  EXPECT_NE(referenceSpGEMMChecksum(ca, ca, 64).values[0], expected);
}

} // namespace
