//===- TrainingRun.cpp - A whole training or evaluation run ---------------===//
//
// Part of sptune. Reading, featurizing, splitting, training, evaluating and
// writing, through the public cost-model functions (which guard LibTorch
// themselves); nothing here calls LibTorch.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/TrainingRun.h"

#include "TextFile.h"

#include "sptune/Config.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/Model.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Target/Target.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <utility>

using namespace sptune;

std::string sptune::formatDuration(double seconds) {
  auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600)
    return llvm::formatv("{0}h{1:2}m", s / 3600, (s / 60) % 60).str();
  if (s >= 60)
    return llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str();
  return llvm::formatv("{0:f1}s", seconds).str();
}

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The items of a comma-separated list (none for an empty string).
std::vector<std::string> splitList(llvm::StringRef list) {
  std::vector<std::string> items;
  llvm::SmallVector<llvm::StringRef> parts;
  if (!list.empty())
    list.split(parts, ',');
  for (llvm::StringRef part : parts)
    items.push_back(part.trim().str());
  return items;
}

llvm::json::Value optional(std::optional<double> v) {
  return v ? llvm::json::Value(*v) : llvm::json::Value(nullptr);
}

llvm::json::Object metricsObject(const EvaluationReport &r) {
  return llvm::json::Object{{"groups", static_cast<int64_t>(r.groups)},
                            {"samples", static_cast<int64_t>(r.samples)},
                            {"kendall_tau", r.tau},
                            {"pair_accuracy", optional(r.pairAccuracy)},
                            {"mape", optional(r.mape)},
                            {"top1_speedup", optional(r.top1)},
                            {"top5_speedup", optional(r.top5)},
                            {"oracle_speedup", optional(r.oracle)}};
}

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Every measured schedule of the training groups: what the knob
/// autoencoders are pre-trained on, next to sampled knob settings.
std::vector<Schedule> schedulesOf(const std::vector<SampleGroup> &train) {
  std::vector<Schedule> schedules;
  for (const SampleGroup &g : train)
    for (const MeasuredSchedule &m : g.samples)
      schedules.push_back(m.schedule);
  return schedules;
}

bool stopRequested(const TrainingRunOptions &options) {
  return options.stop && options.stop->load();
}

/// Reports the run's messages through the options' callback and keeps its
/// warnings.
class Reporter {
public:
  Reporter(const TrainingRunOptions &options,
           std::vector<std::string> &warnings)
      : options(options), warnings(warnings) {}

  void note(const llvm::Twine &text) const {
    emit(TrainingMessageKind::Note, text.str());
  }
  void result(const llvm::Twine &text) const {
    emit(TrainingMessageKind::Result, text.str());
  }
  void warning(const llvm::Twine &text) const {
    std::string s = text.str();
    warnings.push_back(s);
    emit(TrainingMessageKind::Warning, s);
  }
  /// Warns about the problems of `which` the model failed to score (left
  /// out of the metrics); says nothing when it scored them all.
  void failedGroups(const ModelEvaluation &r, const char *which) const {
    if (r.unmodeledGroups)
      note(llvm::Twine(static_cast<uint64_t>(r.unmodeledGroups)) +
           " problem(s) of the " + which +
           " are of kernels the model has no feature for; they are left "
           "out of the metrics");
    if (r.failedGroups)
      warning(llvm::Twine("the model failed to score ") +
              llvm::Twine(static_cast<uint64_t>(r.failedGroups)) +
              " problem(s) of the " + which +
              "; they are left out of the metrics (first: " + r.firstError +
              ")");
  }

private:
  void emit(TrainingMessageKind kind, const std::string &text) const {
    if (options.onMessage)
      options.onMessage(kind, text);
  }

  const TrainingRunOptions &options;
  std::vector<std::string> &warnings;
};

