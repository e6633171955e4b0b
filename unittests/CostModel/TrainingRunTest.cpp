//===- TrainingRunTest.cpp - Whole training and evaluation runs -----------===//
//
// `runTraining` and `runEvaluation` on a small dataset of generated matrices
// and CPU schedules written to a temporary directory: a run writes a model
// and its metrics, the model evaluates, and bad inputs are llvm::Errors.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/TrainingRun.h"
#include "cpu/CpuKnobs.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/Target/DefaultSchedule.h"
#include "sptune/Target/Target.h"

#include "Support/SpgemmTesting.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <set>

using namespace sptune;

namespace {
/// One dataset line: a CPU SpMM measurement of `schedule` on `source`.
std::string record(const std::string &source, const std::string &role,
                   const std::string &schedule, double median,
                   const std::string &target = "cpu") {
  return "{\"schema\": 1, \"key\": \"k\", \"matrix\": {\"id\": \"" + source +
         "\", \"source\": \"" + source +
         "\", \"rows\": 64, \"cols\": 64, \"nnz\": 100}, \"kernel\": \"spmm\", "
         "\"free\": 64, \"target\": \"" + target + "\", \"role\": \"" +
         role + "\", \"schedule\": \"" + schedule +
         "\", \"status\": \"ok\", \"reason\": \"\", \"time_s\": {\"median\": " +
         std::to_string(median) +
         ", \"min\": 0, \"max\": 0, \"mad\": 0, \"reps\": 5}, \"compile_s\": "
         "0.1, \"cycles\": null, \"machine\": {}, \"tool_version\": \"0.1.0\", "
         "\"time\": \"now\"}";
}

/// A temporary directory with a dataset of five generated matrices, each
/// measured with a few CPU schedules; removed at the end of the test.
class TrainingRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("sptune-trainingrun", dir));
    data = path("data.jsonl");
    std::ofstream out(data);
    std::vector<Schedule> schedules;
    for (int k = 0; k < 4; ++k) {
      for (Schedule s : {Schedule::csr(TargetKind::CPU, KernelType::SpMM),
                         Schedule::dcsr(TargetKind::CPU, KernelType::SpMM)}) {
        cpuKnobs(s).parallel = k & 1 ? ParallelKind::Outer : ParallelKind::None;
        cpuKnobs(s).vectorLength = k & 2 ? 8 : 0;
        schedules.push_back(canonicalize(s));
      }
    }
    for (int m = 0; m < 5; ++m) {
      std::string source = "gen:uniform:rows=" + std::to_string(32 << (m % 2)) +
                           ",density=0.1,seed=" + std::to_string(m + 1);
      out << record(
                 source, "baseline:mlir-default",
                 referenceSchedule(TargetKind::CPU, KernelType::SpMM).str(),
                 1e-3)
          << "\n";
      for (size_t i = 0; i < schedules.size(); ++i)
        out << record(source, "sample", schedules[i].str(),
                      1e-3 * (1.0 + 0.1 * static_cast<double>(i) +
                              0.05 * static_cast<double>(m)))
            << "\n";
    }
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) const {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p.str());
  }

  /// Options for a short run on the dataset, recording the messages.
  TrainingRunOptions options() {
    TrainingRunOptions o;
    o.dataFiles = {data};
    o.outPath = path("model.pt");
    o.epochs = 2;
    o.holdout = 0.4;
    o.seed = 1;
    o.onMessage = [this](TrainingMessageKind kind, llvm::StringRef text) {
      messages.push_back({kind, text.str()});
    };
    return o;
  }

  /// The text of the first message of `kind` that starts with `prefix`
  /// (empty when none).
  std::string message(TrainingMessageKind kind, llvm::StringRef prefix) const {
    for (const auto &[k, text] : messages)
      if (k == kind && llvm::StringRef(text).starts_with(prefix))
        return text;
    return "";
  }

  llvm::SmallString<128> dir;
  std::string data;
  std::vector<std::pair<TrainingMessageKind, std::string>> messages;
};

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }
} // namespace

