//===- ConfigurationMapperTest.cpp - Schedules into model features --------===//

#include "sptune/CostModel/ConfigurationMapper.h"
#include "spade/SpadeKnobs.h"
#include "nvvm/NvvmKnobs.h"
#include "cpu/CpuKnobs.h"
#include "sptune/CostModel/FeatureSpec.h"

#include "Support/SpgemmTesting.h"

#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Target.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace sptune;

namespace {
/// The layout of a new model: cpu, nvvm, spade.
const FeatureLayout &layout() {
  static const FeatureLayout l = FeatureLayout::ofRegisteredTargets();
  return l;
}

MappedSchedule mapSchedule(const Schedule &s, int64_t free) {
  return layout().map(s, free);
}

/// Legal canonical schedules of all three targets and kernels, with varied
/// formats, orders, widths, tiles and knobs.
std::vector<Schedule> variedSchedules() {
  std::vector<Schedule> out;
  for (TargetKind t : layout().targets())
    for (KernelType k :
         {KernelType::SpMM, KernelType::SDDMM, KernelType::SpMV}) {
      std::vector<Schedule> bases = {
          Schedule::csr(t, k),       Schedule::csc(t, k),
          Schedule::dcsr(t, k),      Schedule::coo(t, k),
          Schedule::bsr(t, k, 4, 4), Schedule::bsr(t, k, 8, 2)};
      std::vector<Schedule> knobs = sampleKnobSettings(t, k, 40, 3);
      for (size_t b = 0; b < bases.size(); ++b)
        for (size_t n = 0; n < knobs.size(); ++n) {
          Schedule s = bases[b];
          s.knobBlock = knobs[n].knobBlock;
          s.posWidth = n % 2 ? 32 : 64;
          if (s.freeRole() && n % 3 == 0)
            s.tile = 8;
          if (t == TargetKind::SPADE)
            s.splitRow = int64_t(1) << (n % 6);
          s = canonicalize(s);
          if (isLegal(s))
            out.push_back(s);
        }
    }
  return out;
}

std::vector<float> flat(const MappedSchedule &m) {
  std::vector<float> v = m.common;
  v.push_back(-1.0f); // separator: knob vectors of different lengths
  v.insert(v.end(), m.knobs.begin(), m.knobs.end());
  return v;
}
} // namespace

TEST(ConfigurationMapperTest, SizesMatchNames) {
  const std::vector<std::string> &names = layout().commonNames();
  EXPECT_EQ(layout().commonSize(), static_cast<int>(names.size()));
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  for (TargetKind t : layout().targets())
    EXPECT_EQ(knobFeatureSize(t), static_cast<int>(knobFeatureNames(t).size()));
}

TEST(ConfigurationMapperTest, EveryTargetSharesTheCommonWidth) {
  for (const Schedule &s : variedSchedules()) {
    MappedSchedule m = mapSchedule(s, 64);
    EXPECT_EQ(static_cast<int>(m.common.size()), layout().commonSize());
    EXPECT_EQ(static_cast<int>(m.knobs.size()), knobFeatureSize(s.target));
  }
}

TEST(ConfigurationMapperTest, DistinctSchedulesMapToDistinctVectors) {
  std::vector<Schedule> all = variedSchedules();
  std::map<std::vector<float>, std::string> seen;
  std::set<std::string> distinct;
  for (const Schedule &s : all) {
    if (!distinct.insert(s.str()).second)
      continue;
    auto [it, inserted] = seen.emplace(flat(mapSchedule(s, 64)), s.str());
    EXPECT_TRUE(inserted) << s.str() << "\ncollides with\n" << it->second;
  }
  EXPECT_GT(distinct.size(), 1000u);
}

TEST(ConfigurationMapperTest, EquivalentSchedulesMapToEqualVectors) {
  Schedule a = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  Schedule b = a;
  // No effect without parallelism, or without vectorization:
  // canonicalization resets them.
  cpuKnobs(b).threads = 8;
  cpuKnobs(b).omp = OmpScheduleKind::Dynamic;
  cpuKnobs(b).chunk = 16;
  cpuKnobs(b).simdIndex32 = true;
  ASSERT_NE(a, b);
  ASSERT_EQ(canonicalize(a), canonicalize(b));
  EXPECT_EQ(flat(mapSchedule(a, 64)), flat(mapSchedule(b, 64)));
  // Another target's knob block (a schedule whose target was reassigned)
  // maps as the CPU's defaults.
  Schedule c = a;
  spadeKnobs(c).bypassDense = true;
  EXPECT_EQ(flat(mapSchedule(a, 64)), flat(mapSchedule(c, 64)));
}