/// Checks the options both runs share (and, for training, that the model
/// can be written) in `sptune-train`'s order; returns the target.
llvm::Expected<TargetKind> checkOptions(const TrainingRunOptions &options,
                                        bool training) {
  if (options.dataFiles.empty())
    return failure("no dataset given (use --data FILE, repeatable)");
  if (training && options.outPath.empty())
    return failure("no output model given (use --out FILE)");
  if (training)
    if (std::string why = whyNotReplaceable(options.outPath); !why.empty())
      return failure("--out: cannot write " + why);
  if (!training && options.evaluateModel.empty())
    return failure("no model to evaluate given (use --evaluate FILE)");
  if (training && !options.scoresPath.empty())
    return failure("--scores needs --evaluate (it writes an evaluated "
                   "model's scores)");
  std::optional<TargetKind> target = parseTargetKind(options.target);
  if (!target)
    return failure("unknown target '" + options.target +
                   "' (expected " + TargetRegistry::names() + ")");
  // Bounds on what sets work and threads (issue 13 probe: 10^9 epochs and
  // 10^6 LibTorch threads ran on past any timeout, -3 threads was taken).
  if (options.epochs < 1 || options.epochs > 100000)
    return failure("--epochs must be in [1, 100000]");
  if (options.torchThreads < 0 || options.torchThreads > 1024)
    return failure("--torch-threads must be in [0, 1024] (0: one per core)");
  if (options.batchGroups > 100000 || options.schedulesPerGroup > 100000)
    return failure("--batch-groups and --schedules-per-group must be at most "
                   "100000");
  if (!(options.holdout >= 0 && options.holdout < 1))
    return failure("--holdout must be in [0, 1)");
  if (!(options.margin >= 0 && options.margin <= 10))
    return failure("--margin must be in [0, 10] (log time)");
  if (options.batchGroups < 1 || options.schedulesPerGroup < 2 ||
      !(options.learningRate > 0))
    return failure("--batch-groups >= 1, --schedules-per-group >= 2 and --lr "
                   "> 0 are required");
  ModelConfig ablated;
  if (llvm::Error e = parseAblationList(options.ablations, ablated))
    return failure("--ablate: " + llvm::toString(std::move(e)));
  if (!options.finetuneFreeze.empty()) {
    std::optional<FinetuneFreeze> freeze =
        parseFinetuneFreeze(options.finetuneFreeze);
    if (!freeze)
      return failure("--finetune-freeze: unknown value '" +
                     options.finetuneFreeze +
                     "' (expected encoders, matrix or none)");
    if (options.finetuneScheduleEncoder && *freeze != FinetuneFreeze::Matrix)
      return failure("--finetune-schedule-encoder is --finetune-freeze=matrix; "
                     "it contradicts --finetune-freeze=" +
                     options.finetuneFreeze);
    if (training && options.finetuneFrom.empty())
      return failure("--finetune-freeze needs --finetune-from");
  }
  if (options.finetunePretrainAutoencoder && options.finetuneFrom.empty())
    return failure("--finetune-pretrain-autoencoder needs --finetune-from");
  if (!training && !options.ablations.empty())
    return failure("--ablate applies to training; an evaluated model uses "
                   "the ablations recorded in its file");
  for (const std::string &knob : splitList(options.sharedKnobs)) {
    const std::vector<std::string> &known = sharedKnobNames();
    if (std::find(known.begin(), known.end(), knob) == known.end())
      return failure("--shared-knobs: '" + knob +
                     "' is not a knob targets share (known: " +
                     llvm::join(known, ", ") + ")");
  }
  if (!training && !options.sharedKnobs.empty())
    return failure("--shared-knobs applies to training; an evaluated model "
                   "uses the shared knobs recorded in its file");
  if (training) {
    // Fail now rather than after training when the model cannot be written.
    llvm::SmallString<256> dir(options.outPath);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    if (!llvm::sys::fs::is_directory(dir) ||
        llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write))
      return failure("cannot write the model to '" + options.outPath +
                     "': its directory does not exist or is not writable");
  }
  return *target;
}