TEST_F(TrainingRunTest, TrainsAndWritesTheModelAndItsMetrics) {
  TrainingRunOptions o = options();
  o.logPath = path("train.log");
  int epochsSeen = 0;
  o.onEpoch = [&](const EpochReport &e, llvm::StringRef line) {
    ++epochsSeen;
    EXPECT_TRUE(line.starts_with("epoch " + std::to_string(e.epoch) + "/2:"))
        << line.str();
  };
  llvm::Expected<TrainingRunResult> r = runTraining(o);
  ASSERT_TRUE(static_cast<bool>(r)) << errorText(r.takeError());
  EXPECT_FALSE(r->interrupted);
  EXPECT_EQ(r->epochs, 2);
  EXPECT_EQ(epochsSeen, 2);
  EXPECT_EQ(r->history.size(), 2u);
  EXPECT_EQ(r->data.featurizedMatrices, 5u);
  EXPECT_EQ(r->data.groups, 5u);
  EXPECT_EQ(r->trainMatrices + r->heldOutMatrices.size(), 5u);
  EXPECT_EQ(r->heldOutMatrices.size(), 2u);
  EXPECT_EQ(r->trainSamples + r->heldOutSamples, 40u);
  EXPECT_EQ(r->reconstructionErrors.size(), 3u);
  EXPECT_EQ(r->train.groups, r->trainGroups);
  EXPECT_EQ(r->heldOut.groups, r->heldOutGroups);
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->modelPath, o.outPath);
  EXPECT_EQ(r->metricsPath, path("model.metrics.json"));
  EXPECT_GT(r->modelBytes, 0u);
  EXPECT_GT(r->parameters, 0u);
  EXPECT_TRUE(llvm::sys::fs::exists(o.outPath));
  EXPECT_TRUE(llvm::sys::fs::exists(o.logPath));

  // The messages, in the tool's words.
  EXPECT_NE(message(TrainingMessageKind::Note, "read 1 dataset(s): "), "");
  EXPECT_NE(message(TrainingMessageKind::Note, "featurized 5 matrices in "),
            "");
  EXPECT_NE(message(TrainingMessageKind::Note, "pre-trained knob "), "");
  EXPECT_NE(message(TrainingMessageKind::Note, "trained 2 epochs in "), "");
  EXPECT_NE(message(TrainingMessageKind::Result, "training matrices: "), "");
  EXPECT_NE(message(TrainingMessageKind::Result, "held-out matrices: "), "");
  EXPECT_EQ(message(TrainingMessageKind::Note, "wrote " + r->metricsPath),
            "wrote " + r->metricsPath);

  // The metrics file names the model and holds its provenance.
  auto buffer = llvm::MemoryBuffer::getFile(r->metricsPath);
  ASSERT_TRUE(static_cast<bool>(buffer));
  llvm::Expected<llvm::json::Value> metrics =
      llvm::json::parse((*buffer)->getBuffer());
  ASSERT_TRUE(static_cast<bool>(metrics)) << errorText(metrics.takeError());
  const llvm::json::Object *m = metrics->getAsObject();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->getString("model"), llvm::StringRef(o.outPath));
  const llvm::json::Object *provenance = m->getObject("provenance");
  ASSERT_NE(provenance, nullptr);
  EXPECT_EQ(provenance->getString("tool"), llvm::StringRef("sptune-train"));
  EXPECT_EQ(provenance->getInteger("epochs"), 2);
  EXPECT_EQ(provenance->getNumber("margin"), 0.1);
  EXPECT_EQ(provenance->getNumber("lr"), 2e-3);
  EXPECT_NE(m->getObject("heldout"), nullptr);
  EXPECT_NE(m->getObject("train"), nullptr);
}

