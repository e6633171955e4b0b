//===- CostModel.cpp - Ranking candidate schedules ------------------------===//
//
// Plain C++: the learned modes score with PlainModel (the network's forward
// pass over a model file's plain weights), so ranking links no LibTorch;
// training (Model, Trainer) keeps it.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/CostModel.h"
#include "sptune/Config.h"
#include "sptune/CostModel/AdaptedModel.h"
#include "sptune/CostModel/AnalyticalCost.h"
#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/Metrics.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/DefaultSchedule.h"

#include "sptune/CostModel/EmbeddedModels.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/PlainModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>

using namespace sptune;

CostModel::~CostModel() = default;

const char *sptune::toString(CostModelMode mode) {
  switch (mode) {
  case CostModelMode::Heuristic:
    return "heuristic";
  case CostModelMode::Release:
    return "release";
  case CostModelMode::Development:
    return "development";
  }
  return "?";
}

std::optional<CostModelMode> sptune::parseCostModelMode(std::string_view name) {
  for (CostModelMode m : {CostModelMode::Heuristic, CostModelMode::Release,
                          CostModelMode::Development})
    if (name == toString(m))
      return m;
  return std::nullopt;
}

std::string sptune::defaultModelPath(TargetKind target) {
  return std::string(SPTUNE_SOURCE_DIR) + "/cost-model/models/" +
         toString(target) + "-default.pt";
}

bool sptune::haveLearnedCostModels() { return true; }

std::string sptune::modelIdentity(std::string_view bytes) {
  uint64_t hash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  std::string hex;
  llvm::raw_string_ostream os(hex);
  os << llvm::format_hex_no_prefix(hash, 16);
  return "model:" + hex;
}

std::optional<std::string> sptune::releaseModelSource(TargetKind target) {
  if (std::string adapted = findAdaptedModel(target); !adapted.empty())
    return adapted;
  EmbeddedModel embedded = embeddedReleaseModel(target);
  if (!embedded.empty())
    return "embedded " + std::string(embedded.name);
  // A build whose embedded models predate the file.
  std::string path = defaultModelPath(target);
  if (llvm::sys::fs::exists(path))
    return path;
  return std::nullopt;
}

/// The bytes of the model shipped for `target`: the embedded model, else
/// (a build without one) the file in the source tree.
static bool readShippedModel(TargetKind target, std::string &bytes,
                             std::string &what, std::string &error) {
  EmbeddedModel embedded = embeddedReleaseModel(target);
  if (!embedded.empty()) {
    bytes.assign(embedded.bytes);
    what = "embedded " + std::string(embedded.name);
    return true;
  }
  what = defaultModelPath(target);
  if (!llvm::sys::fs::exists(what)) {
    if (target == TargetKind::CPU)
      error = "the release model '" + what +
              "' does not exist (train it with sptune-train; see "
              "cost-model/README.md)";
    else
      error = std::string("no release model is shipped for target '") +
              toString(target) + "' (" + what +
              " does not exist); give a model file";
    return false;
  }
  return !takeErrorMessage(readFileBytes(what).moveInto(bytes), error);
}

/// The bytes release mode loads for `target` when no file is given: the
/// model `sptune-learn adapt` made for this machine (`adapted` set), else
/// the shipped one.
static bool releaseModelBytes(TargetKind target, std::string &bytes,
                              std::string &what, std::string &error,
                              bool *adapted = nullptr) {
  if (std::string found = findAdaptedModel(target); !found.empty()) {
    if (adapted)
      *adapted = true;
    what = found;
    return !takeErrorMessage(readFileBytes(what).moveInto(bytes), error);
  }
  return readShippedModel(target, bytes, what, error);
}

llvm::Expected<std::string> sptune::shippedModelBytes(TargetKind target,
                                                      std::string &what) {
  std::string bytes, error;
  if (!readShippedModel(target, bytes, what, error))
    return makeError(error);
  return bytes;
}

llvm::Expected<std::string> sptune::costModelIdentity(CostModelMode mode,
                                                      const std::string &path,
                                                      TargetKind target) {
  if (mode == CostModelMode::Heuristic) {
    if (path.empty())
      return std::string("heuristic");
    return makeError("the heuristic cost model takes no model file (got '" +
                     path + "')");
  }
  std::string bytes, what, why;
  bool ok = path.empty() && mode == CostModelMode::Release
                ? releaseModelBytes(target, bytes, what, why)
                : !takeErrorMessage(readFileBytes(path).moveInto(bytes), why);
  // The identity of a file that is no model would match no record: a
  // mistyped `sptune-db prune --keep-model` emptied the database (issue 13
  // probe).
  if (ok && !hasModelFileMagic(bytes)) {
    ok = false;
    why = "'" + (path.empty() ? what : path) +
          "' is not a sptune cost model file (bad magic)";
  }
  if (!ok)
    return makeError(why);
  return modelIdentity(bytes);
}

