//===- ModelGuardTest.cpp - The ensemble guard of a model file ------------===//
//
// The verdict's arithmetic; a guard attached to a model file scores with its
// members' own weights and leaves the main model's scores alone; release
// and development mode load it; malformed guards and mismatched members are
// refused with a message.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/ModelGuard.h"

#include "sptune/CostModel/CostModel.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/PlainModel.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include "Support/FeatureTesting.h"
#include "gtest/gtest.h"

#include <cmath>
#include <fstream>

using namespace sptune;

namespace {

std::string modelBytes(uint64_t seed, ModelConfig config = ModelConfig()) {
  std::string error;
  std::unique_ptr<Model> model = Model::create(config, seed, &error);
  EXPECT_TRUE(model) << error;
  std::string bytes = model ? model->serialize(&error) : std::string();
  EXPECT_FALSE(bytes.empty()) << error;
  return bytes;
}

template <typename T> std::string errorOf(llvm::Expected<T> &value) {
  return value ? std::string() : llvm::toString(value.takeError());
}

MatrixFeatures features(const std::string &spec) {
  return test::featuresOf(spec);
}

std::vector<std::pair<std::string, std::string>> members(size_t count) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t n = 0; n < count; ++n)
    out.push_back({"m" + std::to_string(n + 2) + ".pt", modelBytes(n + 2)});
  return out;
}

/// `guard`'s verdict, on a machine with CPU `cpu`, on upstream's default
/// schedule of `kernel` over the CPU heuristic's for a small generated
/// matrix.
GuardVerdict judgeDefaultOverHeuristic(ModelGuard &guard,
                                       const std::string &cpu,
                                       KernelType kernel, int64_t free) {
  MatrixFeatures f = features("gen:uniform:rows=500,cols=500,nnz=5000,seed=1");
  const Target &target = *TargetRegistry::lookup(TargetKind::CPU);
  guard.setHostCpu(cpu);
  return cantFail(guard.judge(f, target.referenceSchedule(kernel),
                              target.heuristicSchedule(kernel, &f.stats, free),
                              free));
}

} // namespace

TEST(ModelGuard, VerdictIsTheMembersMeanAgainstZSpreads) {
  GuardVerdict v = guardVerdict({0.3, 0.2, 0.4}, 1.0);
  EXPECT_NEAR(v.gain, 0.3, 1e-12);
  EXPECT_NEAR(v.spread, 0.1, 1e-12);
  EXPECT_EQ(v.members, 3u);
  EXPECT_TRUE(v.trusted());
  EXPECT_TRUE(guardVerdict({0.3, 0.2, 0.4}, 2.9).trusted());
  EXPECT_FALSE(guardVerdict({0.3, 0.2, 0.4}, 3.0).trusted());
  // Agreeing members: trusted when the gain is positive, whatever z.
  EXPECT_TRUE(guardVerdict({0.1, 0.1}, 100).trusted());
  EXPECT_FALSE(guardVerdict({0.0, 0.0}, 0).trusted());
  EXPECT_FALSE(guardVerdict({-0.2, 0.1, -0.3}, 0).trusted());
  EXPECT_FALSE(guardVerdict({}, 0).trusted());
  std::string text = guardVerdict({0.3, 0.2, 0.4}, 1.0).str();
  EXPECT_NE(text.find("predicted 1.35x the heuristic's speed by 3 ensemble "
                      "members (spread 1.11x), trusted"),
            std::string::npos)
      << text;
}

