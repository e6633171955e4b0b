//===- MemoryBudgetTest.cpp - What a measurement may allocate -------------===//

#include "sptune/Support/MemoryBudget.h"
#include "sptune/Target/Measurer.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace sptune;

namespace {

/// Sets SPTUNE_MEMORY_BUDGET for one scope.
struct BudgetEnv {
  explicit BudgetEnv(const char *value) {
    if (value)
      ::setenv("SPTUNE_MEMORY_BUDGET", value, 1);
    else
      ::unsetenv("SPTUNE_MEMORY_BUDGET");
  }
  ~BudgetEnv() { ::unsetenv("SPTUNE_MEMORY_BUDGET"); }
};

TEST(MemoryBudget, BytesOfEachKernel) {
  // SpMM: B (cols x N) and C with its reference (rows x N).
  EXPECT_DOUBLE_EQ(measurementBytes({KernelType::SpMM, 64, 32}, 100, 50, 7),
                   (50 + 2 * 100) * 64 * 4.0);
  // SDDMM: A (rows x K), B (K x cols) and the sampled output twice.
  EXPECT_DOUBLE_EQ(measurementBytes({KernelType::SDDMM, 16, 64}, 100, 50, 7),
                   ((100 + 50) * 16 + 2 * 7) * 8.0);
  // SpMV: x, y and its reference; the free size does not count.
  EXPECT_DOUBLE_EQ(measurementBytes({KernelType::SpMV, 999, 32}, 100, 50, 7),
                   (50 + 2 * 100) * 4.0);
  // No overflow at the largest sizes the tools take.
  EXPECT_GT(measurementBytes({KernelType::SpMM, 65536, 64}, INT32_MAX,
                             INT32_MAX, 1),
            1e15);
}

TEST(MemoryBudget, EnvironmentAndDefault) {
  {
    BudgetEnv env("2M");
    std::string source;
    EXPECT_DOUBLE_EQ(memoryBudgetBytes(&source), 2.0 * 1024 * 1024);
    EXPECT_EQ(source, "SPTUNE_MEMORY_BUDGET");
    EXPECT_EQ(whyOverMemoryBudget(1e6, "x"), "");
    EXPECT_EQ(whyOverMemoryBudget(3e6, "the operands"),
              "the operands need 3.0 MB, more than the memory budget of "
              "2.1 MB (SPTUNE_MEMORY_BUDGET)");
  }
  for (const char *bad : {"", "lots", "-5", "nan", "1X", "0"}) {
    BudgetEnv env(bad);
    std::string source;
    double budget = memoryBudgetBytes(&source);
    EXPECT_GT(budget, 0) << bad;
    EXPECT_NE(source.find("is not a size"), std::string::npos) << bad;
  }
  BudgetEnv none(nullptr);
  if (physicalMemoryBytes() > 0)
    EXPECT_DOUBLE_EQ(memoryBudgetBytes(), physicalMemoryBytes() / 2);
  EXPECT_EQ(formatBytes(512), "512 B");
  EXPECT_EQ(formatBytes(78.6e9), "78.6 GB");
}

} // namespace