TEST_F(TrainingRunTest, EvaluatesAndFineTunesTheTrainedModel) {
  ASSERT_TRUE(static_cast<bool>(runTraining(options())));

  TrainingRunOptions e = options();
  e.outPath.clear();
  e.evaluateModel = path("model.pt");
  e.metricsPath = path("eval.json");
  llvm::Expected<EvaluationRunResult> ev = runEvaluation(e);
  ASSERT_TRUE(static_cast<bool>(ev)) << errorText(ev.takeError());
  EXPECT_FALSE(ev->interrupted);
  EXPECT_EQ(ev->evaluation.groups, 5u);
  EXPECT_EQ(ev->evaluation.failedGroups, 0u);
  EXPECT_EQ(ev->metricsPath, e.metricsPath);
  EXPECT_TRUE(llvm::sys::fs::exists(e.metricsPath));
  EXPECT_NE(message(TrainingMessageKind::Result,
                    "evaluated '" + e.evaluateModel + "' on all 5 problem(s)"),
            "");

  TrainingRunOptions f = options();
  f.finetuneFrom = path("model.pt");
  f.outPath = path("tuned.pt");
  f.epochs = 1;
  llvm::Expected<TrainingRunResult> ft = runTraining(f);
  ASSERT_TRUE(static_cast<bool>(ft)) << errorText(ft.takeError());
  EXPECT_TRUE(ft->reconstructionErrors.empty());
  EXPECT_TRUE(llvm::sys::fs::exists(f.outPath));
  EXPECT_NE(message(TrainingMessageKind::Note,
                    "fine-tuning '" + f.finetuneFrom + "' for target 'cpu'"),
            "");
}

TEST_F(TrainingRunTest, SpgemmRecordsGetAModelOfTheirOwnOrAreLeftOut) {
  // A model of the default kernels, trained on the SpMM data.
  TrainingRunOptions o = options();
  ASSERT_TRUE(static_cast<bool>(runTraining(o)));
  // The data plus SpGEMM measurements of two of its matrices.
  std::string mixed = path("mixed.jsonl");
  {
    std::ifstream in(data);
    std::ofstream out(mixed);
    out << in.rdbuf();
    std::set<std::string> distinct;
    for (const Schedule &s : test::cpuSpgemmKnobGrid())
      distinct.insert(canonicalize(s).str());
    for (int m = 0; m < 2; ++m) {
      std::string source = "gen:uniform:rows=" + std::to_string(32 << (m % 2)) +
                           ",density=0.1,seed=" + std::to_string(m + 1);
      int i = 0;
      for (const std::string &s : distinct) {
        std::string line = record(source, "sample", s, 1e-4 * (1 + i++));
        line.replace(line.find("\"spmm\""), 6, "\"spgemm\"");
        out << line << "\n";
      }
    }
  }
  // Fine-tuning it (its knob autoencoder pre-trained on the data's
  // schedules too) leaves the SpGEMM problems out, and says so.
  TrainingRunOptions f = options();
  f.dataFiles = {mixed};
  f.finetuneFrom = o.outPath;
  f.finetunePretrainAutoencoder = true;
  f.outPath = path("tuned.pt");
  f.epochs = 1;
  llvm::Expected<TrainingRunResult> ft = runTraining(f);
  ASSERT_TRUE(static_cast<bool>(ft)) << errorText(ft.takeError());
  EXPECT_NE(message(TrainingMessageKind::Note,
                    "left out 2 problem(s) of kernels the model has no "
                    "feature for (it is built for spmm, sddmm, spmv)"),
            "");
  // A fresh model on the same data is built for SpGEMM as well.
  TrainingRunOptions fresh = options();
  fresh.dataFiles = {mixed};
  fresh.outPath = path("fresh.pt");
  ASSERT_TRUE(static_cast<bool>(runTraining(fresh)));
  std::string error;
  std::unique_ptr<Model> model = Model::load(fresh.outPath, error);
  ASSERT_TRUE(model) << error;
  EXPECT_TRUE(model->hasKernel(KernelType::SpGEMM));
  EXPECT_TRUE(model->hasKernel(KernelType::SpMM));
}

