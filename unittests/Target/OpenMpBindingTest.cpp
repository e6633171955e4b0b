//===- OpenMpBindingTest.cpp - libgomp's binding of the initial thread ----===//

#include "cpu/OpenMpBinding.h"

#include <gtest/gtest.h>

using sptune::cpu::OpenMpBindingState;
using sptune::cpu::openMpBindingWarning;

namespace {

OpenMpBindingState narrowed() {
  OpenMpBindingState s;
  s.bindingRequested = true;
  s.gompLoaded = true;
  s.allowedCpus = 1;
  s.onlineCpus = 2;
  return s;
}

TEST(OpenMpBindingTest, WarnsWhenLibgompNarrowedTheThreads) {
  std::string w = openMpBindingWarning(narrowed());
  EXPECT_NE(w.find("1 of the 2 online CPUs"), std::string::npos) << w;
  EXPECT_NE(w.find("Unset OMP_PROC_BIND and OMP_PLACES"), std::string::npos);
}

TEST(OpenMpBindingTest, SilentWhenAnyConditionIsMissing) {
  OpenMpBindingState s = narrowed();
  s.bindingRequested = false; // nothing asked libgomp to bind
  EXPECT_EQ(openMpBindingWarning(s), "");
  s = narrowed();
  s.gompLoaded = false; // libomp alone binds as asked
  EXPECT_EQ(openMpBindingWarning(s), "");
  s = narrowed();
  s.allowedCpus = 2; // every CPU still allowed
  EXPECT_EQ(openMpBindingWarning(s), "");
  s = narrowed();
  s.allowedCpus = 0; // the mask could not be read
  EXPECT_EQ(openMpBindingWarning(s), "");
}

TEST(OpenMpBindingTest, ReadsThisProcess) {
  OpenMpBindingState s = sptune::cpu::currentOpenMpBindingState();
  EXPECT_GE(s.onlineCpus, 1);
  EXPECT_GE(s.allowedCpus, 1);
  EXPECT_LE(s.allowedCpus, s.onlineCpus);
}

} // namespace