TEST(ConfigurationMapperTest, LoopOrderIsAPermutationMatrix) {
  Schedule s = Schedule::bsr(TargetKind::CPU, KernelType::SpMM, 4, 2);
  MappedSchedule m = mapSchedule(s, 64);
  const auto &names = layout().commonNames();
  for (size_t p = 0; p < s.loopOrder.size(); ++p) {
    std::string name =
        "order_" + s.loopOrder[p].str() + "_" + std::to_string(p);
    auto it = std::find(names.begin(), names.end(), name);
    ASSERT_NE(it, names.end()) << name;
    EXPECT_EQ(m.common[it - names.begin()], 1.0f) << name;
  }
  float ones = 0;
  for (size_t n = 0; n < names.size(); ++n)
    if (names[n].rfind("order_", 0) == 0)
      ones += m.common[n];
  EXPECT_EQ(ones, static_cast<float>(s.loopOrder.size()));
}

TEST(ConfigurationMapperTest, FreeSizeAndOrderAreSeen) {
  Schedule s = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  EXPECT_NE(mapSchedule(s, 16).common, mapSchedule(s, 256).common);
  EXPECT_NE(mapSchedule(s, 0).common, mapSchedule(s, 16).common);
  Schedule outer = s;
  std::rotate(outer.loopOrder.rbegin(), outer.loopOrder.rbegin() + 1,
              outer.loopOrder.rend());
  ASSERT_TRUE(isLegal(outer)) << whyIllegal(outer);
  EXPECT_NE(mapSchedule(s, 64).common, mapSchedule(outer, 64).common);
}

TEST(ConfigurationMapperTest, DenseLayoutsAreSeen) {
  // SDDMM with k innermost: B^T (layout b : k) is read with unit stride by
  // the innermost loop, B (natural) is not; both facts reach the model.
  Schedule natural = Schedule::csr(TargetKind::CPU, KernelType::SDDMM);
  Schedule transposed = natural;
  transposed.denseTransposed = 2;
  MappedSchedule a = mapSchedule(natural, 64), b = mapSchedule(transposed, 64);
  EXPECT_NE(a.knobs, b.knobs);
  llvm::Expected<const Target &> cpu = TargetRegistry::get(TargetKind::CPU);
  ASSERT_TRUE(!!cpu) << llvm::toString(cpu.takeError());
  const std::vector<std::string> &names = cpu->knobEncoding().featureNames();
  auto at = [&](const MappedSchedule &m, const char *name) {
    auto it = std::find(names.begin(), names.end(), name);
    EXPECT_NE(it, names.end()) << name;
    return it == names.end() ? -1.0f : m.knobs[it - names.begin()];
  };
  EXPECT_EQ(at(a, "dense1_transposed"), 0.0f);
  EXPECT_EQ(at(b, "dense1_transposed"), 1.0f);
  EXPECT_EQ(at(a, "dense1_unit_stride"), 0.0f);
  EXPECT_EQ(at(b, "dense1_unit_stride"), 1.0f);
  // A(i, k) is read along k in both.
  EXPECT_EQ(at(a, "dense0_unit_stride"), 1.0f);
  EXPECT_EQ(at(b, "dense0_unit_stride"), 1.0f);
}

TEST(ConfigurationMapperTest, SampledKnobsAreLegalAndDeterministic) {
  for (TargetKind t : layout().targets()) {
    auto a = sampleKnobSettings(t, KernelType::SpMM, 200, 11);
    auto b = sampleKnobSettings(t, KernelType::SpMM, 200, 11);
    auto c = sampleKnobSettings(t, KernelType::SpMM, 200, 12);
    ASSERT_EQ(a.size(), 200u);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    std::set<std::string> distinct;
    for (const Schedule &s : a) {
      EXPECT_EQ(s.target, t);
      EXPECT_TRUE(isLegal(s)) << whyIllegal(s);
      EXPECT_EQ(s, canonicalize(s));
      distinct.insert(s.str());
    }
    // NVVM has 6 codegen thread counts and the cuSPARSE path, on which the
    // thread count means nothing (canonicalized away): 7 settings.
    EXPECT_GE(distinct.size(), t == TargetKind::NVVM ? 7u : 11u)
        << toString(t);
  }
}

