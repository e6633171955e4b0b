//===- sptune-train.cpp - Train the cost model on measured datasets -------===//
//
//   sptune-train --data a.jsonl [--data b.jsonl] --out model.pt
//                [--target cpu] [--epochs N] [--holdout 0.2] [--seed S]
//                [--finetune-from base.pt] [--checkpoint-dir D]
//                [--log train.jsonl] [--metrics m.json] ...
//
// Reads `sptune-collect` datasets (docs/dataset.md), featurizes their
// matrices, holds out a fraction of the matrices (never single samples),
// trains (or fine-tunes) the ranking model, reports Kendall's tau, ordered
// pair accuracy, APE and top-1/top-5 speedup over the MLIR default next to
// the oracle on the held-out matrices, and writes the model and the metrics.
// With --checkpoint-dir it checkpoints after every epoch; rerunning the same
// command resumes from the last checkpoint (Ctrl-C stops cleanly).
//
// Exit status: 0 on success, 1 on an error, 130 when interrupted.
//
//===----------------------------------------------------------------------===//

#include "sptune/Config.h"
#include "sptune/CostModel/Dataset.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-train options");
static cl::list<std::string> dataFiles("data",
                                       cl::desc("dataset (JSONL); repeatable"),
                                       cl::value_desc("file"),
                                       cl::cat(category));