TEST(ModelGuard, AnotherMachineHasItsOwnThreshold) {
  GuardSettings s;
  s.z = 0.1;
  EXPECT_EQ(s.zFor("AMD EPYC"), 0.1); // one threshold everywhere
  s.zOtherMachine = 4;
  EXPECT_EQ(s.zFor("AMD EPYC"), 4); // training machines unknown
  s.machines = {"Intel(R) Xeon(R) Processor"};
  EXPECT_EQ(s.zFor("Intel(R) Xeon(R) Processor"), 0.1);
  EXPECT_EQ(s.zFor("AMD EPYC"), 4);
  EXPECT_EQ(s.zFor(""), 4);
  EXPECT_FALSE(s.isOtherMachine("Intel(R) Xeon(R) Processor"));

  s.calibration = R"({"z": 0.1})";
  s.otherMachineCalibration = R"({"z": 4, "machines": ["AMD EPYC"]})";
  std::string guarded = cantFail(attachGuard(modelBytes(1), members(2), s));
  GuardSettings read = *cantFail(readGuardSettings(guarded, "g.pt"));
  EXPECT_EQ(read.z, 0.1);
  EXPECT_EQ(read.zOtherMachine, std::optional<double>(4));
  EXPECT_EQ(read.machines, s.machines);
  EXPECT_NE(read.otherMachineCalibration.find("AMD EPYC"), std::string::npos);

  std::unique_ptr<ModelGuard> guard =
      cantFail(ModelGuard::fromBytes(guarded, "g.pt"));
  GuardVerdict home = judgeDefaultOverHeuristic(
      *guard, "Intel(R) Xeon(R) Processor", KernelType::SpMV, 1);
  EXPECT_EQ(home.z, 0.1);
  EXPECT_FALSE(home.otherMachine);
  GuardVerdict away =
      judgeDefaultOverHeuristic(*guard, "AMD EPYC", KernelType::SpMV, 1);
  EXPECT_EQ(away.z, 4);
  EXPECT_TRUE(away.otherMachine);
  EXPECT_EQ(away.gain, home.gain);
  EXPECT_NE(away.str().find("spreads on a machine the model was not trained "
                            "on"),
            std::string::npos)
      << away.str();
  EXPECT_EQ(home.str().find("not trained on"), std::string::npos);

  GuardSettings bad = s;
  bad.zOtherMachine = -1;
  llvm::Expected<std::string> refused =
      attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused),
            "the guard's z must be a finite number >= 0 or \"never\"");
  bad = s;
  bad.machines = {""};
  refused = attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused), "a guard's machine name is empty");
}

