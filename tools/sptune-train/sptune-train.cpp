//===- sptune-train.cpp - Train the cost model on measured datasets -------===//
//
//   sptune-train --data a.jsonl [--data b.jsonl] --out model.pt
//                [--target cpu] [--epochs N] [--holdout 0.2] [--seed S]
//                [--finetune-from base.pt [--finetune-freeze=encoders|matrix|none]]
//                [--ablate=no-config-mapper,no-autoencoder,single-scale]
//                [--checkpoint-dir D]
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

#include "sptune/CostModel/TrainingRun.h"
#include "sptune/InitAllTargets.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <map>
#include <csignal>
#include <unistd.h>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-train options");
static cl::list<std::string> dataFiles("data",
                                       cl::desc("dataset (JSONL); repeatable"),
                                       cl::value_desc("file"),
                                       cl::cat(category));
static cl::opt<std::string> machineFilter(
    "machine",
    cl::desc("Train on the records of one machine only: its CPU model "
             "(machine.cpu) or its host name (machine.host), exactly as the "
             "dataset has it; by default all, with a warning when the "
             "datasets mix machines"),
    cl::value_desc("cpu-or-host"), cl::cat(category));
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
static cl::opt<std::string> finetuneFreeze(
    "finetune-freeze",
    cl::desc("with --finetune-from: what stays frozen. encoders (default, "
             "COGNATE): the matrix and schedule encoders and the feature "
             "normalization, only the target's knob autoencoder and the "
             "predictor learn; matrix: only the matrix encoder (same as "
             "--finetune-schedule-encoder); none: everything learns from the "
             "base's weights (consider a lower --lr)"),
    cl::value_desc("encoders|matrix|none"), cl::cat(category));
static cl::opt<bool> finetunePretrainAutoencoder(
    "finetune-pretrain-autoencoder",
    cl::desc("with --finetune-from: pre-train the target's knob autoencoder "
             "again (sampled knob settings plus the training schedules) "
             "before fine-tuning, as training from scratch does"),
    cl::cat(category));