static cl::opt<std::string> outPath("out", cl::desc("model file to write"),
                                    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> targetName("target",
                                       cl::desc("target to train for"),
                                       cl::init("cpu"), cl::cat(category));
static cl::opt<int> epochs("epochs", cl::desc("training epochs"), cl::init(40),
                           cl::cat(category));
static cl::opt<double> holdout("holdout",
                               cl::desc("fraction of matrices held out for "
                                        "evaluation (0: none)"),
                               cl::init(0.2), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("seed (split, init, batches)"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string>
    finetuneFrom("finetune-from",
                 cl::desc("fine-tune this model (COGNATE: frozen matrix "
                          "encoder) instead of training from scratch"),
                 cl::value_desc("model"), cl::cat(category));
static cl::opt<bool> finetuneScheduleEncoder(
    "finetune-schedule-encoder",
    cl::desc("with --finetune-from: also train the schedule encoder (only "
             "the matrix encoder stays frozen)"),
    cl::cat(category));
static cl::opt<std::string>
    evaluateModel("evaluate",
                  cl::desc("evaluate this model on all the data (no "
                           "training; --out is not needed)"),
                  cl::value_desc("model"), cl::cat(category));
static cl::opt<std::string>
    checkpointDir("checkpoint-dir",
                  cl::desc("checkpoint every epoch here and resume from it"),
                  cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> logPath("log",
                                    cl::desc("write one JSON line per epoch"),
                                    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    metricsPath("metrics",
                cl::desc("write the held-out metrics as JSON (default: the "
                         "model path with .metrics.json)"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> noRegression("no-regression",
                                  cl::desc("ranking loss only (no runtime "
                                           "regression; APE not reported)"),
                                  cl::cat(category));
static cl::opt<double> learningRate("lr", cl::desc("learning rate"),
                                    cl::init(2e-3), cl::cat(category));
static cl::opt<int> batchGroups("batch-groups",
                                cl::desc("groups (problems) per step"),
                                cl::init(8), cl::cat(category));
static cl::opt<int>
    schedulesPerGroup("schedules-per-group",
                      cl::desc("schedules drawn per group and step"),
                      cl::init(32), cl::cat(category));
static cl::opt<int>
    threads("torch-threads",
            cl::desc("LibTorch threads (0: one per core). One is the default: "
                     "the model is small and more threads spin-wait for each "
                     "other, many times slower on a busy machine"),
            cl::init(1), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("no progress line"),
                           cl::cat(category));

static std::atomic<bool> interrupted{false};

static void onSignal(int) {
  interrupted = true;
  std::signal(SIGINT, SIG_DFL); // a second Ctrl-C kills
  std::signal(SIGTERM, SIG_DFL);
}

static int fail(const std::string &message) {
  llvm::errs() << "sptune-train: error: " << message << "\n";
  return 1;
}

static std::string duration(double seconds) {
  auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600)
    return llvm::formatv("{0}h{1:2}m", s / 3600, (s / 60) % 60).str();
  if (s >= 60)
    return llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str();
  return llvm::formatv("{0:f1}s", seconds).str();
}

static llvm::json::Value optional(std::optional<double> v) {
  return v ? llvm::json::Value(*v) : llvm::json::Value(nullptr);
}

static llvm::json::Object metricsObject(const EvaluationReport &r) {
  return llvm::json::Object{{"groups", static_cast<int64_t>(r.groups)},
                            {"samples", static_cast<int64_t>(r.samples)},
                            {"kendall_tau", r.tau},
                            {"pair_accuracy", optional(r.pairAccuracy)},
                            {"mape", optional(r.mape)},
                            {"top1_speedup", optional(r.top1)},
                            {"top5_speedup", optional(r.top5)},
                            {"oracle_speedup", optional(r.oracle)}};
}

/// Warns about the problems of `which` the model failed to score (left out
/// of the metrics); prints nothing when it scored them all.
static void warnFailedGroups(const ModelEvaluation &r, const char *which) {
  if (r.failedGroups)
    llvm::errs() << "warning: the model failed to score " << r.failedGroups
                 << " problem(s) of the " << which
                 << "; they are left out of the metrics (first: "
                 << r.firstError << ")\n";
}

static std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sptune-train: train the sptune cost model on sptune-collect datasets\n");
  registerAllTargets();
  if (dataFiles.empty())
    return fail("no dataset given (use --data FILE, repeatable)");
  if (outPath.empty() && evaluateModel.empty())
    return fail("no output model given (use --out FILE)");
  std::optional<TargetKind> target = parseTargetKind(targetName.getValue());
  if (!target)
    return fail("unknown target '" + targetName +
                "' (expected cpu, nvvm or spade)");
  if (epochs < 1)
    return fail("--epochs must be at least 1");
  if (!(holdout >= 0 && holdout < 1))
    return fail("--holdout must be in [0, 1)");
  if (batchGroups < 1 || schedulesPerGroup < 2 || !(learningRate > 0))
    return fail("--batch-groups >= 1, --schedules-per-group >= 2 and --lr > 0 "
                "are required");
  bool tty = ::isatty(2) && !quiet;
  if (evaluateModel.empty()) {
    // Fail now rather than after training when the model cannot be written.
    llvm::SmallString<256> dir(outPath.getValue());
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    if (!llvm::sys::fs::is_directory(dir) ||
        llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write))
      return fail("cannot write the model to '" + outPath +
                  "': its directory does not exist or is not writable");
  }

  // Datasets.
  DatasetReader reader;
  for (const std::string &file : dataFiles) {
    std::string error;
    if (!reader.addFile(file, error))
      return fail(error);
  }
  const DatasetCounts &counts = reader.counts();
  llvm::errs() << "read " << dataFiles.size()
               << " dataset(s): " << counts.summary() << "\n";
  size_t skipped =
      counts.unparsable + counts.unsupportedSchema + counts.badSchedule;
  if (skipped)
    llvm::errs() << "warning: skipped " << skipped
                 << " line(s) that could not be used\n";
  if (counts.samples == 0)
    return fail("the datasets hold no usable schedule measurement (" +
                std::to_string(counts.lines) + " lines read)");
  std::vector<SampleGroup> groups = filterTarget(reader.groups(), *target);
  if (groups.empty())
    return fail(std::string("the datasets hold no successful measurement for "
                            "target '") +
                toString(*target) + "'");

  // Features, once per matrix.
  std::map<std::string, std::string> sources;
  for (const SampleGroup &g : groups)
    sources.emplace(g.matrix.id, g.matrix.source);
  FeatureTable features;
  std::set<std::string> unloadable;
  auto featStart = std::chrono::steady_clock::now();
  size_t done = 0;
  for (const auto &[id, source] : sources) {
    if (interrupted)
      return 130;
    ++done;
    if (tty)
      llvm::errs() << llvm::formatv("\rfeaturizing matrix {0}/{1}: {2}\x1b[K",
                                    done, sources.size(), id);
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    if (source.empty() || !loadMatrix(source, coo, info, error)) {
      llvm::errs() << (tty ? "\n" : "") << "warning: cannot load matrix '" << id
                   << "' (" << (source.empty() ? "no source recorded" : error)
                   << "); skipping its measurements\n";
      unloadable.insert(id);
      continue;
    }
    features[id] = featurize(CsrMatrix::fromCoo(std::move(coo)));
  }
  if (tty)
    llvm::errs() << "\r\x1b[K";
  llvm::errs() << llvm::formatv(
      "featurized {0} matrices in {1}\n", features.size(),
      duration(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             featStart)
                   .count()));
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [&](const SampleGroup &g) {
                                return unloadable.count(g.matrix.id) != 0;
                              }),
               groups.end());
  if (groups.empty())
    return fail("none of the datasets' matrices could be loaded");

  if (!evaluateModel.empty()) {
    std::string error;
    std::unique_ptr<Model> model = Model::load(evaluateModel, error);
    if (!model)
      return fail(error);
    ModelEvaluation report = evaluate(*model, groups, features);
    llvm::outs() << "evaluated '" << evaluateModel << "' on all "
                 << report.groups << " problem(s): " << report.summary()
                 << "\n";
    warnFailedGroups(report, "data");
    if (!metricsPath.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream metrics(metricsPath, ec);
      if (ec)
        return fail("cannot write '" + metricsPath + "': " + ec.message());
      metrics << report.toJson() << "\n";
    }
    return 0;
  }

  // Split by matrix.
  DatasetSplit split = splitByMatrix(groups, holdout, seed);
  std::vector<SampleGroup> train, test;
  size_t trainSamples = 0, testSamples = 0;
  for (size_t i : split.train) {
    trainSamples += groups[i].samples.size();
    train.push_back(groups[i]);
  }
  for (size_t i : split.test) {
    testSamples += groups[i].samples.size();
    test.push_back(groups[i]);
  }
  llvm::errs() << llvm::formatv(
      "train: {0} matrices, {1} problems, {2} schedules; held out: {3} "
      "matrices, {4} problems, {5} schedules\n",
      split.trainMatrices.size(), train.size(), trainSamples,
      split.testMatrices.size(), test.size(), testSamples);

  // The model.
  std::unique_ptr<Model> model;
  if (!finetuneFrom.empty()) {
    std::string error;
    model = Model::load(finetuneFrom, error);
    if (!model)
      return fail(error);
    if (model->info().trainedTargets.empty())
      return fail("'" + finetuneFrom +
                  "' is an untrained model; fine-tuning "
                  "needs a trained base");
    llvm::errs() << "fine-tuning '" << finetuneFrom << "' for target '"
                 << toString(*target) << "'\n";
  } else {
    std::string error;
    model = Model::create(ModelConfig(), seed, &error);
    if (!model)
      return fail(error);
    std::vector<Schedule> schedules;
    for (const SampleGroup &g : train)
      for (const MeasuredSchedule &m : g.samples)
        schedules.push_back(m.schedule);
    PretrainOptions pre;
    pre.seed = seed;
    std::vector<double> errs =
        pretrainAutoencoders(*model, schedules, pre, &error);
    if (errs.empty())
      return fail(error);
    llvm::errs() << llvm::formatv(
        "pre-trained knob autoencoders (reconstruction "
        "error {0:e2} / {1:e2} / {2:e2})\n",
        errs[0], errs[1], errs[2]);
  }

  // Training.
  std::unique_ptr<llvm::raw_fd_ostream> log;
  if (!logPath.empty()) {
    std::error_code ec;
    log = std::make_unique<llvm::raw_fd_ostream>(logPath, ec,
                                                 llvm::sys::fs::OF_Append);
    if (ec)
      return fail("cannot write the log '" + logPath + "': " + ec.message());
  }
  TrainOptions options;
  options.target = *target;
  options.epochs = epochs;
  options.groupsPerBatch = batchGroups;
  options.schedulesPerGroup = schedulesPerGroup;
  options.learningRate = learningRate;
  options.seed = seed;
  options.finetune = !finetuneFrom.empty();
  options.finetuneScheduleEncoder = finetuneScheduleEncoder;
  options.checkpointDir = checkpointDir;
  options.threads =
      threads > 0
          ? threads.getValue()
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (noRegression)
    options.regressionWeight = 0;
  options.stop = &interrupted;
  options.onResume = [&](int epoch) {
    llvm::errs() << "resuming from the checkpoint of epoch " << epoch << " in '"
                 << checkpointDir << "'\n";
  };
  auto lastPrint = std::chrono::steady_clock::now();
  options.onProgress = [&](const TrainProgress &p) {
    auto now = std::chrono::steady_clock::now();
    if (!tty || std::chrono::duration<double>(now - lastPrint).count() < 0.25)
      return;
    lastPrint = now;
    llvm::errs() << llvm::formatv(
        "\repoch {0}/{1} step {2}/{3}  loss {4:f4}  {5:f0} schedules/s  ETA "
        "{6}\x1b[K",
        p.epoch, p.epochs, p.step, p.stepsPerEpoch, p.loss, p.samplesPerSecond,
        duration(p.etaSeconds));
  };
  options.onEpoch = [&](const EpochReport &e) {
    std::string line = llvm::formatv(
        "epoch {0}/{1}: loss {2:f4} (rank {3:f4}, regression {4:f4}, "
        "reconstruction {5:f5}) in {6}",
        e.epoch, options.epochs, e.loss, e.rankLoss, e.regressionLoss,
        e.reconstructionLoss, duration(e.seconds));
    if (e.validation && e.validation->groups)
      line += llvm::formatv(
          "; held-out tau {0:f3}, top-1 {1}", e.validation->tau,
          e.validation->top1
              ? llvm::formatv("{0:f3}x", *e.validation->top1).str()
              : std::string("n/a"));
    if (tty)
      llvm::errs() << "\r\x1b[K";
    if (!quiet || e.epoch == options.epochs)
      llvm::errs() << line << "\n";
    if (e.validation)
      warnFailedGroups(*e.validation, "held-out matrices");
    if (log) {
      llvm::json::Object o{{"epoch", e.epoch},
                           {"loss", e.loss},
                           {"rank", e.rankLoss},
                           {"regression", e.regressionLoss},
                           {"reconstruction", e.reconstructionLoss},
                           {"seconds", e.seconds},
                           {"time", nowUtc()}};
      if (e.validation)
        o["heldout"] = metricsObject(*e.validation);
      *log << llvm::json::Value(std::move(o)) << "\n";
      log->flush();
    }
  };
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  TrainResult result = sptune::train(*model, train, features, options, &test);
  if (tty)
    llvm::errs() << "\r\x1b[K";
  if (!result.ok)
    return fail(result.error);
  if (result.interrupted) {
    llvm::errs() << "interrupted after epoch " << result.epochs << "; "
                 << (checkpointDir.empty()
                         ? std::string("no --checkpoint-dir, progress is lost")
                         : "rerun the same command to resume from '" +
                               checkpointDir + "'")
                 << "\n";
    return 130;
  }
  llvm::errs() << llvm::formatv("trained {0} epochs in {1}\n", result.epochs,
                                duration(result.seconds));

  // Evaluation and outputs.
  ModelEvaluation trainReport = evaluate(*model, train, features);
  ModelEvaluation testReport = evaluate(*model, test, features);
  llvm::outs() << "training matrices: " << trainReport.summary() << "\n";
  if (testReport.groups)
    llvm::outs() << "held-out matrices: " << testReport.summary() << "\n";
  else if (!testReport.failedGroups)
    llvm::outs() << "held-out matrices: none (--holdout 0)\n";
  warnFailedGroups(trainReport, "training matrices");
  warnFailedGroups(testReport, "held-out matrices");

  llvm::json::Array dataArray, heldOut;
  for (const std::string &f : dataFiles)
    dataArray.push_back(f);
  for (const std::string &id : split.testMatrices)
    heldOut.push_back(id);
  llvm::json::Object provenance{
      {"tool", "sptune-train"},
      {"version", SPTUNE_VERSION},
      {"time", nowUtc()},
      {"data", std::move(dataArray)},
      {"target", toString(*target)},
      {"epochs", static_cast<int64_t>(epochs)},
      {"seed", static_cast<int64_t>(seed)},
      {"holdout", holdout.getValue()},
      {"regression", !noRegression},
      {"finetune_from", finetuneFrom.empty() ? llvm::json::Value(nullptr)
                                             : llvm::json::Value(finetuneFrom)},
      {"train_matrices", static_cast<int64_t>(split.trainMatrices.size())},
      {"train_samples", static_cast<int64_t>(trainSamples)},
      {"heldout_matrices", std::move(heldOut)},
      {"heldout", metricsObject(testReport)}};
  std::string provenanceText;
  llvm::raw_string_ostream(provenanceText)
      << llvm::json::Value(llvm::json::Object(provenance));
  model->info().provenance = provenanceText;

  std::string error;
  if (!model->save(outPath, error))
    return fail(error);
  llvm::errs() << llvm::formatv("wrote {0} ({1} KiB, {2} parameters)\n",
                                outPath, model->serialize().size() / 1024,
                                model->parameterCount());

  std::string metricsFile = metricsPath;
  if (metricsFile.empty()) {
    llvm::SmallString<256> p(outPath.getValue());
    llvm::sys::path::replace_extension(p, "metrics.json");
    metricsFile = std::string(p.str());
  }
  std::error_code ec;
  llvm::raw_fd_ostream metrics(metricsFile, ec);
  if (ec)
    return fail("cannot write '" + metricsFile + "': " + ec.message());
  llvm::Expected<llvm::json::Value> heldOutJson =
      llvm::json::parse(testReport.toJson());
  llvm::Expected<llvm::json::Value> trainJson =
      llvm::json::parse(trainReport.toJson());
  if (!heldOutJson || !trainJson) {
    llvm::consumeError(heldOutJson.takeError());
    llvm::consumeError(trainJson.takeError());
    return fail("internal error: metrics are not valid JSON");
  }
  if (const llvm::json::Object *t = trainJson->getAsObject()) {
    llvm::json::Object trainSummary = *t;
    trainSummary.erase("per_group");
    metrics << llvm::formatv(
        "{0:2}\n", llvm::json::Value(
                       llvm::json::Object{{"model", outPath.getValue()},
                                          {"provenance", std::move(provenance)},
                                          {"heldout", std::move(*heldOutJson)},
                                          {"train", std::move(trainSummary)}}));
  }
  llvm::errs() << "wrote " << metricsFile << "\n";
  return 0;
}