/// The target's groups whose matrices could be loaded, and their features.
struct PreparedData {
  std::vector<SampleGroup> groups;
  FeatureTable features;
  bool interrupted = false;
};

/// Reads the datasets and featurizes their matrices, once per matrix.
llvm::Expected<PreparedData> readAndFeaturize(const TrainingRunOptions &options,
                                              TargetKind target,
                                              DatasetRunSummary &summary,
                                              const Reporter &report) {
  PreparedData data;
  DatasetReader reader;
  reader.setMachineFilter(options.machine);
  for (const std::string &file : options.dataFiles)
    if (llvm::Error e = reader.addFile(file))
      return std::move(e);
  const DatasetCounts &counts = reader.counts();
  if (!options.machine.empty()) {
    // In the words of sptune-train's option.
    report.note("--machine " + options.machine + ": kept " +
                llvm::Twine(static_cast<uint64_t>(counts.lines)) +
                " record(s), left out " +
                llvm::Twine(static_cast<uint64_t>(counts.otherMachine)));
    if (counts.lines == 0)
      return failure("no record was measured on '" + options.machine + "'");
  }
  summary.counts = counts;
  report.note(llvm::Twine("read ") +
              llvm::Twine(static_cast<uint64_t>(options.dataFiles.size())) +
              " dataset(s): " + counts.summary());
  summary.skippedLines =
      counts.unparsable + counts.unsupportedSchema + counts.badSchedule;
  if (summary.skippedLines)
    report.warning(llvm::Twine("skipped ") +
                   llvm::Twine(static_cast<uint64_t>(summary.skippedLines)) +
                   " line(s) that could not be used");
  if (counts.samples == 0)
    return failure("the datasets hold no usable schedule measurement (" +
                   std::to_string(counts.lines) + " lines read)");
  data.groups = filterTarget(reader.groups(), target);
  if (data.groups.empty())
    return failure(std::string("the datasets hold no successful measurement "
                               "for target '") +
                   toString(target) + "'");
  if (std::string why = whyMixedElementWidths(data.groups); !why.empty())
    return failure(why);

  std::map<std::string, std::string> sources;
  for (const SampleGroup &g : data.groups)
    sources.emplace(g.matrix.id, g.matrix.source);
  std::set<std::string> unloadable;
  auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  for (const auto &[id, source] : sources) {
    if (stopRequested(options)) {
      data.interrupted = true;
      return std::move(data);
    }
    ++done;
    if (options.onProgress) {
      TrainingRunProgress p;
      p.phase = TrainingRunProgress::Phase::Featurizing;
      p.matrix = done;
      p.matrices = sources.size();
      p.matrixId = id;
      options.onProgress(p);
    }
    MeasuredOperand operand;
    std::string error;
    if (source.empty() ||
        takeErrorMessage(loadMeasuredOperand(source, operand), error)) {
      report.warning("cannot load matrix '" + id + "' (" +
                     (source.empty() ? "no source recorded" : error) +
                     "); skipping its measurements");
      unloadable.insert(id);
      summary.unloadableMatrices.push_back(id);
      continue;
    }
    data.features[id] = featurizeOperand(operand);
  }
  summary.featurizedMatrices = data.features.size();
  report.note(
      llvm::formatv("featurized {0} matrices in {1}", data.features.size(),
                    formatDuration(std::chrono::duration<double>(
                                       std::chrono::steady_clock::now() - start)
                                       .count())));
  llvm::erase_if(data.groups, [&](const SampleGroup &g) {
    return unloadable.count(g.matrix.id) != 0;
  });
  if (data.groups.empty())
    return failure("none of the datasets' matrices could be loaded");
  summary.groups = data.groups.size();
  return std::move(data);
}

/// The position of `target` among the targets `model` is built for; their
/// count when it is not one of them.
size_t targetSlot(const Model &model, TargetKind target) {
  const std::vector<std::string> &built = model.info().config.targets;
  return static_cast<size_t>(
      std::find(built.begin(), built.end(), toString(target)) - built.begin());
}