TEST(ModelGuard, KernelsHaveTheirOwnThresholdsOnOtherMachines) {
  GuardSettings s;
  s.z = 0.1;
  s.zOtherMachine = 4;
  s.zOtherMachineByKernel = {{"spmv", 8}, {"sddmm", 2.5}};
  s.machines = {"Intel(R) Xeon(R) Processor"};
  // At home one threshold for every kernel, elsewhere each kernel's own, and
  // the other machines' for kernels without one.
  EXPECT_EQ(s.zFor("Intel(R) Xeon(R) Processor", "spmv"), 0.1);
  EXPECT_EQ(s.zFor("AMD EPYC", "spmv"), 8);
  EXPECT_EQ(s.zFor("AMD EPYC", "sddmm"), 2.5);
  EXPECT_EQ(s.zFor("AMD EPYC", "spmm"), 4);
  EXPECT_EQ(s.zFor("AMD EPYC"), 4);

  std::string guarded = cantFail(attachGuard(modelBytes(1), members(2), s));
  GuardSettings read = *cantFail(readGuardSettings(guarded, "g.pt"));
  EXPECT_EQ(read.zOtherMachineByKernel, s.zOtherMachineByKernel);

  std::unique_ptr<ModelGuard> guard =
      cantFail(ModelGuard::fromBytes(guarded, "g.pt"));
  EXPECT_EQ(
      judgeDefaultOverHeuristic(*guard, "AMD EPYC", KernelType::SpMV, 1).z, 8);
  EXPECT_EQ(judgeDefaultOverHeuristic(*guard, "Intel(R) Xeon(R) Processor",
                                      KernelType::SpMV, 1)
                .z,
            0.1);
  EXPECT_EQ(
      judgeDefaultOverHeuristic(*guard, "AMD EPYC", KernelType::SpMM, 64).z, 4);
  EXPECT_NE(otherMachineNote(*guard).find(
                "sure by 2.50 spreads for sddmm, 8.00 for spmv and 4.00 for "
                "other kernel types (on its own machine 0.10)"),
            std::string::npos)
      << otherMachineNote(*guard);
  // A cost model's description names them on such a machine.
  std::string path = testing::TempDir() + "/sptune-per-kernel-guard.pt";
  std::ofstream(path, std::ios::binary) << guarded;
  const char *before = std::getenv("SPTUNE_GUARD_MACHINE");
  std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("SPTUNE_GUARD_MACHINE", "AMD EPYC", 1);
  llvm::Expected<std::unique_ptr<CostModel>> model =
      createCostModel(CostModelMode::Release, path);
  if (saved)
    ::setenv("SPTUNE_GUARD_MACHINE", saved->c_str(), 1);
  else
    ::unsetenv("SPTUNE_GUARD_MACHINE");
  ASSERT_TRUE(static_cast<bool>(model)) << errorOf(model);
  EXPECT_NE((*model)->description().find(
                "guard of 2 members, z on this machine 2.50 spreads for "
                "sddmm, 8.00 for spmv and 4.00 for other kernel types"),
            std::string::npos)
      << (*model)->description();
  std::remove(path.c_str());
  // Version 2 only where a guard has thresholds per kernel: a build that
  // reads version 1 refuses it rather than judge SpMV with 4.
  ModelFileContents file = cantFail(decodeModelFile(guarded, "model", "g"));
  EXPECT_NE(file.sections[kGuardSection].find("\"version\":2"),
            std::string::npos);
  GuardSettings plain = s;
  plain.zOtherMachineByKernel.clear();
  file = cantFail(decodeModelFile(
      cantFail(attachGuard(modelBytes(1), members(2), plain)), "model", "g"));
  EXPECT_NE(file.sections[kGuardSection].find("\"version\":1"),
            std::string::npos);

  GuardSettings bad = s;
  bad.zOtherMachineByKernel["spmm"] = NAN;
  llvm::Expected<std::string> refused =
      attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused),
            "the guard's threshold for kernel 'spmm' must be a finite number "
            ">= 0 or \"never\"");
  bad = s;
  bad.zOtherMachineByKernel = {{"sp mv", 1}};
  refused = attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused), "the guard names a kernel type 'sp mv': kernel "
                              "types are lower-case identifiers");
  bad.zOtherMachineByKernel = {{"SpMV", 1}}; // would never apply
  refused = attachGuard(modelBytes(1), members(2), bad);
  EXPECT_NE(errorOf(refused).find("'SpMV'"), std::string::npos);
  bad = s;
  bad.zOtherMachine.reset();
  refused = attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused), "thresholds per kernel on other machines need "
                              "the other machines' threshold");
}

