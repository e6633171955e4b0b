//===- sptune-learn.cpp - The active-learning driver ----------------------===//
//
//   sptune-learn MATRICES... --kernel spmm,sddmm --validation VAL.jsonl
//                --budget 300 --rounds 6 --state DIR --out model.pt
//   sptune-learn --replay DATA.jsonl... --rounds-at 1%,2%,5%,10%
//                --strategy bandit --policy thompson --state DIR
//   sptune-learn adapt MATRICES... --validation VAL.jsonl [--budget-seconds
//   300]
//
// `adapt` fine-tunes the shipped model with measurements of this machine
// and writes it where release mode finds it for this machine
// (sptune/CostModel/AdaptedModel.h); its state sits next to it, so the same
// command resumes.
//
// Rounds of: a selection strategy (or a bandit's choice of one) picks what to
// measure within the round's budget, the collector measures it (or a replayed
// dataset reveals it), the model is updated and evaluated on fixed
// validation problems. Checkpointed every round: kill it and run the same
// command to resume. See docs/active-learning.md. The work is
// sptune::runLearnDriver (sptune/Collect/LearnDriver.h); the options bind
// straight to its fields.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/BackendOptions.h"
#include "sptune/Collect/LearnDriver.h"
#include "sptune/CostModel/AdaptedModel.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Support/BoundOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>

using namespace sptune;
namespace cl = llvm::cl;

static LearnDriverOptions run;
static cl::OptionCategory category("sptune-learn options");

static BoundList
    matrixInputs(cl::cat(category), cl::Positional, at(run.matrixInputs),
                 cl::desc("<live pool: .mtx files, directories, gen: "
                          "specs (MTTKRP, batched SpMM: .tns files, gen3: "
                          "specs), "
                          "@file = one per line>..."));
static BoundList replay(cl::cat(category), "replay", at(run.replay),
                   cl::CommaSeparated,
                   cl::desc("Replay these measured datasets (JSONL) instead "
                            "of measuring: choosing a sample reveals its "
                            "stored time and charges its recorded cost"));
static BoundList validation(cl::cat(category), "validation", at(run.validationData),
                       cl::CommaSeparated,
                       cl::desc("Datasets of the fixed validation problems "
                                "(their matrices leave the pool); replay "
                                "default: a matrix split of the replayed data"));
static BoundOpt<double> validationFraction(
    cl::cat(category), "validation-fraction", at(run.validationFraction),
    cl::desc("Replay without --validation: fraction of the matrices held out "
             "for validation (0.2)"));
static BoundOpt<uint64_t> splitSeed(cl::cat(category), "split-seed",
                               at(run.splitSeed),
                               cl::desc("Seed of that split (keep it fixed to "
                                        "compare strategies)"));
static BoundList rewardValidation(
    cl::cat(category), "reward-validation", at(run.rewardData),
    cl::CommaSeparated,
    cl::desc("Datasets of the bandit's reward problems (leave the pool)"));
static BoundOpt<double> rewardFraction(
    cl::cat(category), "reward-fraction", at(run.rewardFraction),
    cl::desc("Replay: fraction of the matrices taken from the pool to "
             "reward the bandit (0.15; 0: validation rewards it)"));
static BoundOpt<std::string> target(cl::cat(category), "target", at(run.target),
                               cl::desc("A registered target (cpu)"));
static BoundList kernels(cl::cat(category), "kernel", at(run.kernels),
                         cl::CommaSeparated,
                         cl::desc("Live: spmm, sddmm, spmv, spgemm, mttkrp, "
                                  "batched_spmm (default spmm)"));
static BoundOpt<int64_t>
    freeSize(cl::cat(category), "free", at(run.free),
             cl::desc("Live: N of SpMM and batched SpMM, K of SDDMM, the "
                      "rank of MTTKRP (64)"));
static BoundOpt<int> elementBits(cl::cat(category), "bits", at(run.elementBits),
                                 cl::desc("Live: the kernels' element width, "
                                          "32 (f32, default) or 64 (f64); a "
                                          "replay learns its data's width"));
static BoundOpt<unsigned> candidates(cl::cat(category), "candidates",
                                at(run.candidates),
                                cl::desc("Live: schedules sampled per problem "
                                         "into the pool (besides the "
                                         "reference and heuristic; 60)"));
static BoundOpt<int64_t> maxNnz(cl::cat(category), "max-nnz", at(run.maxNnz),
                           cl::desc("Live: skip larger matrices"));
static BoundOpt<std::string> strategy(
    cl::cat(category), "strategy", at(run.learn.strategy),
    cl::desc("bandit (default), random, rs2, diversity, uncertainty, "
             "exploitation or exploration"));