/// The base model: for fine-tuning, `loaded` (options.finetuneFrom's)
/// checked; else created and its knob autoencoders pre-trained on the
/// training schedules.
llvm::Expected<std::unique_ptr<Model>>
baseModel(const TrainingRunOptions &options, TargetKind target,
          std::unique_ptr<Model> loaded, const std::vector<SampleGroup> &train,
          const std::vector<SampleGroup> &all, TrainingRunResult &result,
          const Reporter &report) {
  std::string error;
  if (!options.finetuneFrom.empty()) {
    std::unique_ptr<Model> model = std::move(loaded);
    if (model->info().trainedTargets.empty())
      return failure("'" + options.finetuneFrom +
                     "' is an untrained model; fine-tuning needs a trained "
                     "base");
    const std::vector<std::string> &built = model->info().config.targets;
    if (targetSlot(*model, target) == built.size())
      return failure("'" + options.finetuneFrom +
                     "' has no knob coding for target '" + toString(target) +
                     "' (it was built for " + llvm::join(built, ", ") +
                     "); fine-tuning keeps the base's architecture");
    if (!options.ablations.empty()) {
      ModelConfig wanted = model->info().config;
      // Checked up front (checkOptions).
      llvm::consumeError(parseAblationList(options.ablations, wanted));
      if (ablationList(wanted) != ablationList(model->info().config))
        return failure(
            "--ablate " + ablationList(wanted) + " differs from the base "
            "model's ablations (" +
            (model->info().config.hasAblations()
                 ? ablationList(model->info().config)
                 : std::string("none")) +
            "): fine-tuning keeps the base's architecture; pre-train a base "
            "with the same --ablate");
    }
    if (!options.sharedKnobs.empty() &&
        splitList(options.sharedKnobs) != model->info().config.sharedKnobs)
      return failure("--shared-knobs " + options.sharedKnobs +
                     " differs from the base model's (" +
                     (model->info().config.sharedKnobs.empty()
                          ? std::string("none")
                          : llvm::join(model->info().config.sharedKnobs, ",")) +
                     "): fine-tuning keeps the base's architecture");
    if (options.finetunePretrainAutoencoder &&
        !model->info().config.noAutoencoder) {
      std::vector<Schedule> schedules = schedulesOf(train);
      PretrainOptions pre;
      pre.seed = options.seed;
      pre.only = target;
      pre.reinitialize = true;
      llvm::Expected<std::vector<double>> errs =
          pretrainAutoencoders(*model, schedules, pre);
      if (!errs)
        return errs.takeError();
      report.note(llvm::formatv("re-initialized and pre-trained the {0} knob "
                                "autoencoder (reconstruction "
                                "error "
                                "{1:e2})",
                                toString(target),
                                (*errs)[targetSlot(*model, target)]));
    }
    // A target the base never trained for: its knob code starts at zero
    // (zeroKnobCode), unless it was just pre-trained again above.
    if (!options.finetunePretrainAutoencoder &&
        !model->isTrainedFor(target)) {
      if (llvm::Error e = zeroKnobCode(*model, target))
        return std::move(e);
      report.note(std::string("the base was never trained for '") +
                  toString(target) +
                  "': its knob code starts at zero for every setting");
    }
    report.note("fine-tuning '" + options.finetuneFrom + "' for target '" +
                toString(target) + "'" +
                (model->info().config.hasAblations()
                     ? " (ablations: " + ablationList(model->info().config) +
                           ")"
                     : std::string()));
    return std::move(model);
  }
  ModelConfig config;
  if (llvm::Error e = parseAblationList(options.ablations, config))
    return failure("--ablate: " + llvm::toString(std::move(e)));
  // Every kernel of the data, held-out problems' too, gets a position.
  std::vector<KernelType> kernels;
  for (const SampleGroup &g : all)
    kernels.push_back(g.kernel);
  config.kernels = modelKernelsFor(kernels);
  config.sharedKnobs = splitList(options.sharedKnobs);
  if (!config.sharedKnobs.empty())
    report.note("shared knobs: " + llvm::join(config.sharedKnobs, ","));
  if (config.hasAblations())
    report.note("ablations: " + ablationList(config));
  std::unique_ptr<Model> model = Model::create(config, options.seed, &error);
  if (!model)
    return failure(error);
  std::vector<Schedule> schedules = schedulesOf(train);
  PretrainOptions pre;
  pre.seed = options.seed;
  llvm::Expected<std::vector<double>> errs =
      pretrainAutoencoders(*model, schedules, pre);
  if (!errs)
    return errs.takeError();
  std::string errors;
  for (double e : *errs)
    errors += (errors.empty() ? "" : " / ") + llvm::formatv("{0:e2}", e).str();
  report.note("pre-trained knob autoencoders (reconstruction error " + errors +
              ")");
  result.reconstructionErrors = std::move(*errs);
  return std::move(model);
}

} // namespace

