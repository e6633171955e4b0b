//===- LearningPool.cpp - What active learning can measure ----------------===//

#include "sptune/Learn/LearningPool.h"

#include <algorithm>
#include <map>
#include <set>

using namespace sptune;

std::string PoolProblem::key() const {
  SampleGroup g;
  g.matrix = matrix;
  g.kernel = kernel;
  g.free = free;
  g.target = target;
  g.elementBits = elementBits;
  return g.key();
}

size_t LearningPool::addProblem(PoolProblem problem) {
  problems_.push_back(std::move(problem));
  byProblem_.emplace_back();
  return problems_.size() - 1;
}

size_t LearningPool::addCandidate(size_t problem, const Schedule &schedule) {
  Schedule canon = canonicalize(schedule);
  for (size_t c : byProblem_[problem])
    if (candidates_[c].schedule == canon)
      return c;
  candidates_.push_back({problem, std::move(canon)});
  outcomes_.emplace_back();
  byProblem_[problem].push_back(candidates_.size() - 1);
  return candidates_.size() - 1;
}

void LearningPool::markBaseline(size_t candidate, bool mlirDefault,
                                bool heuristic) {
  candidates_[candidate].isMlirDefault |= mlirDefault;
  candidates_[candidate].isHeuristic |= heuristic;
}

std::vector<std::string> LearningPool::matrixIds() const {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const PoolProblem &p : problems_)
    if (seen.insert(p.matrix.id).second)
      ids.push_back(p.matrix.id);
  return ids;
}

void LearningPool::record(size_t candidate, const MeasuredOutcome &outcome) {
  if (outcomes_[candidate]) {
    spent_ -= outcomes_[candidate]->cost;
  } else {
    ++measured_;
    recordOrder_.push_back(candidate);
  }
  outcomes_[candidate] = outcome;
  spent_ += outcome.cost;
}

std::vector<size_t> LearningPool::unmeasured() const {
  std::vector<size_t> out;
  for (size_t c = 0; c < candidates_.size(); ++c)
    if (!outcomes_[c])
      out.push_back(c);
  return out;
}

double LearningPool::estimatedCost(size_t candidate, double prior) const {
  size_t problem = candidates_[candidate].problem;
  auto mean = [&](auto &&include) -> std::optional<double> {
    double sum = 0;
    size_t n = 0;
    for (size_t c = 0; c < candidates_.size(); ++c)
      if (outcomes_[c] && include(c)) {
        sum += outcomes_[c]->cost;
        ++n;
      }
    return n ? std::optional<double>(sum / static_cast<double>(n))
             : std::nullopt;
  };
  double sum = 0;
  size_t n = 0;
  for (size_t c : byProblem_[problem])
    if (outcomes_[c]) {
      sum += outcomes_[c]->cost;
      ++n;
    }
  if (n)
    return sum / static_cast<double>(n);
  const std::string &id = problems_[problem].matrix.id;
  if (auto m = mean([&](size_t c) {
        return problems_[candidates_[c].problem].matrix.id == id;
      }))
    return *m;
  if (measured_ > 0)
    return spent_ / static_cast<double>(measured_);
  return prior;
}

std::vector<SampleGroup>
LearningPool::measuredGroups(const std::vector<bool> &excluded) const {
  std::vector<SampleGroup> groups;
  for (size_t p = 0; p < problems_.size(); ++p) {
    SampleGroup g;
    g.matrix = problems_[p].matrix;
    g.kernel = problems_[p].kernel;
    g.free = problems_[p].free;
    g.target = problems_[p].target;
    g.elementBits = problems_[p].elementBits;
    for (size_t c : byProblem_[p])
      if (outcomes_[c] && outcomes_[c]->ok &&
          !(c < excluded.size() && excluded[c])) {
        const PoolCandidate &pc = candidates_[c];
        g.samples.push_back({pc.schedule, outcomes_[c]->time, outcomes_[c]->cost});
        if (pc.isMlirDefault)
          g.mlirDefaultTime = outcomes_[c]->time;
        if (pc.isHeuristic)
          g.heuristicTime = outcomes_[c]->time;
      }
    if (g.samples.empty())
      continue;
    std::sort(g.samples.begin(), g.samples.end(),
              [](const MeasuredSchedule &a, const MeasuredSchedule &b) {
                return a.schedule.str() < b.schedule.str();
              });
    groups.push_back(std::move(g));
  }
  return groups;
}