/// Checks that every candidate is a schedule of `target`.
static llvm::Error checkCandidates(const std::vector<Schedule> &candidates,
                                   TargetKind target) {
  for (size_t n = 0; n < candidates.size(); ++n)
    if (candidates[n].target != target)
      return makeError("candidate " + std::to_string(n) + " is a '" +
                       toString(candidates[n].target) +
                       "' schedule; ranking for target '" + toString(target) +
                       "'");
  return llvm::Error::success();
}

static Ranking rankingFromScores(std::vector<double> scores) {
  Ranking r;
  r.order = orderByScore(scores);
  r.scores = std::move(scores);
  return r;
}

namespace {
/// No model: the heuristic default first, then the analytical order.
class HeuristicCostModel : public CostModel {
public:
  HeuristicCostModel() : CostModel(CostModelMode::Heuristic, "heuristic") {}
  std::string description() const override {
    return "heuristic (default schedule first, then analytical cost)";
  }
  bool supports(TargetKind) const override { return true; }
  llvm::Expected<Ranking> rank(const MatrixFeatures &features,
                               const std::vector<Schedule> &candidates,
                               TargetKind target, int64_t free) const override {
    if (llvm::Error e = checkCandidates(candidates, target))
      return std::move(e);
    std::vector<double> scores(candidates.size());
    std::vector<bool> isDefault(candidates.size(), false);
    double best = -INFINITY;
    std::optional<KernelType> kernel;
    Schedule def;
    for (size_t n = 0; n < candidates.size(); ++n) {
      Schedule s = canonicalize(candidates[n]);
      if (kernel != s.kernel) {
        kernel = s.kernel;
        def = defaultSchedule(target, s.kernel, &features.stats, free);
      }
      scores[n] = -std::log(analyticalCost(s, features.stats, free));
      isDefault[n] = s == def;
      best = std::max(best, scores[n]);
    }
    for (size_t n = 0; n < candidates.size(); ++n)
      if (isDefault[n])
        scores[n] = best + 1.0;
    return rankingFromScores(std::move(scores));
  }
};

/// A learned model from a file; development mode also logs.
class LearnedCostModel : public CostModel {
public:
  LearnedCostModel(CostModelMode mode, std::string identity,
                   std::unique_ptr<PlainModel> model,
                   std::unique_ptr<ModelGuard> guard, std::string path,
                   std::string logPath)
      : CostModel(mode, std::move(identity)), model(std::move(model)),
        guard(std::move(guard)), path(std::move(path)),
        logPath(std::move(logPath)) {}

  std::string description() const override {
    std::string targets;
    for (TargetKind t : model->info().trainedTargets)
      targets += std::string(targets.empty() ? "" : ",") + toString(t);
    return std::string(toString(mode())) + " model '" + path +
           "' (targets: " + (targets.empty() ? "none" : targets) +
           (model->info().calibrated ? ", calibrated" : "") +
           (guard ? guardDescription(*guard) : std::string()) + ")";
  }
  /// ", guard of 5 members, z = 0.10 on this machine", with the thresholds
  /// per kernel type where they apply here.
  static std::string guardDescription(const ModelGuard &guard) {
    const GuardSettings &s = guard.settings();
    if (s.zOtherMachine && s.isOtherMachine(guard.hostCpu()) &&
        !s.zOtherMachineByKernel.empty())
      return llvm::formatv(", guard of {0} members, z on this machine {1}",
                           s.members, s.otherMachineThresholdsText())
          .str();
    return llvm::formatv(", guard of {0} members, z = {1} on this machine",
                         s.members, thresholdText(s.zFor(guard.hostCpu())))
        .str();
  }
  std::string machineNote() const override {
    if (adapted)
      return "release mode uses the model sptune-learn adapt made for this "
             "machine ('" +
             path +
             "', without a guard: its picks are used as they are; "
             "SPTUNE_ADAPTED_MODELS=0 uses the shipped one)";
    return guard ? otherMachineNote(*guard) : std::string();
  }
  /// Loaded in release mode from this machine's adapted model.
  bool adapted = false;
  llvm::Expected<std::optional<GuardVerdict>>
  judgeOverHeuristic(const MatrixFeatures &features, const Schedule &pick,
                     const Schedule &heuristic, int64_t free) const override {
    if (!guard)
      return std::nullopt;
    llvm::Expected<GuardVerdict> verdict =
        guard->judge(features, pick, heuristic, free);
    if (!verdict)
      return makeError("the guard of '" + path +
                       "': " + llvm::toString(verdict.takeError()));
    return std::optional<GuardVerdict>(*verdict);
  }
  bool supports(TargetKind target) const override {
    return model->isTrainedFor(target);
  }
  bool supportsKernel(KernelType kernel) const override {
    return model->hasKernel(kernel);
  }
  llvm::Expected<Ranking> rank(const MatrixFeatures &features,
                               const std::vector<Schedule> &candidates,
                               TargetKind target, int64_t free) const override {
    auto start = std::chrono::steady_clock::now();
    if (!model->isTrainedFor(target))
      return makeError("the model '" + path + "' was not trained for target '" +
                       toString(target) + "'");
    if (llvm::Error e = checkCandidates(candidates, target))
      return std::move(e);
    for (const Schedule &s : candidates)
      if (!model->hasKernel(s.kernel))
        return makeError("the model '" + path +
                         "' has no feature for kernel '" + toString(s.kernel) +
                         "' (it knows " +
                         llvm::join(model->info().config.kernels, ", ") + ")");
    if (!features.isWellFormed())
      return makeError("matrix features have the wrong sizes for this build");
    std::vector<double> scores;
    if (llvm::Error e =
            model->score(features, candidates, free).moveInto(scores))
      return std::move(e);
    if (scores.size() != candidates.size())
      return makeError("the model returned no scores");
    // NaN scores would order candidates arbitrarily: an error, not a ranking.
    for (double score : scores)
      if (!std::isfinite(score))
        return makeError("the model '" + path + "' gave a non-finite score");
    Ranking r = rankingFromScores(std::move(scores));
    if (!logPath.empty())
      log(features, candidates, target, free, r,
          std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                        start)
              .count());
    return r;
  }

private:
  void log(const MatrixFeatures &f, const std::vector<Schedule> &candidates,
           TargetKind target, int64_t free, const Ranking &r,
           double seconds) const {
    llvm::json::Array top;
    for (size_t n = 0; n < r.order.size() && n < 10; ++n)
      top.push_back(
          llvm::json::Object{{"index", static_cast<int64_t>(r.order[n])},
                             {"schedule", candidates[r.order[n]].str()},
                             {"score", r.scores[r.order[n]]}});
    llvm::json::Object line{
        {"model", path},
        {"target", toString(target)},
        {"free", free},
        {"matrix", llvm::json::Object{{"rows", f.stats.rows},
                                      {"cols", f.stats.cols},
                                      {"nnz", f.stats.nnz}}},
        {"candidates", static_cast<int64_t>(candidates.size())},
        {"seconds", seconds},
        {"top", std::move(top)}};
    std::lock_guard<std::mutex> lock(logMutex);
    std::error_code ec;
    llvm::raw_fd_ostream os(logPath, ec, llvm::sys::fs::OF_Append);
    if (ec)
      return; // Logging is best effort; ranking must not fail for it.
    os << llvm::json::Value(std::move(line)) << "\n";
  }

