//===- ScheduleTuner.cpp - Pick a schedule for a matrix -------------------===//

#include "sptune/Tune/ScheduleTuner.h"

#include "sptune/Support/Error.h"
#include "sptune/Tune/KnobNeighbourhood.h"

#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

using namespace sptune;

static llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Moves `first` to the front of `ranking` when it is among the candidates.
/// The heuristic cost model puts the built-in heuristic first; a target
/// registered at run time has its own.
static void rankFirst(Ranking &ranking, const std::vector<Schedule> &usable,
                      const Schedule &first) {
  auto it = std::find_if(ranking.order.begin(), ranking.order.end(),
                         [&](size_t idx) { return usable[idx] == first; });
  if (it == ranking.order.end() || it == ranking.order.begin())
    return;
  size_t idx = *it;
  ranking.order.erase(it);
  ranking.order.insert(ranking.order.begin(), idx);
  double best = *std::max_element(ranking.scores.begin(), ranking.scores.end());
  ranking.scores[idx] = best + 1.0;
}

/// The model's guard (sptune/CostModel/ModelGuard.h): when the model's pick
/// is not the heuristic and the guard does not trust it, the heuristic moves
/// to the front of `ranking`, keeping its own score.
static llvm::Error guardPick(const CostModel &model,
                             const MatrixFeatures &features,
                             const std::vector<Schedule> &usable,
                             const Schedule &heuristic, int64_t free,
                             Ranking &ranking, TuneResult &result) {
  const Schedule &pick = usable[ranking.order.front()];
  auto it = std::find_if(ranking.order.begin(), ranking.order.end(),
                         [&](size_t idx) { return usable[idx] == heuristic; });
  if (pick == heuristic || it == ranking.order.end())
    return llvm::Error::success();
  llvm::Expected<std::optional<GuardVerdict>> verdict =
      model.judgeOverHeuristic(features, pick, heuristic, free);
  if (!verdict)
    return verdict.takeError();
  result.modelGuard = *verdict;
  if (!*verdict || (*verdict)->trusted())
    return llvm::Error::success();
  size_t idx = *it;
  ranking.order.erase(it);
  ranking.order.insert(ranking.order.begin(), idx);
  return llvm::Error::success();
}