TEST(ModelGuard, NeverTrustsNoPick) {
  // Whatever the gain and spread, agreeing members included.
  EXPECT_FALSE(guardVerdict({0.1, 0.1}, kNeverTrust).trusted());
  EXPECT_FALSE(guardVerdict({0.9, 0.8, 1.0}, kNeverTrust).trusted());
  EXPECT_NE(guardVerdict({0.3, 0.2, 0.4}, kNeverTrust, true)
                .str()
                .find("not trusted: the guard never trusts the model's picks "
                      "for this kernel on a machine the model was not "
                      "trained on"),
            std::string::npos);
  EXPECT_EQ(thresholdText(kNeverTrust), "never");
  EXPECT_EQ(thresholdText(1.8), "1.80");

  GuardSettings s;
  s.z = 0.1;
  s.zOtherMachine = 4.9;
  s.zOtherMachineByKernel = {{"spmm", 1.8}, {"spmv", kNeverTrust}};
  s.machines = {"Intel(R) Xeon(R) Processor"};
  EXPECT_TRUE(s.anyNever());
  std::string guarded = cantFail(attachGuard(modelBytes(1), members(2), s));
  // Written as the string "never" in a version 3 guard, read back as it.
  ModelFileContents file = cantFail(decodeModelFile(guarded, "model", "g"));
  EXPECT_NE(file.sections[kGuardSection].find("\"version\":3"),
            std::string::npos);
  EXPECT_NE(file.sections[kGuardSection].find("\"spmv\":\"never\""),
            std::string::npos)
      << file.sections[kGuardSection];
  GuardSettings read = *cantFail(readGuardSettings(guarded, "g.pt"));
  EXPECT_EQ(read.zOtherMachineByKernel, s.zOtherMachineByKernel);

  std::unique_ptr<ModelGuard> guard =
      cantFail(ModelGuard::fromBytes(guarded, "g.pt"));
  GuardVerdict away =
      judgeDefaultOverHeuristic(*guard, "AMD EPYC", KernelType::SpMV, 1);
  EXPECT_EQ(away.z, kNeverTrust);
  EXPECT_FALSE(away.trusted());
  // At home the model's own threshold still applies.
  EXPECT_EQ(judgeDefaultOverHeuristic(*guard, "Intel(R) Xeon(R) Processor",
                                      KernelType::SpMV, 1)
                .z,
            0.1);
  guard->setHostCpu("AMD EPYC");
  EXPECT_NE(otherMachineNote(*guard).find(
                "sure by 1.80 spreads for spmm and 4.90 for other kernel "
                "types, never for spmv (on its own machine 0.10)"),
            std::string::npos)
      << otherMachineNote(*guard);
  // How the thresholds on other machines read, whichever are "never".
  GuardSettings t = s;
  t.zOtherMachineByKernel = {{"spmm", kNeverTrust}, {"spmv", kNeverTrust}};
  EXPECT_EQ(t.otherMachineThresholdsText(),
            "4.90 spreads for other kernel types, never for spmm and spmv");
  t.zOtherMachine = kNeverTrust;
  EXPECT_EQ(t.otherMachineThresholdsText(),
            "never for spmm, spmv and other kernel types");
  t.zOtherMachineByKernel.clear();
  EXPECT_EQ(t.otherMachineThresholdsText(), "never");
  t.zOtherMachine = 4;
  EXPECT_EQ(t.otherMachineThresholdsText(), "4.00 spreads");
  t.zOtherMachine.reset();
  EXPECT_EQ(t.otherMachineThresholdsText(), "");
  // Every threshold "never", written and read back; its remark.
  GuardSettings all = s;
  all.z = kNeverTrust;
  all.zOtherMachine = kNeverTrust;
  all.zOtherMachineByKernel.clear();
  std::string allNever = cantFail(attachGuard(modelBytes(1), members(2), all));
  GuardSettings allRead = *cantFail(readGuardSettings(allNever, "g.pt"));
  EXPECT_EQ(allRead.z, kNeverTrust);
  EXPECT_EQ(allRead.zOtherMachine, std::optional<double>(kNeverTrust));
  std::unique_ptr<ModelGuard> allGuard =
      cantFail(ModelGuard::fromBytes(allNever, "g.pt"));
  allGuard->setHostCpu("AMD EPYC");
  EXPECT_NE(otherMachineNote(*allGuard).find(
                "'AMD EPYC': its picks never replace the heuristic (on its "
                "own machine never)"),
            std::string::npos)
      << otherMachineNote(*allGuard);
  // Never everywhere, per kernel too: the same remark.
  GuardSettings perKernelNever = all;
  perKernelNever.z = 0.1;
  perKernelNever.zOtherMachineByKernel = {{"spmv", kNeverTrust}};
  std::unique_ptr<ModelGuard> perKernelGuard = cantFail(ModelGuard::fromBytes(
      cantFail(attachGuard(modelBytes(1), members(2), perKernelNever)),
      "g.pt"));
  perKernelGuard->setHostCpu("AMD EPYC");
  EXPECT_NE(otherMachineNote(*perKernelGuard)
                .find("'AMD EPYC': its picks never replace the heuristic (on "
                      "its own machine 0.10)"),
            std::string::npos)
      << otherMachineNote(*perKernelGuard);
  EXPECT_FALSE(judgeDefaultOverHeuristic(*allGuard,
                                         "Intel(R) Xeon(R) Processor",
                                         KernelType::SpMM, 64)
                   .trusted());

  // "never" in a guard of an older version is refused, as is another word.
  auto load = [&](const std::string &section) {
    ModelFileSections sections = file.sections;
    sections[kGuardSection] = section;
    llvm::Expected<std::unique_ptr<ModelGuard>> g = ModelGuard::fromBytes(
        encodeModelFile("model", file.featureSpecHash, sections), "g.pt");
    return errorOf(g);
  };
  EXPECT_EQ(load(R"({"version": 2, "z": 1, "members": 2,
      "z_other_machine": 2, "z_other_machine_by_kernel": {"spmv": "never"}})"),
            "'g.pt': malformed guard section: the threshold \"never\" needs "
            "guard version 3");
  EXPECT_EQ(load(R"({"version": 3, "z": "never", "members": 2})"), "");
  EXPECT_EQ(load(R"({"version": 1, "z": "never", "members": 2})"),
            "'g.pt': malformed guard section: the threshold \"never\" needs "
            "guard version 3");
  EXPECT_EQ(thresholdFromText("never"), std::optional<double>(kNeverTrust));
  EXPECT_EQ(thresholdFromText("1.5"), std::optional<double>(1.5));
  EXPECT_EQ(thresholdFromText("-1"), std::nullopt);
  EXPECT_EQ(thresholdFromText("inf"), std::nullopt);
  EXPECT_EQ(thresholdFromText("Never"), std::nullopt);
  EXPECT_NE(load(R"({"version": 3, "z": "always", "members": 2})")
                .find("z must be a finite number >= 0 or \"never\""),
            std::string::npos);
  // A NaN is no threshold.
  GuardSettings bad = s;
  bad.zOtherMachine = NAN;
  llvm::Expected<std::string> refused =
      attachGuard(modelBytes(1), members(2), bad);
  EXPECT_EQ(errorOf(refused),
            "the guard's z must be a finite number >= 0 or \"never\"");
}

