//===- FeatureTesting.h - Features of a spec in tests -----------*- C++ -*-===//
//
// Part of sptune's unit tests: the cost model's features of a matrix given
// as a source (a `gen:` spec or a file), failing the test when it does not
// load.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_FEATURETESTING_H
#define SPTUNE_UNITTESTS_SUPPORT_FEATURETESTING_H

#include "Support/ErrorTesting.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Matrix/MatrixSource.h"

#include "gtest/gtest.h"

#include <string>

namespace sptune::test {

inline MatrixFeatures featuresOf(const std::string &source) {
  CooMatrix coo;
  MatrixInfo info;
  EXPECT_TRUE(succeeded(loadMatrix(source, coo, info))) << source;
  return featurize(CsrMatrix::fromCoo(coo));
}

} // namespace sptune::test

#endif // SPTUNE_UNITTESTS_SUPPORT_FEATURETESTING_H