static BoundOpt<std::string> policy(cl::cat(category), "policy", at(run.policy),
                                    cl::desc("The bandit's policy: ucb1 or "
                                             "thompson (one arm a round), or "
                                             "hedge (every arm a share of each "
                                             "round, by what its measurements "
                                             "found)"));
static cl::list<std::string> arms(cl::cat(category), "arms", cl::CommaSeparated,
                                  cl::desc("The bandit's strategies (default: "
                                           "exploitation and two mixes of it; a mix: a+b@share)"));
static BoundOpt<std::string> reward(cl::cat(category), "reward", at(run.reward),
                               cl::desc("The bandit's reward: gain in the "
                                        "reward set's top1 (log speedup) or "
                                        "tau, per unit of log cost"));
static BoundOpt<double> banditC(
    cl::cat(category), "bandit-c", at(run.learn.banditOptions.exploration),
    cl::desc("The bandit's exploration constant (UCB1's c; Thompson's "
             "posterior scale; 0.5)"));
static BoundOpt<double> discount(
    cl::cat(category), "discount", at(run.learn.banditOptions.discount),
    cl::desc("Weight of a reward per later round (0.8; 1: none)"));
static BoundOpt<double> hedgeRate(
    cl::cat(category), "hedge-rate", at(run.learn.hedgeRate),
    cl::desc("Hedge's learning rate on round-scaled rewards (1; 0: equal "
             "shares)"));
static BoundOpt<double>
    minShare(cl::cat(category), "hedge-min-share", at(run.learn.hedgeMinShare),
             cl::desc("Hedge: every arm's smallest share of a round (0.05)"));
static BoundOpt<std::string> hedgeReward(
    cl::cat(category), "hedge-reward", at(run.hedgeReward),
    cl::desc("What Hedge rewards an arm for: found (its measurements' gain "
             "over the best times before; default), learned (how much a "
             "gradient step on its measurements lowers the reward set's "
             "loss) or lookahead (how much a few epochs of training with "
             "them raise the reward set's top-1)"));
static BoundOpt<int> lookaheadEpochs(
    cl::cat(category), "lookahead-epochs", at(run.learn.lookaheadEpochs),
    cl::desc("--hedge-reward lookahead: epochs of each copy's training (3)"));
static BoundList roundsAt(cl::cat(category), "rounds-at", at(run.roundsAt),
                     cl::CommaSeparated,
                     cl::desc("Cumulative budget at the end of each round: "
                              "seconds (\"90\", \"90s\") or a percentage of "
                              "the reference cost (\"5%\")"));
static BoundOpt<std::string> budget(cl::cat(category), "budget", at(run.budget),
                               cl::desc("Total budget (seconds or a "
                                        "percentage), split into --rounds "
                                        "equal rounds (instead of "
                                        "--rounds-at)"));
static BoundOpt<unsigned> rounds(cl::cat(category), "rounds", at(run.rounds),
                            cl::desc("Rounds with --budget (6)"));
static BoundOpt<double> referenceCost(
    cl::cat(category), "reference-cost", at(run.referenceCost),
    cl::desc("Seconds that are 100% (replay default: the replayed pool's "
             "whole measurement cost)"));
static BoundOpt<uint64_t> seed(cl::cat(category), "seed", at(run.learn.seed),
                          cl::desc("Seed"));
static BoundOpt<int> initialEpochs(cl::cat(category), "initial-epochs",
                              at(run.learn.initialEpochs),
                              cl::desc("Epochs of the first round's fresh "
                                       "model (30)"));
static BoundOpt<int> epochs(cl::cat(category), "epochs", at(run.learn.roundEpochs),
                       cl::desc("Epochs of each later round (warm start; 10)"));
static BoundOpt<double> lr(cl::cat(category), "lr", at(run.learn.learningRate),
                      cl::desc("Learning rate of a fresh model (2e-3)"));
static BoundOpt<double> warmLr(cl::cat(category), "warm-lr",
                          at(run.learn.warmLearningRate),
                          cl::desc("Learning rate of the warm-started rounds "
                                   "(1e-3)"));
static BoundOpt<bool> retrain(cl::cat(category), "retrain", at(run.learn.retrain),
                         cl::desc("Train from scratch every round "
                                  "(--initial-epochs) instead of warm "
                                  "starting"));
static BoundOpt<size_t> ensemble(cl::cat(category), "ensemble",
                            at(run.learn.strategyOptions.ensembleSize),
                            cl::desc("uncertainty: models in the ensemble (4)"));
