//===- RegisterTargets.cpp - The built-in targets, for every unit test ----===//
//
// A schedule's knob block is printed, parsed and checked by its target, and
// the cost model finds each target's knob encoding in the target registry:
// like every program that uses schedules, each test binary registers the
// built-in targets first (sptune_add_unittest links this file in).
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
