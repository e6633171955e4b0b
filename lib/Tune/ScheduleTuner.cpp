//===- ScheduleTuner.cpp - Pick a schedule for a matrix -------------------===//

#include "sptune/Tune/ScheduleTuner.h"

#include "cpu/CpuScheduleSpace.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/Schedule/DefaultSchedule.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

using namespace sptune;

std::optional<TuneResult> sptune::tuneSchedule(const CostModel &model,
                                               const CsrMatrix &m,
                                               KernelType kernel, int64_t free,
                                               const TuneOptions &options,
                                               std::string &error) {
  if (options.target != TargetKind::CPU) {
    error = std::string("tuning for target '") + toString(options.target) +
            "' is not available in sptune-autotune (use its collector)";
    return std::nullopt;
  }
  MatrixFeatures features = featurize(m);

  // Candidates: the heuristic, the upstream default, and a uniform sample.
  CpuScheduleSpace space;
  ProblemShape shape{kernel, m.rows, m.cols, free, m.nnz()};
  Schedule heuristic =
      defaultSchedule(TargetKind::CPU, kernel, &features.stats, free);
  std::vector<Schedule> candidates = {
      heuristic, mlirDefaultSchedule(TargetKind::CPU, kernel)};
  for (Schedule &s : space.sample(shape, options.candidates, options.seed))
    candidates.push_back(std::move(s));
  std::unordered_set<std::string> seen;
  std::vector<Schedule> usable;
  for (Schedule &s : candidates) {
    if (!isLegal(s) ||
        !whyIllegalForShape(s, m.rows, m.cols, m.nnz()).empty() ||
        (options.applicable && !options.applicable(s).empty()))
      continue;
    if (seen.insert(s.str()).second)
      usable.push_back(std::move(s));
  }
  if (usable.empty()) {
    error = "no applicable candidate schedule";
    return std::nullopt;
  }

  auto start = std::chrono::steady_clock::now();
  std::optional<Ranking> ranking =
      model.rank(features, usable, options.target, free, &error);
  if (!ranking)
    return std::nullopt;
  TuneResult result;
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

  if (options.measureTopK > 0 && !options.matrixSource.empty()) {
    result.measured = true;
    size_t measured = std::min(options.measureTopK, result.top.size());
    std::string heuristicText = heuristic.str();
    auto isHeuristic = [&](const RankedCandidate &c) {
      return c.schedule.str() == heuristicText;
    };
    if (options.measureHeuristic &&
        std::none_of(result.top.begin(), result.top.begin() + measured,
                     isHeuristic)) {
      // The heuristic is usable whenever it was legal here; find its rank.
      for (size_t n = 0; n < ranking->order.size(); ++n) {
        size_t idx = ranking->order[n];
        if (usable[idx].str() != heuristicText)
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
    WorkerOptions wopts;
    wopts.timeoutSeconds = options.timeoutSeconds;
    wopts.executable = options.workerExecutable;
    WorkerPool pool(wopts, 1);
    std::vector<MeasureRequest> requests;
    for (size_t n = 0; n < result.top.size(); ++n) {
      if (n >= measured && !result.top[n].guard)
        continue;
      MeasureRequest r;
      r.id = static_cast<int64_t>(n);
      r.matrix = options.matrixSource;
      r.kernel = toString(kernel);
      r.free = kernel == KernelType::SpMV ? 1 : free;
      r.schedule = result.top[n].schedule.str();
      r.options = options.measure;
      requests.push_back(r);
    }
    pool.run(requests,
             [&](const MeasureRequest &q, const MeasureResponse &response) {
               RankedCandidate &c = result.top[static_cast<size_t>(q.id)];
               c.measureStatus = toString(response.measurement.status);
               if (response.measurement.ok())
                 c.seconds = response.measurement.medianSeconds;
               else
                 c.measureStatus += ": " + response.measurement.reason;
             });
    const RankedCandidate *best = nullptr;
    for (const RankedCandidate &c : result.top)
      if (c.seconds && (!best || *c.seconds < *best->seconds))
        best = &c;
    if (best)
      result.chosen = best->schedule;
  }
  return result;
}