TEST(ConfigurationMapperTest, FeatureSpecHashIsStable) {
  EXPECT_EQ(featureSpecHash(layout()), fnv1a64(featureSpecString(layout())));
  EXPECT_NE(featureSpecString(layout()).find("log2_split_row"),
            std::string::npos);
  // Known FNV-1a test vectors.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
}

TEST(ConfigurationMapperTest, DefaultKernelsKeepTheShapeOfEarlierModels) {
  // A new model's layout, and that of every model file without a kernel
  // list, has the one-hots of the first three kernels and no SpGEMM
  // features: the shipped model's feature specification is unchanged.
  EXPECT_EQ(layout().kernelNames(), defaultModelKernels());
  const std::vector<std::string> &names = layout().commonNames();
  ASSERT_GE(names.size(), 7u);
  EXPECT_EQ(names[3], "kernel_spmm");
  EXPECT_EQ(names[5], "kernel_spmv");
  EXPECT_EQ(names[6], "log2_free");
  for (const std::string &n : names)
    EXPECT_EQ(n.find("spgemm"), std::string::npos) << n;
  EXPECT_TRUE(layout().hasKernel(KernelType::SpMV));
  EXPECT_FALSE(layout().hasKernel(KernelType::SpGEMM));
  EXPECT_EQ(modelKernelsFor({KernelType::SpMM, KernelType::SpMV}),
            defaultModelKernels());
  EXPECT_EQ(modelKernelsFor({KernelType::Hadamard}), defaultModelKernels());
}

TEST(ConfigurationMapperTest, SpgemmLayoutSeesItsChoices) {
  llvm::Expected<FeatureLayout> withSpgemm = FeatureLayout::of(
      layout().targetNames(), modelKernelsFor({KernelType::SpGEMM}));
  ASSERT_TRUE(static_cast<bool>(withSpgemm))
      << llvm::toString(withSpgemm.takeError());
  EXPECT_TRUE(withSpgemm->hasKernel(KernelType::SpGEMM));
  EXPECT_EQ(withSpgemm->kernelsStr(), "spmm, sddmm, spmv, spgemm");
  const std::vector<std::string> &names = withSpgemm->commonNames();
  EXPECT_EQ(withSpgemm->commonSize(), layout().commonSize() + 1 + 4);
  EXPECT_EQ(names.back(), "spgemm_passes_auto");
  EXPECT_NE(featureSpecHash(*withSpgemm), featureSpecHash(layout()));

  // Every SpGEMM schedule of the CPU's space maps to its own vector, and
  // the same schedule of another kernel has no SpGEMM features.
  std::map<std::vector<float>, std::string> seen;
  for (Schedule s : test::cpuSpgemmKnobGrid()) {
    s = canonicalize(s);
    ASSERT_TRUE(isLegal(s)) << s.str();
    MappedSchedule m = withSpgemm->map(s, 0);
    EXPECT_EQ(static_cast<int>(m.common.size()), withSpgemm->commonSize());
    EXPECT_FLOAT_EQ(m.common[3 + 3], 1.0f) << "kernel_spgemm";
    auto [it, inserted] = seen.emplace(flat(m), s.str());
    EXPECT_TRUE(inserted) << s.str() << "\ncollides with\n" << it->second;
  }
  EXPECT_EQ(seen.size(), 18u);
  MappedSchedule spmm =
      withSpgemm->map(Schedule::csr(TargetKind::CPU, KernelType::SpMM), 64);
  for (int n = 1; n <= 4; ++n)
    EXPECT_EQ(spmm.common[spmm.common.size() - n], 0.0f);
  // The shared features sit after the kernel one-hots in both layouts.
  MappedSchedule old =
      layout().map(Schedule::csr(TargetKind::CPU, KernelType::SpMM), 64);
  EXPECT_TRUE(std::equal(old.common.begin() + 6, old.common.end(),
                         spmm.common.begin() + 7));
  EXPECT_EQ(old.knobs, spmm.knobs);
}