TEST_F(TrainingRunTest, StopFlagInterruptsBeforeWritingAnything) {
  std::atomic<bool> stop{true};
  TrainingRunOptions o = options();
  o.stop = &stop;
  llvm::Expected<TrainingRunResult> r = runTraining(o);
  ASSERT_TRUE(static_cast<bool>(r)) << errorText(r.takeError());
  EXPECT_TRUE(r->interrupted);
  EXPECT_FALSE(llvm::sys::fs::exists(o.outPath));
}

TEST_F(TrainingRunTest, ClearErrors) {
  TrainingRunOptions noData = options();
  noData.dataFiles.clear();
  EXPECT_EQ(errorText(runTraining(noData).takeError()),
            "no dataset given (use --data FILE, repeatable)");

  TrainingRunOptions missing = options();
  missing.dataFiles = {path("missing.jsonl")};
  std::string error = errorText(runTraining(missing).takeError());
  EXPECT_NE(error.find("missing.jsonl"), std::string::npos) << error;

  TrainingRunOptions target = options();
  target.target = "tpu";
  EXPECT_EQ(errorText(runTraining(target).takeError()),
            "unknown target 'tpu' (expected " + TargetRegistry::names() + ")");

  TrainingRunOptions noOut = options();
  noOut.outPath.clear();
  EXPECT_EQ(errorText(runTraining(noOut).takeError()),
            "no output model given (use --out FILE)");

  TrainingRunOptions badDir = options();
  badDir.outPath = path("no/such/dir/model.pt");
  error = errorText(runTraining(badDir).takeError());
  EXPECT_NE(error.find("its directory does not exist"), std::string::npos)
      << error;

  TrainingRunOptions epochs = options();
  epochs.epochs = 0;
  EXPECT_EQ(errorText(runTraining(epochs).takeError()),
            "--epochs must be in [1, 100000]");
  // Issue 13 probe: 10^9 epochs and 10^6 threads ran past any timeout, -3
  // threads was taken.
  epochs.epochs = 1000000000;
  EXPECT_EQ(errorText(runTraining(epochs).takeError()),
            "--epochs must be in [1, 100000]");
  for (int threads : {-3, 1000000}) {
    TrainingRunOptions badThreads = options();
    badThreads.torchThreads = threads;
    EXPECT_EQ(errorText(runTraining(badThreads).takeError()),
              "--torch-threads must be in [0, 1024] (0: one per core)");
  }
  TrainingRunOptions bigGroups = options();
  bigGroups.schedulesPerGroup = 1000000000;
  EXPECT_EQ(errorText(runTraining(bigGroups).takeError()),
            "--batch-groups and --schedules-per-group must be at most 100000");

  for (double margin : {-0.1, 11.0, std::nan("")}) {
    TrainingRunOptions badMargin = options();
    badMargin.margin = margin;
    EXPECT_EQ(errorText(runTraining(badMargin).takeError()),
              "--margin must be in [0, 10] (log time)");
  }

  TrainingRunOptions noModel = options();
  noModel.evaluateModel = path("missing.pt");
  error = errorText(runEvaluation(noModel).takeError());
  EXPECT_NE(error.find("missing.pt"), std::string::npos) << error;

  {
    std::ofstream corrupt(path("corrupt.pt"));
    corrupt << "not a model";
  }
  TrainingRunOptions corruptModel = options();
  corruptModel.evaluateModel = path("corrupt.pt");
  error = errorText(runEvaluation(corruptModel).takeError());
  EXPECT_NE(error.find("corrupt.pt"), std::string::npos) << error;

  TrainingRunOptions noEvaluate = options();
  EXPECT_EQ(errorText(runEvaluation(noEvaluate).takeError()),
            "no model to evaluate given (use --evaluate FILE)");

  TrainingRunOptions badBase = options();
  badBase.finetuneFrom = path("missing.pt");
  error = errorText(runTraining(badBase).takeError());
  EXPECT_NE(error.find("missing.pt"), std::string::npos) << error;
  EXPECT_FALSE(llvm::sys::fs::exists(badBase.outPath));
}