llvm::Expected<TuneResult> sptune::tuneSchedule(const CostModel &model,
                                                const CsrMatrix &m,
                                                KernelType kernel, int64_t free,
                                                const TuneOptions &options) {
  llvm::Expected<const Target &> target =
      options.targetInfo && options.targetInfo->kind() == options.target
          ? llvm::Expected<const Target &>(*options.targetInfo)
          : TargetRegistry::get(options.target);
  if (!target)
    return target.takeError();
  if (options.measureTopK > 0 && !options.matrixSource.empty() &&
      !options.measurer)
    return failure("measuring candidates needs a measurer, and this program "
                   "has none (tools that measure register one)");
  std::optional<MatrixFeatures> computed;
  if (!options.features)
    computed = featurize(m);
  const MatrixFeatures &features =
      options.features ? *options.features : *computed;

  // Candidates: the heuristic, the untuned reference, a uniform sample, and
  // the heuristic's knob neighbourhood.
  ProblemShape shape{kernel, m.rows, m.cols, free, m.nnz()};
  auto isUsable = [&](const Schedule &s) {
    return target->whyIllegal(s).empty() &&
           whyIllegalForShape(s, m.rows, m.cols, m.nnz()).empty() &&
           target->space().fitsFreeSize(s, free) &&
           (!options.onlyThisMachine || target->space().fitsThisMachine(s)) &&
           (!options.applicable || options.applicable(s).empty());
  };
  // The rule's pick, or the untuned reference where the op cannot take it
  // (as the untuned path does): the schedule a model must beat.
  Schedule heuristic = target->heuristicSchedule(kernel, &features.stats, free);
  Schedule reference = target->referenceSchedule(kernel);
  if (!isUsable(heuristic) && isUsable(reference))
    heuristic = reference;
  std::vector<Schedule> candidates = {heuristic, reference};
  for (Schedule &s :
       target->space().sample(shape, options.candidates, options.seed))
    candidates.push_back(std::move(s));
  for (Schedule &s : sampledKnobNeighbours(*target, heuristic,
                                           options.neighbours, options.seed))
    candidates.push_back(std::move(s));
  std::unordered_set<std::string> seen;
  std::vector<Schedule> usable;
  for (Schedule &s : candidates) {
    if (!isUsable(s))
      continue;
    // The heuristic and the untuned reference stay what they are: the
    // baselines a pick is judged and measured against.
    if (options.unseenKnobsByRule && s != heuristic && s != reference) {
      Schedule ruled = target->withUnseenKnobsByRule(s);
      if (ruled != s && isUsable(ruled))
        s = std::move(ruled);
    }
    if (seen.insert(s.str()).second)
      usable.push_back(std::move(s));
  }
  if (usable.empty())
    return failure(std::string("no applicable candidate schedule for target '") +
                   std::string(target->name()) + "'");

  TuneResult result;
  auto start = std::chrono::steady_clock::now();
  std::string error;
  std::optional<Ranking> ranking;
  if (model.supports(options.target) && model.supportsKernel(kernel)) {
    ranking =
        takeValue(model.rank(features, usable, options.target, free), error);
    if (!ranking)
      return failure(error);
  } else {
    // MLGO's heuristic mode for a target the model was not trained for.
    result.fallbackReason =
        model.supports(options.target)
            ? model.description() + " has no feature for kernel '" +
                  toString(kernel) + "'"
            : model.description() + " was not trained for '" +
                  std::string(target->name()) + "'";
    std::unique_ptr<CostModel> heuristicModel =
        takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
            .value_or(nullptr);
    if (heuristicModel)
      ranking = takeValue(
          heuristicModel->rank(features, usable, options.target, free), error);
    if (!ranking)
      return failure(error);
  }
  if (model.mode() == CostModelMode::Heuristic || !result.fallbackReason.empty())
    rankFirst(*ranking, usable, heuristic);
  else if (options.useModelGuard)
    if (llvm::Error e = guardPick(model, features, usable, heuristic, free,
                                  *ranking, result))
      return std::move(e);
  result.rankSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  result.numCandidates = usable.size();
  size_t keep = std::max(options.topK, options.measureTopK);
  for (size_t n = 0; n < ranking->order.size() && n < keep; ++n) {
    size_t idx = ranking->order[n];
    result.top.push_back(
        {usable[idx], ranking->scores[idx], std::nullopt, "", n + 1, false});
  }
  result.chosen = result.top.front().schedule;

  if (options.measureTopK == 0 || options.matrixSource.empty())
    return result;
  result.measured = true;
  size_t measured = std::min(options.measureTopK, result.top.size());
  auto isHeuristic = [&](const RankedCandidate &c) {
    return c.schedule == heuristic;
  };
  if (options.measureHeuristic &&
      std::none_of(result.top.begin(), result.top.begin() + measured,
                   isHeuristic)) {
    // The heuristic is usable whenever it was legal here; find its rank.
    for (size_t n = 0; n < ranking->order.size(); ++n) {
      size_t idx = ranking->order[n];
      if (usable[idx] != heuristic)
        continue;
      // Drop it from the unmeasured tail of the report; it goes last.
      auto tail = std::remove_if(result.top.begin() + measured,
                                 result.top.end(), isHeuristic);
      result.top.erase(tail, result.top.end());
      result.top.push_back(
          {usable[idx], ranking->scores[idx], std::nullopt, "", n + 1, true});
      break;
    }
  }
  std::vector<size_t> positions;
  std::vector<Schedule> toMeasure;
  for (size_t n = 0; n < result.top.size(); ++n) {
    if (n >= measured && !result.top[n].guard)
      continue;
    positions.push_back(n);
    toMeasure.push_back(result.top[n].schedule);
  }
  KernelSpec spec;
  spec.kernel = kernel;
  spec.free = free;
  spec.elementBits = options.elementBits;
  spec.transposedB = options.transposedB;
  spec.descriptor = options.descriptor;
  std::vector<Measurement> measurements = options.measurer->measure(
      options.matrixSource, spec, toMeasure, options.measure);
  for (size_t n = 0; n < positions.size() && n < measurements.size(); ++n) {
    RankedCandidate &c = result.top[positions[n]];
    const Measurement &mm = measurements[n];
    c.measureStatus = toString(mm.status);
    if (mm.ok())
      c.seconds = mm.medianSeconds;
    else
      c.measureStatus += ": " + mm.reason;
  }
  const RankedCandidate *best = nullptr;
  for (const RankedCandidate &c : result.top)
    if (c.seconds && (!best || *c.seconds < *best->seconds))
      best = &c;
  if (best)
    result.chosen = best->schedule;
  return result;
}