TEST(ConfigurationMapperTest, MttkrpLayoutSeesItsForm) {
  llvm::Expected<FeatureLayout> withMttkrp = FeatureLayout::of(
      layout().targetNames(), modelKernelsFor({KernelType::MTTKRP}));
  ASSERT_TRUE(static_cast<bool>(withMttkrp))
      << llvm::toString(withMttkrp.takeError());
  EXPECT_EQ(withMttkrp->kernelsStr(), "spmm, sddmm, spmv, mttkrp");
  EXPECT_EQ(withMttkrp->commonSize(), layout().commonSize() + 1 + 2);
  const std::vector<std::string> &names = withMttkrp->commonNames();
  EXPECT_EQ(names[names.size() - 2], "mttkrp_factored");
  EXPECT_EQ(names.back(), "mttkrp_entry_wise");
  // The tensor's scalars are part of the model's identity.
  EXPECT_NE(featureSpecString(*withMttkrp).find("log_typical_fiber_length"),
            std::string::npos);
  EXPECT_EQ(featureSpecString(layout()).find("tensor_scalars"),
            std::string::npos);

  // The heuristic's (form auto) and the space's four schedules map apart.
  Schedule base = Schedule::csr(TargetKind::CPU, KernelType::MTTKRP);
  std::map<std::vector<float>, std::string> seen;
  for (ParallelKind parallel : {ParallelKind::None, ParallelKind::Outer})
    for (MttkrpForm form :
         {MttkrpForm::Auto, MttkrpForm::Factored, MttkrpForm::EntryWise}) {
      Schedule s = base;
      cpuKnobs(s).parallel = parallel;
      cpuKnobs(s).form = form;
      s = canonicalize(s);
      ASSERT_TRUE(isLegal(s)) << s.str() << ": " << whyIllegal(s);
      MappedSchedule m = withMttkrp->map(s, 32);
      EXPECT_FLOAT_EQ(m.common[3 + 3], 1.0f) << "kernel_mttkrp";
      EXPECT_FLOAT_EQ(m.common[m.common.size() - 2],
                      form == MttkrpForm::Factored ? 1.0f : 0.0f);
      EXPECT_FLOAT_EQ(m.common.back(),
                      form == MttkrpForm::EntryWise ? 1.0f : 0.0f);
      auto [it, inserted] = seen.emplace(flat(m), s.str());
      EXPECT_TRUE(inserted) << s.str() << "\ncollides with\n" << it->second;
    }
  MappedSchedule spmm =
      withMttkrp->map(Schedule::csr(TargetKind::CPU, KernelType::SpMM), 64);
  EXPECT_EQ(spmm.common[spmm.common.size() - 2], 0.0f);
  EXPECT_EQ(spmm.common.back(), 0.0f);
  // With SpGEMM too, each kernel's features follow in kernel order.
  llvm::Expected<FeatureLayout> both = FeatureLayout::of(
      layout().targetNames(),
      modelKernelsFor({KernelType::SpGEMM, KernelType::MTTKRP}));
  ASSERT_TRUE(static_cast<bool>(both)) << llvm::toString(both.takeError());
  EXPECT_EQ(both->commonSize(), layout().commonSize() + 2 + 4 + 2);
  EXPECT_EQ(both->commonNames().back(), "mttkrp_entry_wise");
}

TEST(ConfigurationMapperTest, BatchedSpmmLayoutSeesItsTensorAndParallelism) {
  llvm::Expected<FeatureLayout> batched = FeatureLayout::of(
      layout().targetNames(), modelKernelsFor({KernelType::BatchedSpMM}));
  ASSERT_TRUE(static_cast<bool>(batched))
      << llvm::toString(batched.takeError());
  EXPECT_EQ(batched->kernelsStr(), "spmm, sddmm, spmv, batched_spmm");
  // A one-hot and nothing else of its own: its knobs are parallel and
  // threads, which every kernel's features have.
  EXPECT_EQ(batched->commonSize(), layout().commonSize() + 1);
  EXPECT_NE(featureSpecString(*batched).find("log_typical_fiber_length"),
            std::string::npos);
  // Its two schedules (the heuristic's all rows in parallel, one thread)
  // map apart.
  Schedule parallel = Schedule::csr(TargetKind::CPU, KernelType::BatchedSpMM);
  cpuKnobs(parallel).parallel = ParallelKind::Outer;
  Schedule serial = parallel;
  cpuKnobs(serial).parallel = ParallelKind::None;
  MappedSchedule p = batched->map(canonicalize(parallel), 16);
  MappedSchedule one = batched->map(canonicalize(serial), 16);
  EXPECT_NE(flat(p), flat(one));
  EXPECT_FLOAT_EQ(p.common[3 + 3], 1.0f) << "kernel_batched_spmm";
}

