//===- MachineDescriptorTest.cpp - The machine descriptor -----------------===//

#include "sptune/Machine/MachineDescriptor.h"

#include "gtest/gtest.h"

using namespace sptune;

TEST(MachineDescriptor, ParsesSysfsCacheSizes) {
  EXPECT_EQ(parseCacheSize("32K"), 32u * 1024);
  EXPECT_EQ(parseCacheSize("1024K\n"), 1024u * 1024);
  EXPECT_EQ(parseCacheSize("32M"), 32u * 1024 * 1024);
  EXPECT_EQ(parseCacheSize("1G"), 1024ull * 1024 * 1024);
  EXPECT_EQ(parseCacheSize("512"), 512u);
  EXPECT_EQ(parseCacheSize(""), std::nullopt);
  EXPECT_EQ(parseCacheSize("K"), std::nullopt);
  EXPECT_EQ(parseCacheSize("-4K"), std::nullopt);
  EXPECT_EQ(parseCacheSize("12.5M"), std::nullopt);
  EXPECT_EQ(parseCacheSize("9999999999999K"), std::nullopt);
}

TEST(MachineDescriptor, JsonRoundTrip) {
  MachineDescriptor m;
  m.cpu = "AMD EPYC";
  m.cores = 2;
  m.simdBits = 512;
  m.l1dBytes = 49152;
  m.l2Bytes = 1 << 20;
  m.llcBytes = 32ull << 20;
  m.bandwidthGBs = 21.5;
  m.forkJoinMicros = 1.75;
  llvm::Expected<MachineDescriptor> back = machineFromJson(toJson(m));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->cpu, m.cpu);
  EXPECT_EQ(back->cores, 2u);
  EXPECT_EQ(back->simdBits, 512u);
  EXPECT_EQ(back->l1dBytes, 49152u);
  EXPECT_EQ(back->l2Bytes, 1u << 20);
  EXPECT_EQ(back->llcBytes, 32ull << 20);
  EXPECT_DOUBLE_EQ(back->bandwidthGBs, 21.5);
  EXPECT_DOUBLE_EQ(back->forkJoinMicros, 1.75);
  EXPECT_EQ(summary(*back), "2 cores, 512-bit SIMD, L1d 48 KiB, L2 1 MiB, "
                            "LLC 32 MiB, 21.5 GB/s, fork-join 1.8 us");
}

TEST(MachineDescriptor, RecordsBeforeTheDescriptorReadAsUnknown) {
  // What records carried before: host, cpu and cores only.
  llvm::json::Object old{{"host", "vm"}, {"cpu", "Intel(R) Xeon(R)"},
                         {"cores", 2}};
  llvm::Expected<MachineDescriptor> m = machineFromJson(old);
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->cpu, "Intel(R) Xeon(R)");
  EXPECT_EQ(m->cores, 2u);
  EXPECT_EQ(m->simdBits, 0u);
  EXPECT_EQ(m->llcBytes, 0u);
  EXPECT_EQ(m->bandwidthGBs, 0.0);
  EXPECT_EQ(m->forkJoinMicros, 0.0);
}

TEST(MachineDescriptor, BadValuesAreErrors) {
  auto why = [](llvm::json::Object o) {
    llvm::Expected<MachineDescriptor> m = machineFromJson(o);
    if (m)
      return std::string();
    return llvm::toString(m.takeError());
  };
  EXPECT_EQ(why(llvm::json::Object{{"cores", -1}}),
            "machine: 'cores' is not a non-negative integer");
  EXPECT_EQ(why(llvm::json::Object{{"llc_bytes", "32M"}}),
            "machine: 'llc_bytes' is not a non-negative integer");
  EXPECT_EQ(why(llvm::json::Object{{"cpu", 3}}), "machine: 'cpu' is not a string");
  EXPECT_EQ(why(llvm::json::Object{{"bandwidth_gbs", -2.0}}),
            "machine: 'bandwidth_gbs' is not a non-negative number");
  EXPECT_EQ(why(llvm::json::Object{{"fork_join_us", "fast"}}),
            "machine: 'fork_join_us' is not a non-negative number");
}

TEST(MachineDescriptor, ProbesThisMachine) {
  MachineDescriptor m = probeMachine();
  EXPECT_GE(m.cores, 1u);
  EXPECT_EQ(m.bandwidthGBs, 0.0); // probing measures nothing
  EXPECT_EQ(m.forkJoinMicros, 0.0);
#if defined(__x86_64__)
  EXPECT_GE(m.simdBits, 128u); // every x86-64 CPU has SSE2
#endif
  if (m.llcBytes) {
    EXPECT_GE(m.llcBytes, m.l1dBytes);
  }
}

TEST(MachineDescriptor, MeasuresATriad) {
  llvm::Expected<double> gbs = measureTriadBandwidth(2, 4 << 20, 2);
  ASSERT_TRUE(static_cast<bool>(gbs)) << llvm::toString(gbs.takeError());
  EXPECT_GT(*gbs, 0.0);
  llvm::Expected<double> tiny = measureTriadBandwidth(4, 8);
  ASSERT_FALSE(static_cast<bool>(tiny));
  EXPECT_EQ(llvm::toString(tiny.takeError()),
            "measureTriadBandwidth: arrays of 8 bytes are too small");
}

TEST(MachineDescriptor, MeasuresAForkJoin) {
  // One and two threads: a region costs something, and less than a
  // millisecond on any machine these tests run on.
  for (unsigned threads : {1u, 2u}) {
    llvm::Expected<double> us = measureForkJoinMicros(threads, 200);
    ASSERT_TRUE(static_cast<bool>(us)) << llvm::toString(us.takeError());
    EXPECT_GT(*us, 0.0);
    EXPECT_LT(*us, 1000.0);
  }
}