TEST(ModelGuard, MembersScoreWithTheirOwnWeights) {
  std::string main = modelBytes(1);
  auto parts = members(3);
  GuardSettings settings;
  settings.z = 0.75;
  settings.calibration = R"({"z": 0.75, "problems": 12})";
  llvm::Expected<std::string> guarded = attachGuard(main, parts, settings);
  ASSERT_TRUE(static_cast<bool>(guarded)) << errorOf(guarded);

  llvm::Expected<std::optional<GuardSettings>> read =
      readGuardSettings(*guarded, "g.pt");
  ASSERT_TRUE(static_cast<bool>(read)) << errorOf(read);
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->members, 3u);
  EXPECT_EQ((*read)->z, 0.75);
  EXPECT_NE((*read)->calibration.find("\"problems\":12"), std::string::npos)
      << (*read)->calibration;

  llvm::Expected<std::unique_ptr<ModelGuard>> guard =
      ModelGuard::fromBytes(*guarded, "g.pt");
  ASSERT_TRUE(static_cast<bool>(guard)) << errorOf(guard);
  ASSERT_TRUE(*guard);

  MatrixFeatures f = features("gen:rmat:rows=2048,nnz=20000,seed=3");
  const Target &cpu = *TargetRegistry::lookup(TargetKind::CPU);
  Schedule heuristic = cpu.heuristicSchedule(KernelType::SpMM, &f.stats, 64);
  std::vector<Schedule> picks = cpu.space().sample(
      {KernelType::SpMM, 2048, 2048, 64, 20000}, 5, /*seed=*/4);
  ASSERT_FALSE(picks.empty());
  for (const Schedule &pick : picks) {
    llvm::Expected<std::vector<double>> gains =
        (*guard)->gains(f, pick, heuristic, 64);
    ASSERT_TRUE(static_cast<bool>(gains)) << errorOf(gains);
    ASSERT_EQ(gains->size(), 3u);
    for (size_t n = 0; n < 3; ++n) {
      std::unique_ptr<PlainModel> alone =
          cantFail(PlainModel::loadFromBytes(parts[n].second, parts[n].first));
      std::vector<double> s = cantFail(alone->score(f, {pick, heuristic}, 64));
      EXPECT_DOUBLE_EQ((*gains)[n], s[0] - s[1]);
    }
    GuardVerdict v = cantFail((*guard)->judge(f, pick, heuristic, 64));
    GuardVerdict expected = guardVerdict(*gains, 0.75);
    EXPECT_EQ(v.trusted(), expected.trusted());
    EXPECT_DOUBLE_EQ(v.gain, expected.gain);
  }

  // The main model scores as before: the guard adds sections only.
  std::unique_ptr<PlainModel> before =
      cantFail(PlainModel::loadFromBytes(main, "main.pt"));
  std::unique_ptr<PlainModel> after =
      cantFail(PlainModel::loadFromBytes(*guarded, "g.pt"));
  EXPECT_EQ(cantFail(before->score(f, picks, 64)),
            cantFail(after->score(f, picks, 64)));

  // Removed, the model's own bytes again.
  EXPECT_EQ(cantFail(removeGuard(*guarded)), main);
  EXPECT_EQ(cantFail(removeGuard(main)), main);

  // A file without a guard has none; a guard attached again replaces it.
  llvm::Expected<std::unique_ptr<ModelGuard>> none =
      ModelGuard::fromBytes(main, "main.pt");
  ASSERT_TRUE(static_cast<bool>(none)) << errorOf(none);
  EXPECT_FALSE(*none);
  settings.z = 2;
  llvm::Expected<std::string> again =
      attachGuard(*guarded, members(2), settings);
  ASSERT_TRUE(static_cast<bool>(again)) << errorOf(again);
  ModelFileContents file = cantFail(decodeModelFile(*again, "model", "a"));
  EXPECT_TRUE(file.sections.count(guardMemberSection(2)));
  EXPECT_FALSE(file.sections.count(guardMemberSection(3)));
  EXPECT_EQ(cantFail(readGuardSettings(*again, "a"))->z, 2);
}