static BoundOpt<size_t> perMatrix(cl::cat(category), "per-matrix",
                             at(run.learn.strategyOptions.perMatrix),
                             cl::desc("diversity: schedules per chosen matrix "
                                      "and pass (4)"));
static BoundOpt<double> farShare(cl::cat(category), "far-share",
                            at(run.learn.strategyOptions.farShare),
                            cl::desc("exploration: share of picks far from "
                                     "what was measured (0.3)"));
static BoundOpt<double> rs2Fraction(cl::cat(category), "rs2-fraction",
                               at(run.learn.strategyOptions.rs2Fraction),
                               cl::desc("rs2: fraction of the problems per "
                                        "epoch (0.5)"));
static BoundOpt<std::string> stateDir(cl::cat(category), "state",
                                      at(run.learn.stateDir),
                                      cl::desc("State directory (checkpoints, "
                                               "rounds.jsonl; resumed from). "
                                               "Required, except with adapt"));
static cl::opt<std::string>
    base(cl::cat(category), "base",
         cl::desc("Start from this model and fine-tune it every round "
                  "(\"shipped\": the target's shipped model; adapt's "
                  "default)"));
static cl::opt<std::string> baseFreeze(
    cl::cat(category), "base-freeze", cl::init("encoders"),
    cl::desc("What fine-tuning the base freezes: encoders (default), matrix "
             "or none"));
static cl::opt<double> budgetSeconds(
    cl::cat(category), "budget-seconds", cl::init(300),
    cl::desc("adapt: measurement seconds on this machine, in --rounds "
             "rounds, unless --budget or --rounds-at (300)"));
static BoundOpt<std::string> out(cl::cat(category), "out", at(run.learn.outPath),
                            cl::desc("The final model (default: "
                                     "STATE/final.pt)"));
static BoundOpt<std::string> dataset(cl::cat(category), "dataset", at(run.dataset),
                                cl::desc("Live: where measurements are "
                                         "appended (default: "
                                         "STATE/measurements.jsonl)"));
static BoundOpt<unsigned> workers(cl::cat(category), "workers", at(run.workers),
                             cl::desc("Live: measurement workers (1)"));
static BoundOpt<double> timeout(cl::cat(category), "timeout", at(run.timeout),
                           cl::desc("Live: seconds per measurement (60)"));
static BoundOpt<double> minSeconds(cl::cat(category), "min-seconds",
                              at(run.minSeconds),
                              cl::desc("Live: minimum timed seconds per "
                                       "measurement (0.05)"));
static BoundOpt<int> minReps(cl::cat(category), "min-reps", at(run.minReps),
                        cl::desc("Live: minimum repetitions (3)"));
static BoundOpt<std::string> worker(cl::cat(category), "worker-exe",
                               at(run.workerExe),
                               cl::desc("Live: sptune-measure executable"));
static BoundOpt<bool> quiet(cl::cat(category), "quiet", at(run.quiet),
                       cl::desc("No progress line"));
/// Live: --backend local|slurm and --slurm-* (docs/cluster.md).
static BackendCommandLine backendOptions(category);

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

/// Fills in what `sptune-learn adapt` implies once the base is loaded: this
/// machine's model path, a state directory per base (a new shipped model
/// starts a new adaptation instead of refusing the old state), the budget
/// in seconds, and every kernel the model knows. Returns "" or why it
/// cannot.
static std::string applyAdaptDefaults(TargetKind target) {
  std::string model = adaptedModelPath(target);
  if (model.empty())
    return "adapt writes under ${XDG_CACHE_HOME:-$HOME/.cache}/sptune/models, "
           "and neither variable is set";
  if (run.learn.outPath.empty())
    run.learn.outPath = model;
  if (run.learn.stateDir.empty())
    run.learn.stateDir = model + ".state-" +
                         modelIdentity(run.learn.baseModelBytes).substr(6, 8);
  if (run.budget.empty() && run.roundsAt.empty()) {
    if (!(budgetSeconds > 0))
      return "--budget-seconds must be positive";
    run.budget = std::to_string(budgetSeconds.getValue());
  }
  if (run.kernels.empty())
    run.kernels = {"spmm", "sddmm", "spmv"};
  run.learn.toolName = "sptune-learn adapt";
  return "";
}

