//===- RegisterTargets.cpp - Targets for the cost model's tests -----------===//
//
// The cost model finds each target's knob encoding in the target registry;
// like every program that uses the model, the tests register the built-in
// targets first.
//
//===----------------------------------------------------------------------===//

#include "sptune/InitAllTargets.h"

#include "gtest/gtest.h"

namespace {
class RegisterTargets : public ::testing::Environment {
public:
  void SetUp() override { sptune::registerAllTargets(); }
};
const ::testing::Environment *const registered =
    ::testing::AddGlobalTestEnvironment(new RegisterTargets);
} // namespace