TEST(ModelGuard, CostModelsLoadTheGuard) {
  GuardSettings settings;
  settings.z = 1e6; // never trusts a pick the members disagree on
  std::string guarded =
      cantFail(attachGuard(modelBytes(1), members(2), settings));
  std::string dir = testing::TempDir();
  std::string path = dir + "/sptune-guarded.pt",
              plainPath = dir + "/sptune-unguarded.pt";
  std::ofstream(path, std::ios::binary) << guarded;
  std::ofstream(plainPath, std::ios::binary) << modelBytes(1);
  MatrixFeatures f = features("gen:uniform:rows=500,cols=500,nnz=5000,seed=1");
  const Target &cpu = *TargetRegistry::lookup(TargetKind::CPU);
  Schedule heuristic = cpu.heuristicSchedule(KernelType::SpMV, &f.stats, 1);
  Schedule pick = cpu.referenceSchedule(KernelType::SpMV);
  for (CostModelMode mode :
       {CostModelMode::Release, CostModelMode::Development}) {
    llvm::Expected<std::unique_ptr<CostModel>> model =
        createCostModel(mode, path);
    ASSERT_TRUE(static_cast<bool>(model)) << errorOf(model);
    EXPECT_NE((*model)->description().find("guard of 2 members, z = "
                                           "1000000.00 on this machine"),
              std::string::npos)
        << (*model)->description();
    auto verdict = (*model)->judgeOverHeuristic(f, pick, heuristic, 1);
    ASSERT_TRUE(static_cast<bool>(verdict)) << errorOf(verdict);
    ASSERT_TRUE(verdict->has_value());
    EXPECT_EQ((*verdict)->members, 2u);
    EXPECT_EQ((*verdict)->z, 1e6);
  }
  llvm::Expected<std::unique_ptr<CostModel>> unguarded =
      createCostModel(CostModelMode::Development, plainPath);
  ASSERT_TRUE(static_cast<bool>(unguarded)) << errorOf(unguarded);
  auto verdict = (*unguarded)->judgeOverHeuristic(f, pick, heuristic, 1);
  ASSERT_TRUE(static_cast<bool>(verdict)) << errorOf(verdict);
  EXPECT_FALSE(verdict->has_value());
  llvm::Expected<std::unique_ptr<CostModel>> heuristicModel =
      createCostModel(CostModelMode::Heuristic, "");
  ASSERT_TRUE(static_cast<bool>(heuristicModel));
  auto none = (*heuristicModel)->judgeOverHeuristic(f, pick, heuristic, 1);
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_FALSE(none->has_value());
  std::remove(path.c_str());
  std::remove(plainPath.c_str());
}