llvm::Error sptune::upgradeModelFile(const TrainingRunOptions &options) {
  if (options.outPath.empty())
    return failure("--upgrade needs --out (the file to write)");
  // An upgrade rewrites the file's weights and configuration unchanged:
  // options that would shape a model are refused rather than ignored.
  for (const auto &[given, name] :
       {std::pair{!options.sharedKnobs.empty(), "--shared-knobs"},
        std::pair{!options.ablations.empty(), "--ablate"},
        std::pair{!options.finetuneFrom.empty(), "--finetune-from"},
        std::pair{!options.finetuneFreeze.empty(), "--finetune-freeze"},
        std::pair{options.finetuneScheduleEncoder,
                  "--finetune-schedule-encoder"},
        std::pair{options.finetunePretrainAutoencoder,
                  "--finetune-pretrain-autoencoder"},
        std::pair{!options.evaluateModel.empty(), "--evaluate"}})
    if (given)
      return failure(std::string(name) +
                     " does not combine with --upgrade (an upgraded model "
                     "keeps the configuration recorded in its file)");
  std::string error;
  std::unique_ptr<Model> model = Model::load(options.upgradeModel, error);
  if (!model || !model->save(options.outPath, error))
    return failure(error);
  return llvm::Error::success();
}

llvm::Expected<EvaluationRunResult>
sptune::runEvaluation(const TrainingRunOptions &options) {
  llvm::Expected<TargetKind> target = checkOptions(options, false);
  if (!target)
    return target.takeError();
  EvaluationRunResult result;
  Reporter report(options, result.warnings);
  llvm::Expected<PreparedData> data =
      readAndFeaturize(options, *target, result.data, report);
  if (!data)
    return data.takeError();
  if (data->interrupted) {
    result.interrupted = true;
    return std::move(result);
  }

  std::string error;
  std::unique_ptr<Model> model = Model::load(options.evaluateModel, error);
  if (!model)
    return failure(error);
  // A model never trained for the target still ranks its schedules (with
  // the target's untrained autoencoder): zero-shot evaluation, e.g. the CPU
  // model on a simulator's data, is intended, but is said so.
  const std::vector<TargetKind> &trained = model->info().trainedTargets;
  result.zeroShot =
      std::find(trained.begin(), trained.end(), *target) == trained.end();
  if (result.zeroShot) {
    std::string names;
    for (TargetKind t : trained)
      names += (names.empty() ? "" : ", ") + std::string(toString(t));
    report.note(std::string("model was not trained for target '") +
                toString(*target) +
                "' (trained: " + (names.empty() ? "none" : names) +
                "): zero-shot evaluation");
  }
  result.evaluation = evaluate(*model, data->groups, data->features);
  report.result("evaluated '" + options.evaluateModel + "' on all " +
                llvm::Twine(static_cast<uint64_t>(result.evaluation.groups)) +
                " problem(s): " + result.evaluation.summary());
  report.failedGroups(result.evaluation, "data");
  if (!options.metricsPath.empty()) {
    std::string json = result.evaluation.toJson();
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
    if (value && value->getAsObject()) {
      value->getAsObject()->try_emplace("zero_shot", result.zeroShot);
      json.clear();
      llvm::raw_string_ostream os(json);
      os << llvm::formatv("{0:2}", *value);
    } else if (!value) {
      llvm::consumeError(value.takeError());
    }
    if (llvm::Error e = writeTextFile(options.metricsPath, json + "\n"))
      return std::move(e);
    result.metricsPath = options.metricsPath;
  }
  if (!options.scoresPath.empty())
    if (llvm::Error e = writeTextFile(options.scoresPath,
                                      result.evaluation.toScoresJsonl()))
      return std::move(e);
  return std::move(result);
}

