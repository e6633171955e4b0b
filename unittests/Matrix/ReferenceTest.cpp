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

} // namespace