TEST(ModelGuard, RefusesBadGuardsAndMismatchedMembers) {
  std::string main = modelBytes(1);
  GuardSettings settings;
  settings.z = 1;
  auto attach = [&](std::vector<std::pair<std::string, std::string>> parts,
                    GuardSettings s) {
    llvm::Expected<std::string> out = attachGuard(main, parts, s);
    return errorOf(out);
  };
  EXPECT_EQ(attach(members(1), settings),
            "a guard needs at least 2 members (got 1)");
  GuardSettings negative = settings;
  negative.z = -1;
  EXPECT_EQ(attach(members(2), negative),
            "the guard's z must be a finite number >= 0 or \"never\"");
  negative.z = NAN;
  EXPECT_EQ(attach(members(2), negative),
            "the guard's z must be a finite number >= 0 or \"never\"");
  auto parts = members(2);
  parts[1] = {"noise.pt", "not a model"};
  EXPECT_NE(attach(parts, settings).find("noise.pt"), std::string::npos);
  ModelConfig ablated;
  ablated.noAutoencoder = true;
  parts[1] = {"ablated.pt", modelBytes(5, ablated)};
  EXPECT_EQ(attach(parts, settings),
            "the member 'ablated.pt' was trained for other targets, kernels, "
            "shared knobs, ablations or losses than the model");
  ModelConfig wider;
  wider.hidden = 64;
  parts[1] = {"wider.pt", modelBytes(5, wider)};
  EXPECT_NE(attach(parts, settings).find("'wider.pt' has weights"),
            std::string::npos)
      << attach(parts, settings);

  // Guards broken in the file.
  std::string guarded = cantFail(attachGuard(main, members(2), settings));
  ModelFileContents file = cantFail(decodeModelFile(guarded, "model", "g"));
  auto load = [&](ModelFileSections sections) {
    llvm::Expected<std::unique_ptr<ModelGuard>> g = ModelGuard::fromBytes(
        encodeModelFile("model", file.featureSpecHash, sections), "g.pt");
    return errorOf(g);
  };
  EXPECT_EQ(load(file.sections), "");
  ModelFileSections missing = file.sections;
  missing.erase(guardMemberSection(2));
  EXPECT_EQ(load(missing), "'g.pt': the guard has 2 members but no section "
                           "'guard.member.2'");
  ModelFileSections newer = file.sections;
  newer[kGuardSection] = R"({"version": 4, "z": 1, "members": 2})";
  EXPECT_EQ(
      load(newer),
      "'g.pt' has a guard of version 4; this build reads versions 1 to 3");
  ModelFileSections garbage = file.sections;
  garbage[kGuardSection] = "{";
  EXPECT_NE(load(garbage).find("'g.pt': malformed guard section"),
            std::string::npos);
  ModelFileSections badZ = file.sections;
  badZ[kGuardSection] = R"({"version": 1, "z": -3, "members": 2})";
  EXPECT_EQ(load(badZ),
            "'g.pt': malformed guard section: z must be a finite number >= 0 "
            "or \"never\"");
  ModelFileSections otherZ = file.sections;
  otherZ[kGuardSection] =
      R"({"version": 1, "z": 1, "members": 2, "z_other_machine": "x"})";
  EXPECT_EQ(load(otherZ), "'g.pt': malformed guard section: z_other_machine "
                          "must be a finite number >= 0 or \"never\"");
  ModelFileSections kernelZ = file.sections;
  kernelZ[kGuardSection] = R"({"version": 2, "z": 1, "members": 2,
      "z_other_machine": 2, "z_other_machine_by_kernel": {"spmv": -1}})";
  EXPECT_EQ(load(kernelZ), "'g.pt': malformed guard section: "
                           "z_other_machine_by_kernel must map kernel names "
                           "to thresholds (a finite number >= 0 or \"never\")");
  kernelZ[kGuardSection] = R"({"version": 2, "z": 1, "members": 2,
      "z_other_machine_by_kernel": {"spmv": 8}})";
  EXPECT_EQ(load(kernelZ), "'g.pt': malformed guard section: "
                           "z_other_machine_by_kernel must be an object of "
                           "kernel names and thresholds, next to "
                           "z_other_machine");
  kernelZ[kGuardSection] = R"({"version": 1, "z": 1, "members": 2,
      "z_other_machine": 2, "z_other_machine_by_kernel": {"spmv": 8}})";
  EXPECT_EQ(load(kernelZ), "'g.pt': malformed guard section: "
                           "z_other_machine_by_kernel needs guard version 2");
  ModelFileSections machines = file.sections;
  machines[kGuardSection] =
      R"({"version": 1, "z": 1, "members": 2, "machines": "Intel"})";
  EXPECT_EQ(load(machines), "'g.pt': malformed guard section: machines must "
                            "be a list of CPU names");
  ModelFileSections one = file.sections;
  one[kGuardSection] = R"({"version": 1, "z": 1, "members": 1})";
  EXPECT_EQ(load(one), "'g.pt': malformed guard section: members must be 2 to "
                       "64");
  ModelFileSections truncated = file.sections;
  truncated[guardMemberSection(1)] = "sptune-plain-weights\n";
  EXPECT_NE(load(truncated).find("g.pt"), std::string::npos);
  // A cost model refuses a file with a broken guard rather than run without
  // it.
  std::string path = testing::TempDir() + "/sptune-broken-guard.pt";
  std::ofstream(path, std::ios::binary)
      << encodeModelFile("model", file.featureSpecHash, missing);
  llvm::Expected<std::unique_ptr<CostModel>> model =
      createCostModel(CostModelMode::Development, path);
  EXPECT_NE(errorOf(model).find("no section 'guard.member.2'"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(ModelGuard, CalibrationsGiveThresholdsPerKernel) {
  std::string path = testing::TempDir() + "/sptune-calibration.json";
  auto read = [&](const std::string &text) {
    std::ofstream(path) << text;
    return readGuardCalibration(path);
  };
  llvm::Expected<GuardCalibration> c =
      read(R"({"z": 2.8, "z_by_kernel": {"spmm": 1.8, "spmv": 7.1},
               "machines": ["AMD EPYC"]})");
  ASSERT_TRUE(static_cast<bool>(c)) << errorOf(c);
  EXPECT_EQ(c->z, 2.8);
  EXPECT_EQ(c->zByKernel,
            (std::map<std::string, double>{{"spmm", 1.8}, {"spmv", 7.1}}));
  EXPECT_EQ(c->machines, std::vector<std::string>{"AMD EPYC"});
  // Older calibrations have none.
  c = read(R"({"z": 4.1})");
  ASSERT_TRUE(static_cast<bool>(c)) << errorOf(c);
  EXPECT_TRUE(c->zByKernel.empty());
  c = read(R"({"z": 1, "z_by_kernel": [1, 2]})");
  EXPECT_EQ(errorOf(c), "'" + path +
                            "': z_by_kernel is not an object of kernel names "
                            "and thresholds");
  c = read(R"({"z": 1, "z_by_kernel": {"": 1}})");
  EXPECT_EQ(errorOf(c), "'" + path +
                            "': z_by_kernel's '' is not a kernel name with a "
                            "threshold (a finite number >= 0 or \"never\")");
  // A kernel whose picks no threshold made win more often than lose.
  c = read(R"({"z": 4.9, "z_by_kernel": {"spmm": 1.8, "spmv": "never"}})");
  ASSERT_TRUE(static_cast<bool>(c)) << errorOf(c);
  EXPECT_EQ(c->zByKernel.at("spmv"), kNeverTrust);
  c = read(R"({"z": "never"})");
  ASSERT_TRUE(static_cast<bool>(c)) << errorOf(c);
  EXPECT_EQ(c->z, kNeverTrust);
  c = read(R"({"z": "sometimes"})");
  EXPECT_EQ(errorOf(c), "'" + path +
                            "' has no valid \"z\" (a finite number >= 0 or "
                            "\"never\")");
  c = read(R"({"z": 1, "z_by_kernel": {"spmv": "high"}})");
  EXPECT_NE(errorOf(c).find("z_by_kernel's 'spmv'"), std::string::npos);
  std::remove(path.c_str());
}