TEST_F(TrainingRunTest, EvaluatingOnAnUntrainedTargetIsZeroShot) {
  ASSERT_TRUE(static_cast<bool>(runTraining(options())));
  auto zeroShotOf = [&](const std::string &metricsPath) -> std::optional<bool> {
    auto buffer = llvm::MemoryBuffer::getFile(metricsPath);
    if (!buffer)
      return std::nullopt;
    llvm::Expected<llvm::json::Value> v =
        llvm::json::parse((*buffer)->getBuffer());
    if (!v) {
      llvm::consumeError(v.takeError());
      return std::nullopt;
    }
    const llvm::json::Object *o = v->getAsObject();
    return o ? o->getBoolean("zero_shot") : std::nullopt;
  };
  const char *note = "model was not trained for target ";

  // On its own target: no note, "zero_shot": false.
  TrainingRunOptions same = options();
  same.outPath.clear();
  same.evaluateModel = path("model.pt");
  same.metricsPath = path("cpu-eval.json");
  messages.clear();
  llvm::Expected<EvaluationRunResult> onCpu = runEvaluation(same);
  ASSERT_TRUE(static_cast<bool>(onCpu)) << errorText(onCpu.takeError());
  EXPECT_FALSE(onCpu->zeroShot);
  EXPECT_EQ(message(TrainingMessageKind::Note, note), "");
  EXPECT_EQ(zeroShotOf(same.metricsPath), std::optional<bool>(false));
  auto buffer = llvm::MemoryBuffer::getFile(same.metricsPath);
  ASSERT_TRUE(static_cast<bool>(buffer));
  EXPECT_NE((*buffer)->getBuffer().find("\"kendall_tau\""), llvm::StringRef::npos);

  // The CPU model on SPADE data: evaluated all the same, said and recorded.
  std::string spadeData = path("spade.jsonl");
  {
    std::ofstream out(spadeData);
    std::vector<Schedule> schedules =
        sampleKnobSettings(TargetKind::SPADE, KernelType::SpMM, 6, 3);
    ASSERT_GE(schedules.size(), 2u);
    for (int m = 0; m < 3; ++m) {
      std::string source = "gen:uniform:rows=64,density=0.1,seed=" +
                           std::to_string(m + 11);
      out << record(source, "baseline:mlir-default",
                    referenceSchedule(TargetKind::SPADE, KernelType::SpMM)
                        .str(),
                    1e-3, "spade")
          << "\n";
      for (size_t i = 0; i < schedules.size(); ++i)
        out << record(source, "sample", canonicalize(schedules[i]).str(),
                      1e-3 * (1.0 + 0.1 * static_cast<double>(i)), "spade")
            << "\n";
    }
  }
  TrainingRunOptions zero = options();
  zero.dataFiles = {spadeData};
  zero.target = "spade";
  zero.outPath.clear();
  zero.evaluateModel = path("model.pt");
  zero.metricsPath = path("spade-eval.json");
  messages.clear();
  llvm::Expected<EvaluationRunResult> onSpade = runEvaluation(zero);
  ASSERT_TRUE(static_cast<bool>(onSpade)) << errorText(onSpade.takeError());
  EXPECT_TRUE(onSpade->zeroShot);
  EXPECT_EQ(onSpade->evaluation.groups, 3u);
  EXPECT_EQ(message(TrainingMessageKind::Note, note),
            "model was not trained for target 'spade' (trained: cpu): "
            "zero-shot evaluation");
  EXPECT_NE(message(TrainingMessageKind::Result,
                    "evaluated '" + zero.evaluateModel + "' on all 3 problem(s)"),
            "");
  EXPECT_EQ(zeroShotOf(zero.metricsPath), std::optional<bool>(true));
}
