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

#include "sptune/CostModel/TrainDriver.h"
#include "sptune/InitAllTargets.h"

#include "llvm/Support/CommandLine.h"

#include <atomic>
#include <csignal>

using namespace sptune;
namespace cl = llvm::cl;

/// The options bind straight to the run's fields (defaults: theirs).
static TrainingRunOptions options;
static cl::OptionCategory category("sptune-train options");
static cl::list<std::string, std::vector<std::string>> dataFiles("data",
                                       cl::desc("dataset (JSONL); repeatable"),
                                       cl::value_desc("file"),
                                       cl::cat(category),
    cl::location(options.dataFiles));
static cl::opt<std::string, true> machineFilter(
    "machine",
    cl::desc("Train on the records of one machine only: its CPU model "
             "(machine.cpu) or its host name (machine.host), exactly as the "
             "dataset has it; by default all, with a warning when the "
             "datasets mix machines"),
    cl::value_desc("cpu-or-host"), cl::cat(category),
    cl::location(options.machine));
static cl::opt<std::string, true> outPath("out", cl::desc("model file to write"),
                                    cl::value_desc("file"), cl::cat(category),
    cl::location(options.outPath));
static cl::opt<std::string, true> targetName("target",
                                       cl::desc("target to train for"),
                                       cl::cat(category),
    cl::location(options.target));
static cl::opt<int, true> epochs("epochs", cl::desc("training epochs"), cl::cat(category),
    cl::location(options.epochs));
static cl::opt<double, true> holdout("holdout",
                               cl::desc("fraction of matrices held out for "
                                        "evaluation (0: none)"),
                               cl::cat(category),
    cl::location(options.holdout));
static cl::opt<uint64_t, true> seed("seed", cl::desc("seed (split, init, batches)"),
                              cl::cat(category),
    cl::location(options.seed));
static cl::opt<std::string, true>
    finetuneFrom("finetune-from",
                 cl::desc("fine-tune this model (COGNATE: frozen matrix "
                          "encoder) instead of training from scratch"),
                 cl::value_desc("model"), cl::cat(category),
    cl::location(options.finetuneFrom));
static cl::opt<bool, true> finetuneScheduleEncoder(
    "finetune-schedule-encoder",
    cl::desc("with --finetune-from: also train the schedule encoder (only "
             "the matrix encoder stays frozen)"),
    cl::cat(category),
    cl::location(options.finetuneScheduleEncoder));
static cl::opt<std::string, true> finetuneFreeze(
    "finetune-freeze",
    cl::desc("with --finetune-from: what stays frozen. encoders (default, "
             "COGNATE): the matrix and schedule encoders and the feature "
             "normalization, only the target's knob autoencoder and the "
             "predictor learn; matrix: only the matrix encoder (same as "
             "--finetune-schedule-encoder); none: everything learns from the "
             "base's weights (consider a lower --lr)"),
    cl::value_desc("encoders|matrix|none"), cl::cat(category),
    cl::location(options.finetuneFreeze));
static cl::opt<bool, true> finetunePretrainAutoencoder(
    "finetune-pretrain-autoencoder",
    cl::desc("with --finetune-from: pre-train the target's knob autoencoder "
             "again (sampled knob settings plus the training schedules) "
             "before fine-tuning, as training from scratch does"),
    cl::cat(category),
    cl::location(options.finetunePretrainAutoencoder));
static cl::opt<std::string, true> ablate(
    "ablate",
    cl::desc("COGNATE ablations of a model trained from scratch, "
             "comma-separated, recorded in the model file: no-config-mapper "
             "(the schedule's common features are zeroed: only the target's "
             "knob code represents it), no-autoencoder (each target's raw "
             "knobs through one linear layer, no autoencoder pre-training or "
             "reconstruction), single-scale (the matrix encoder sees only the "
             "128x128 density image). Fine-tuning keeps the base's ablations"),
    cl::value_desc("list"), cl::cat(category),
    cl::location(options.ablations));
static cl::opt<std::string, true> sharedKnobs(
    "shared-knobs",
    cl::desc("knobs the schedule's common features represent alike for "
             "every target, comma-separated, recorded in the model file: "
             "row-order (the CPU's reorder = rcm and SPADE's reorder set one "
             "feature, rows_reordered). Fine-tuning keeps the base's"),
    cl::value_desc("list"), cl::cat(category),
    cl::location(options.sharedKnobs));
static cl::opt<std::string, true>
    evaluateModel("evaluate",
                  cl::desc("evaluate this model on all the data (no "
                           "training; --out is not needed)"),
                  cl::value_desc("model"), cl::cat(category),
    cl::location(options.evaluateModel));
static cl::opt<std::string, true> upgradeModel(
    "upgrade",
    cl::desc("write this model file again to --out in this build's format, "
             "weights unchanged (adds the plain weights release mode reads; "
             "no data, no training)"),
    cl::value_desc("model"), cl::cat(category),
    cl::location(options.upgradeModel));
static cl::opt<std::string, true>
    checkpointDir("checkpoint-dir",
                  cl::desc("checkpoint every epoch here and resume from it"),
                  cl::value_desc("dir"), cl::cat(category),
    cl::location(options.checkpointDir));
static cl::opt<std::string, true> logPath("log",
                                    cl::desc("write one JSON line per epoch"),
                                    cl::value_desc("file"), cl::cat(category),
    cl::location(options.logPath));
static cl::opt<std::string, true>
    metricsPath("metrics",
                cl::desc("write the held-out metrics as JSON (default: the "
                         "model path with .metrics.json)"),
                cl::value_desc("file"), cl::cat(category),
    cl::location(options.metricsPath));
static cl::opt<std::string, true>
    scoresPath("scores",
               cl::desc("with --evaluate: also write each problem's scores and "
                        "measured times, one JSON line per problem (to "
                        "combine several models' scores offline)"),
               cl::value_desc("file"), cl::cat(category),
    cl::location(options.scoresPath));
static cl::opt<bool, true> noRegression("no-regression",
                                  cl::desc("ranking loss only (no runtime "
                                           "regression; APE not reported)"),
                                  cl::cat(category),
    cl::location(options.noRegression));
static cl::opt<double, true> learningRate("lr", cl::desc("learning rate"),
                                    cl::cat(category),
    cl::location(options.learningRate));
static cl::opt<double, true>
    margin("margin",
           cl::desc("cap of the ranking loss's margin in log time: a faster "
                    "schedule must score min(margin, log t_slow - log t_fast) "
                    "higher (larger: big speedups weigh more)"),
           cl::cat(category),
    cl::location(options.margin));
static cl::opt<int, true> batchGroups("batch-groups",
                                cl::desc("groups (problems) per step"),
                                cl::cat(category),
    cl::location(options.batchGroups));
static cl::opt<int, true>
    schedulesPerGroup("schedules-per-group",
                      cl::desc("schedules drawn per group and step"),
                      cl::cat(category),
    cl::location(options.schedulesPerGroup));
static cl::opt<int, true>
    threads("torch-threads",
            cl::desc("LibTorch threads (0: one per core). One is the default: "
                     "the model is small and more threads spin-wait for each "
                     "other, many times slower on a busy machine"),
            cl::cat(category),
    cl::location(options.torchThreads));
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
  options.stop = &interrupted;
  options.onTrainingStart = [] {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  };
  return runTrainDriver(std::move(options), quiet);
}