/// Loads --base into the loop's options.
static std::string applyBase(TargetKind target) {
  if (base.empty())
    return "";
  std::optional<FinetuneFreeze> freeze = parseFinetuneFreeze(baseFreeze);
  if (!freeze)
    return "unknown --base-freeze '" + baseFreeze +
           "' (encoders, matrix or none)";
  run.learn.baseFreeze = *freeze;
  if (base == "shipped") {
    std::string what;
    llvm::Expected<std::string> bytes = shippedModelBytes(target, what);
    if (!bytes)
      return "the shipped model: " + llvm::toString(bytes.takeError());
    run.learn.baseModelBytes = std::move(*bytes);
    run.learn.baseModelName = what;
    return "";
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(base);
  if (!file)
    return "cannot read --base '" + base + "': " + file.getError().message();
  run.learn.baseModelBytes = (*file)->getBuffer().str();
  run.learn.baseModelName = base;
  return "";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // `sptune-learn adapt ...`: the same options, with adapt's defaults.
  bool adapt = argc > 1 && llvm::StringRef(argv[1]) == "adapt";
  std::vector<char *> args(argv, argv + argc);
  if (adapt)
    args.erase(args.begin() + 1);
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              "sptune active-learning driver\n");
  registerAllTargets();
  std::optional<TargetKind> target = parseTargetKind(run.target);
  if (!target) {
    llvm::errs() << "sptune-learn: unknown target '" << run.target << "'\n";
    return 2;
  }
  std::string why;
  if (llvm::is_contained(run.matrixInputs, "adapt") &&
      !llvm::sys::fs::exists("adapt"))
    why = "'adapt' must come first: sptune-learn adapt [options] [matrices]";
  else if (adapt && *target != TargetKind::CPU)
    why = "adapt adapts the CPU model (its machine key names the CPU); for "
          "another target use sptune-learn --base";
  else if (!adapt && budgetSeconds.getNumOccurrences())
    why = "--budget-seconds is adapt's; give --budget (with --rounds) or "
          "--rounds-at";
  if (why.empty() && adapt && base.empty())
    base = "shipped";
  if (why.empty())
    why = applyBase(*target);
  if (why.empty() && adapt)
    why = applyAdaptDefaults(*target);
  if (why.empty() && run.learn.stateDir.empty())
    why = "--state DIR is required (adapt has a default)";
  if (!why.empty()) {
    llvm::errs() << "sptune-learn: " << why << "\n";
    return 2;
  }
  if (adapt)
    llvm::errs() << "sptune-learn: adapting the model to this machine ("
                 << machineModelKey() << "); it will be written to "
                 << run.learn.outPath << "\n";
  if (!arms.empty())
    run.learn.arms.assign(arms.begin(), arms.end());
  run.makeBackend = [](const WorkerOptions &w, const std::string &dataset) {
    return backendOptions.create(w, dataset);
  };
  run.beforeLoop = [] {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  };
  std::string out = run.learn.outPath,
              baseIdentity = run.learn.baseModelBytes.empty()
                                 ? std::string()
                                 : modelIdentity(run.learn.baseModelBytes);
  LearnDriverOutcome outcome;
  run.outcome = &outcome;
  int status = runLearnDriver(std::move(run), interrupted);
  if (status != 0 || !adapt)
    return status;
  // Release mode uses an adapted model only next to the record of the
  // model it was adapted from (sptune/CostModel/AdaptedModel.h), and adapt
  // writes that record only for a model that beats the heuristic it would
  // replace on the validation problems (matrices it never trained on).
  llvm::sys::fs::remove(adaptedBaseRecordPath(out));
  if (!outcome.modelTop1 || !outcome.heuristicTop1) {
    llvm::errs() << "sptune-learn: the validation problems have no "
                    "measured heuristic and MLIR default to judge the "
                    "adapted model by; release mode keeps the shipped model "
                    "(use the adapted one with model="
                 << out << ")\n";
    return 0;
  }
  if (*outcome.modelTop1 < *outcome.heuristicTop1) {
    llvm::errs() << llvm::formatv(
        "sptune-learn: on the {0} validation problems the adapted model's "
        "picks are {1:f3}x the MLIR default and the heuristic's {2:f3}x: "
        "release mode keeps the shipped model (use the adapted one with "
        "model={3})\n",
        outcome.problems, *outcome.modelTop1, *outcome.heuristicTop1, out);
    return 0;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream record(adaptedBaseRecordPath(out), ec);
    if (ec) {
      llvm::errs() << "sptune-learn: cannot write "
                   << adaptedBaseRecordPath(out) << ": " << ec.message()
                   << "\n";
      return 2;
    }
    record << baseIdentity << "\n";
  }
  llvm::errs() << llvm::formatv(
      "sptune-learn: on the {0} validation problems the adapted model's "
      "picks are {1:f3}x the MLIR default and the heuristic's {2:f3}x: "
      "release mode on this machine uses it\n",
      outcome.problems, *outcome.modelTop1, *outcome.heuristicTop1);
  return 0;
}