static cl::opt<std::string> ablate(
    "ablate",
    cl::desc("COGNATE ablations of a model trained from scratch, "
             "comma-separated, recorded in the model file: no-config-mapper "
             "(the schedule's common features are zeroed: only the target's "
             "knob code represents it), no-autoencoder (each target's raw "
             "knobs through one linear layer, no autoencoder pre-training or "
             "reconstruction), single-scale (the matrix encoder sees only the "
             "128x128 density image). Fine-tuning keeps the base's ablations"),
    cl::value_desc("list"), cl::cat(category));
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
static cl::opt<std::string>
    scoresPath("scores",
               cl::desc("with --evaluate: also write each problem's scores and "
                        "measured times, one JSON line per problem (to "
                        "combine several models' scores offline)"),
               cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> noRegression("no-regression",
                                  cl::desc("ranking loss only (no runtime "
                                           "regression; APE not reported)"),
                                  cl::cat(category));
static cl::opt<double> learningRate("lr", cl::desc("learning rate"),
                                    cl::init(2e-3), cl::cat(category));
static cl::opt<double>
    margin("margin",
           cl::desc("cap of the ranking loss's margin in log time: a faster "
                    "schedule must score min(margin, log t_slow - log t_fast) "
                    "higher (larger: big speedups weigh more)"),
           cl::init(0.1), cl::cat(category));
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

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sptune-train: train the sptune cost model on sptune-collect datasets\n");
  registerAllTargets();

  TrainingRunOptions options;
  options.dataFiles.assign(dataFiles.begin(), dataFiles.end());
  // Runtimes of different machines are not comparable: say which machines
  // the datasets hold, and keep one with --machine.
  {
    std::map<std::string, size_t> machines;
    std::string error;
    if (!datasetMachines(options.dataFiles, machines, error)) {
      llvm::errs() << "sptune-train: " << error << "\n";
      return 1;
    }
    for (const auto &[machine, records] : machines)
      llvm::errs() << "machine: "
                   << (machine.empty() ? "(not recorded)" : machine) << ": "
                   << records << " record(s)\n";
    if (machineFilter.empty() && machines.size() > 1)
      llvm::errs() << "warning: the datasets mix " << machines.size()
                   << " machines; runtimes of different machines are not "
                      "comparable: keep one with --machine CPU-or-HOST\n";
  }
  // The run keeps that machine's records (DatasetReader's filter).
  options.machine = machineFilter;
  options.target = targetName;
  options.outPath = outPath;
  options.epochs = epochs;
  options.holdout = holdout;
  options.seed = seed;
  options.finetuneFrom = finetuneFrom;
  options.finetuneScheduleEncoder = finetuneScheduleEncoder;
  options.finetuneFreeze = finetuneFreeze;
  options.ablations = ablate;
  options.finetunePretrainAutoencoder = finetunePretrainAutoencoder;
  options.evaluateModel = evaluateModel;
  options.checkpointDir = checkpointDir;
  options.logPath = logPath;
  options.metricsPath = metricsPath;
  options.scoresPath = scoresPath;
  options.noRegression = noRegression;
  options.learningRate = learningRate;
  options.margin = margin;
  options.batchGroups = batchGroups;
  options.schedulesPerGroup = schedulesPerGroup;
  options.torchThreads = threads;
  options.stop = &interrupted;

  // Printing: status lines and warnings on stderr, results on stdout; on a
  // terminal (without --quiet) a progress line that later lines clear.
  bool tty = ::isatty(2) && !quiet;
  bool progressShown = false;
  auto clearProgress = [&] {
    if (tty)
      llvm::errs() << "\r\x1b[K";
    progressShown = false;
  };
  options.onMessage = [&](TrainingMessageKind kind, llvm::StringRef text) {
    switch (kind) {
    case TrainingMessageKind::Result:
      llvm::outs() << text << "\n";
      return;
    case TrainingMessageKind::Warning:
      // Keep the featurizing line above the warning.
      if (tty && progressShown)
        llvm::errs() << "\n";
      progressShown = false;
      llvm::errs() << "warning: " << text << "\n";
      return;
    case TrainingMessageKind::Note:
      if (progressShown)
        clearProgress();
      llvm::errs() << text << "\n";
      return;
    }
  };
  auto lastPrint = std::chrono::steady_clock::now();
  options.onProgress = [&](const TrainingRunProgress &p) {
    if (!tty)
      return;
    if (p.phase == TrainingRunProgress::Phase::Featurizing) {
      llvm::errs() << llvm::formatv("\rfeaturizing matrix {0}/{1}: {2}\x1b[K",
                                    p.matrix, p.matrices, p.matrixId);
      progressShown = true;
      return;
    }
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - lastPrint).count() < 0.25)
      return;
    lastPrint = now;
    const TrainProgress &t = p.training;
    llvm::errs() << llvm::formatv(
        "\repoch {0}/{1} step {2}/{3}  loss {4:f4}  {5:f0} schedules/s  ETA "
        "{6}\x1b[K",
        t.epoch, t.epochs, t.step, t.stepsPerEpoch, t.loss, t.samplesPerSecond,
        formatDuration(t.etaSeconds));
    progressShown = true;
  };
  options.onEpoch = [&](const EpochReport &e, llvm::StringRef line) {
    clearProgress();
    if (!quiet || e.epoch == options.epochs)
      llvm::errs() << line << "\n";
  };
  options.onTrainingStart = [] {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  };
  options.onTrainingEnd = [&] { clearProgress(); };

  bool wasInterrupted = false;
  llvm::Error error = llvm::Error::success();
  if (!evaluateModel.empty()) {
    llvm::Expected<EvaluationRunResult> result = runEvaluation(options);
    if (result)
      wasInterrupted = result->interrupted;
    else
      error = result.takeError();
  } else {
    llvm::Expected<TrainingRunResult> result = runTraining(options);
    if (result)
      wasInterrupted = result->interrupted;
    else
      error = result.takeError();
  }
  if (error) {
    if (progressShown)
      clearProgress();
    llvm::errs() << "sptune-train: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return wasInterrupted ? 130 : 0;
}