llvm::Expected<TrainingRunResult>
sptune::runTraining(const TrainingRunOptions &options) {
  llvm::Expected<TargetKind> target = checkOptions(options, true);
  if (!target)
    return target.takeError();
  TrainingRunResult result;
  Reporter report(options, result.warnings);
  llvm::Expected<PreparedData> data =
      readAndFeaturize(options, *target, result.data, report);
  if (!data)
    return data.takeError();
  if (data->interrupted) {
    result.interrupted = true;
    return std::move(result);
  }
  // A base model keeps its kernels: problems of kernels it has no feature
  // for (SpGEMM, for a model of the default three) leave the data before
  // it is split and counted, as a dataset leaves out those of kernels no
  // model has.
  std::unique_ptr<Model> base;
  if (!options.finetuneFrom.empty()) {
    std::string error;
    base = Model::load(options.finetuneFrom, error);
    if (!base)
      return failure(error);
    size_t before = data->groups.size();
    llvm::erase_if(data->groups, [&](const SampleGroup &g) {
      return !base->hasKernel(g.kernel);
    });
    const std::vector<std::string> &kernels = base->info().config.kernels;
    if (size_t unmodeled = before - data->groups.size())
      report.note(llvm::formatv(
          "left out {0} problem(s) of kernels the model has no feature for "
          "(it is built for {1})",
          unmodeled, llvm::join(kernels, ", ")));
    if (data->groups.empty())
      return failure("no problem of a kernel '" + options.finetuneFrom +
                     "' has a feature for (it is built for " +
                     llvm::join(kernels, ", ") + ")");
  }
  const std::vector<SampleGroup> &groups = data->groups;
  const FeatureTable &features = data->features;

  // Split by matrix.
  DatasetSplit split = splitByMatrix(groups, options.holdout, options.seed);
  std::vector<SampleGroup> train, test;
  for (size_t i : split.train) {
    result.trainSamples += groups[i].samples.size();
    train.push_back(groups[i]);
  }
  for (size_t i : split.test) {
    result.heldOutSamples += groups[i].samples.size();
    test.push_back(groups[i]);
  }
  result.trainMatrices = split.trainMatrices.size();
  result.trainGroups = train.size();
  result.heldOutGroups = test.size();
  result.heldOutMatrices = split.testMatrices;
  report.note(llvm::formatv(
      "train: {0} matrices, {1} problems, {2} schedules; held out: {3} "
      "matrices, {4} problems, {5} schedules",
      split.trainMatrices.size(), train.size(), result.trainSamples,
      split.testMatrices.size(), test.size(), result.heldOutSamples));

  // The model.
  llvm::Expected<std::unique_ptr<Model>> loaded = baseModel(
      options, *target, std::move(base), train, groups, result, report);
  if (!loaded)
    return loaded.takeError();
  std::unique_ptr<Model> model = std::move(*loaded);

  // Training.
  std::unique_ptr<llvm::raw_fd_ostream> log;
  if (!options.logPath.empty()) {
    std::error_code ec;
    log = std::make_unique<llvm::raw_fd_ostream>(options.logPath, ec,
                                                 llvm::sys::fs::OF_Append);
    if (ec)
      return failure("cannot write the log '" + options.logPath +
                     "': " + ec.message());
  }
  TrainOptions trainOptions;
  trainOptions.target = *target;
  trainOptions.epochs = options.epochs;
  trainOptions.groupsPerBatch = options.batchGroups;
  trainOptions.schedulesPerGroup = options.schedulesPerGroup;
  trainOptions.learningRate = options.learningRate;
  trainOptions.margin = options.margin;
  trainOptions.seed = options.seed;
  trainOptions.finetune = !options.finetuneFrom.empty();
  trainOptions.finetuneScheduleEncoder = options.finetuneScheduleEncoder;
  if (!options.finetuneFreeze.empty())
    trainOptions.finetuneFreeze =
        *parseFinetuneFreeze(options.finetuneFreeze); // checked above
  trainOptions.checkpointDir = options.checkpointDir;
  trainOptions.threads =
      options.torchThreads > 0
          ? options.torchThreads
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.noRegression)
    trainOptions.regressionWeight = 0;
  trainOptions.stop = options.stop;
  trainOptions.onResume = [&](int epoch) {
    report.note("resuming from the checkpoint of epoch " + llvm::Twine(epoch) +
                " in '" + options.checkpointDir + "'");
  };
  if (options.onProgress)
    trainOptions.onProgress = [&](const TrainProgress &p) {
      TrainingRunProgress progress;
      progress.phase = TrainingRunProgress::Phase::Training;
      progress.training = p;
      options.onProgress(progress);
    };
  trainOptions.onEpoch = [&](const EpochReport &e) {
    std::string line = llvm::formatv(
        "epoch {0}/{1}: loss {2:f4} (rank {3:f4}, regression {4:f4}, "
        "reconstruction {5:f5}) in {6}",
        e.epoch, options.epochs, e.loss, e.rankLoss, e.regressionLoss,
        e.reconstructionLoss, formatDuration(e.seconds));
    if (e.validation && e.validation->groups)
      line += llvm::formatv(
          "; held-out tau {0:f3}, top-1 {1}", e.validation->tau,
          e.validation->top1
              ? llvm::formatv("{0:f3}x", *e.validation->top1).str()
              : std::string("n/a"));
    if (options.onEpoch)
      options.onEpoch(e, line);
    if (e.validation)
      report.failedGroups(*e.validation, "held-out matrices");
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
  if (options.onTrainingStart)
    options.onTrainingStart();
  TrainResult trained =
      sptune::train(*model, train, features, trainOptions, &test);
  if (options.onTrainingEnd)
    options.onTrainingEnd();
  if (!trained.ok)
    return failure(trained.error);
  result.epochs = trained.epochs;
  result.resumedFrom = trained.resumedFrom;
  result.seconds = trained.seconds;
  result.history = std::move(trained.history);
  if (trained.interrupted) {
    result.interrupted = true;
    report.note("interrupted after epoch " + llvm::Twine(trained.epochs) +
                "; " +
                (options.checkpointDir.empty()
                     ? std::string("no --checkpoint-dir, progress is lost")
                     : "rerun the same command to resume from '" +
                           options.checkpointDir + "'"));
    return std::move(result);
  }
  report.note(llvm::formatv("trained {0} epochs in {1}", trained.epochs,
                            formatDuration(trained.seconds)));

  // Evaluation and outputs.
  result.train = evaluate(*model, train, features);
  result.heldOut = evaluate(*model, test, features);
  report.result("training matrices: " + result.train.summary());
  if (result.heldOut.groups)
    report.result("held-out matrices: " + result.heldOut.summary());
  else if (!result.heldOut.failedGroups)
    report.result("held-out matrices: none (--holdout 0)");
  report.failedGroups(result.train, "training matrices");
  report.failedGroups(result.heldOut, "held-out matrices");

  llvm::json::Array dataArray, heldOut;
  for (const std::string &f : options.dataFiles)
    dataArray.push_back(f);
  for (const std::string &id : split.testMatrices)
    heldOut.push_back(id);
  llvm::json::Object provenance{
      {"tool", options.toolName},
      {"version", SPTUNE_VERSION},
      {"time", nowUtc()},
      {"data", std::move(dataArray)},
      {"target", toString(*target)},
      {"epochs", static_cast<int64_t>(options.epochs)},
      {"seed", static_cast<int64_t>(options.seed)},
      {"holdout", options.holdout},
      {"regression", !options.noRegression},
      {"lr", options.learningRate},
      {"margin", options.margin},
      {"finetune_from", options.finetuneFrom.empty()
                            ? llvm::json::Value(nullptr)
                            : llvm::json::Value(options.finetuneFrom)},
      {"finetune_freeze",
       options.finetuneFrom.empty()
           ? llvm::json::Value(nullptr)
           : llvm::json::Value(toString(trainOptions.finetuneScheduleEncoder
                                            ? FinetuneFreeze::Matrix
                                            : trainOptions.finetuneFreeze))},
      {"ablations", ablationList(model->info().config)},
      {"finetune_pretrain_autoencoder", options.finetunePretrainAutoencoder},
      {"train_matrices", static_cast<int64_t>(split.trainMatrices.size())},
      {"train_samples", static_cast<int64_t>(result.trainSamples)},
      {"heldout_matrices", std::move(heldOut)},
      {"heldout", metricsObject(result.heldOut)}};
  // (Only in models that have shared knobs, as their configuration's key.)
  if (!model->info().config.sharedKnobs.empty())
    provenance["shared_knobs"] =
        llvm::join(model->info().config.sharedKnobs, ",");
  std::string provenanceText;
  llvm::raw_string_ostream(provenanceText)
      << llvm::json::Value(llvm::json::Object(provenance));
  model->info().provenance = provenanceText;

  std::string error;
  if (!model->save(options.outPath, error))
    return failure(error);
  result.modelPath = options.outPath;
  result.modelBytes = model->serialize().size();
  result.parameters = model->parameterCount();
  report.note(llvm::formatv("wrote {0} ({1} KiB, {2} parameters)",
                            options.outPath, result.modelBytes / 1024,
                            result.parameters));

  std::string metricsFile = options.metricsPath;
  if (metricsFile.empty()) {
    llvm::SmallString<256> p(options.outPath);
    llvm::sys::path::replace_extension(p, "metrics.json");
    metricsFile = std::string(p.str());
  }
  llvm::Expected<llvm::json::Value> heldOutJson =
      llvm::json::parse(result.heldOut.toJson());
  llvm::Expected<llvm::json::Value> trainJson =
      llvm::json::parse(result.train.toJson());
  if (!heldOutJson || !trainJson) {
    llvm::consumeError(heldOutJson.takeError());
    llvm::consumeError(trainJson.takeError());
    return failure("internal error: metrics are not valid JSON");
  }
  if (const llvm::json::Object *t = trainJson->getAsObject()) {
    llvm::json::Object trainSummary = *t;
    trainSummary.erase("per_group");
    // A write error (a full disk, /dev/full) is an error, not a fatal one
    // from the stream's destructor.
    std::string text = llvm::formatv(
        "{0:2}\n", llvm::json::Value(
                       llvm::json::Object{{"model", options.outPath},
                                          {"provenance", std::move(provenance)},
                                          {"heldout", std::move(*heldOutJson)},
                                          {"train", std::move(trainSummary)}}));
    if (llvm::Error e = writeTextFile(metricsFile, text))
      return failure(llvm::toString(std::move(e)));
  }
  result.metricsPath = metricsFile;
  report.note("wrote " + metricsFile);
  return std::move(result);
}
