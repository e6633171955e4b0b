//===- ReplayOracle.cpp - A measured dataset as the oracle ----------------===//

#include "sptune/Learn/MeasurementOracle.h"

using namespace sptune;

MeasurementOracle::~MeasurementOracle() = default;

ReplayOracle::ReplayOracle(const std::vector<SampleGroup> &groups,
                           LearningPool &pool) {
  for (const SampleGroup &g : groups) {
    size_t p =
        pool.addProblem({g.matrix, g.kernel, g.free, g.target, g.elementBits});
    for (const MeasuredSchedule &m : g.samples) {
      size_t c = pool.addCandidate(p, m.schedule);
      pool.markBaseline(c, m.isMlirDefault, m.isHeuristic);
      if (c >= truth_.size())
        truth_.resize(c + 1);
      truth_[c] = {true, m.time, m.cost};
      totalCost_ += m.cost;
    }
  }
}

llvm::Expected<std::vector<std::optional<MeasuredOutcome>>>
ReplayOracle::measure(const LearningPool &pool,
                      const std::vector<size_t> &candidates,
                      const std::function<void(const OracleProgress &)> &onProgress,
                      const std::atomic<bool> *stop) {
  (void)pool;
  std::vector<std::optional<MeasuredOutcome>> out;
  OracleProgress progress;
  progress.total = candidates.size();
  for (size_t c : candidates) {
    if (c >= truth_.size())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "replay: candidate %zu is not in the "
                                     "replayed dataset",
                                     c);
    if (stop && stop->load()) {
      out.emplace_back();
      continue;
    }
    out.emplace_back(truth_[c]);
    ++progress.done;
  }
  if (onProgress)
    onProgress(progress);
  return out;
}