TEST(ConfigurationMapperTest, LayoutsRefuseBadKernelLists) {
  auto expectRefused = [](const std::vector<std::string> &kernels,
                          const std::string &why) {
    llvm::Expected<FeatureLayout> l =
        FeatureLayout::of(layout().targetNames(), kernels);
    ASSERT_FALSE(static_cast<bool>(l));
    std::string msg = llvm::toString(l.takeError());
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
  };
  expectRefused({}, "at least one kernel");
  expectRefused({"spmm", "spmm"}, "listed twice");
  expectRefused({"hadamard"}, "kernel 'hadamard' has no model features");
  expectRefused({"spgemv"}, "kernel 'spgemv' has no model features");
}

TEST(ConfigurationMapperTest, SharedRowOrderIsOneFeatureForEveryTarget) {
  llvm::Expected<FeatureLayout> shared = FeatureLayout::of(
      layout().targetNames(), defaultModelKernels(), {"row-order"});
  ASSERT_TRUE(static_cast<bool>(shared)) << llvm::toString(shared.takeError());
  EXPECT_EQ(shared->sharedKnobs(), std::vector<std::string>{"row-order"});
  EXPECT_EQ(shared->commonSize(), layout().commonSize() + 1);
  EXPECT_EQ(shared->commonNames().back(), "rows_reordered");
  EXPECT_NE(featureSpecHash(*shared), featureSpecHash(layout()));

  Schedule cpu = Schedule::csr(TargetKind::CPU, KernelType::SpMM);
  cpuKnobs(cpu).parallel = ParallelKind::Outer;
  Schedule cpuRcm = cpu;
  cpuKnobs(cpuRcm).rowOrder = RowOrderKind::Rcm;
  ASSERT_TRUE(isLegal(cpuRcm)) << whyIllegal(cpuRcm);
  Schedule spade = Schedule::csr(TargetKind::SPADE, KernelType::SpMM);
  Schedule spadeByLength = spade;
  spadeKnobs(spadeByLength).reorder = RowReorder::ByLength;
  Schedule spadeBySimilarity = spade;
  spadeKnobs(spadeBySimilarity).reorder = RowReorder::BySimilarity;
  EXPECT_EQ(shared->map(cpu, 64).common.back(), 0.0f);
  EXPECT_EQ(shared->map(cpuRcm, 64).common.back(), 1.0f);
  EXPECT_EQ(shared->map(spade, 64).common.back(), 0.0f);
  EXPECT_EQ(shared->map(spadeByLength, 64).common.back(), 1.0f);
  EXPECT_EQ(shared->map(spadeBySimilarity, 64).common.back(), 1.0f);
  // Without the shared knob the layout is the one models were built with,
  // where the CPU's row order is not seen at all (its knob code has none).
  EXPECT_EQ(flat(layout().map(cpu, 64)), flat(layout().map(cpuRcm, 64)));
  // Every other feature is the same in both layouts.
  MappedSchedule plain = layout().map(spadeByLength, 64);
  MappedSchedule withRowOrder = shared->map(spadeByLength, 64);
  EXPECT_TRUE(std::equal(plain.common.begin(), plain.common.end(),
                         withRowOrder.common.begin()));
  EXPECT_EQ(plain.knobs, withRowOrder.knobs);

  auto refused = [](const std::vector<std::string> &knobs) {
    llvm::Expected<FeatureLayout> l =
        FeatureLayout::of(layout().targetNames(), defaultModelKernels(), knobs);
    if (l)
      return std::string();
    return llvm::toString(l.takeError());
  };
  EXPECT_NE(refused({"row-order", "row-order"}).find("listed twice"),
            std::string::npos);
  EXPECT_NE(refused({"bypass"}).find("'bypass' is not a knob targets share"),
            std::string::npos);
}