  std::unique_ptr<PlainModel> model;
  /// Null for a model file without a guard.
  std::unique_ptr<ModelGuard> guard;
  std::string path, logPath;
  mutable std::mutex logMutex;
};
} // namespace

llvm::Expected<std::unique_ptr<CostModel>>
sptune::createCostModel(CostModelMode mode, const std::string &path,
                        const CostModelOptions &options) {
  auto fail = [](const std::string &message) { return makeError(message); };
  if (mode == CostModelMode::Heuristic) {
    if (!path.empty())
      return fail("the heuristic cost model takes no model file (got '" + path +
                  "')");
    return std::make_unique<HeuristicCostModel>();
  }
  if (mode == CostModelMode::Development && path.empty())
    return fail("the development cost model needs a model file");
  std::string bytes, what, why;
  bool adapted = false;
  if (mode == CostModelMode::Release && path.empty()) {
    if (!releaseModelBytes(options.target, bytes, what, why, &adapted))
      return fail(why);
    // A shipped file in the source tree (not embedded) may be anything.
    if (!hasModelFileMagic(bytes))
      return fail("'" + what + "' is not a sptune cost model file (bad magic)");
  } else {
    what = path;
    if (!llvm::sys::fs::exists(path))
      return fail(std::string("the ") + toString(mode) + " model '" + path +
                  "' does not exist");
    if (takeErrorMessage(readFileBytes(path).moveInto(bytes), why))
      return fail(why);
  }
  std::string identity = modelIdentity(bytes);
  // Decoded once for the model and its guard's members (a checksum over
  // the whole file each time: 2.4 MiB for the shipped CPU model).
  ModelFileContents file;
  if (llvm::Error e = decodeModelFile(bytes, "model", what).moveInto(file))
    return std::move(e);
  std::unique_ptr<PlainModel> model;
  if (llvm::Error e = PlainModel::fromContents(file, what).moveInto(model))
    return std::move(e);
  if (mode == CostModelMode::Development && !options.logPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream probe(options.logPath, ec, llvm::sys::fs::OF_Append);
    if (ec)
      return fail("cannot write the ranking log '" + options.logPath +
                  "': " + ec.message());
  }
  std::unique_ptr<ModelGuard> guard;
  if (llvm::Error e = ModelGuard::fromContents(file, what).moveInto(guard))
    return std::move(e);
  auto learned = std::make_unique<LearnedCostModel>(
      mode, std::move(identity), std::move(model), std::move(guard), what,
      mode == CostModelMode::Development ? options.logPath : std::string());
  learned->adapted = adapted;
  return learned;
}
