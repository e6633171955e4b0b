//===- DiversityStrategy.cpp - k-center greedy over matrices --------------===//

#include "StrategySupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace sptune;
using namespace sptune::learn;

namespace {
/// Matrix diversity (core-set selection, Sener & Savarese 2018): matrices
/// in k-center greedy order over their embedding, starting from the matrices
/// already measured, each contributing `perMatrix` random unmeasured
/// schedules per pass (spread over its problems). The embedding is the
/// model's matrix encoder; before a model exists, the standardized
/// histogram and scalar features.
class DiversityStrategy : public SelectionStrategy {
public:
  explicit DiversityStrategy(size_t perMatrix) : perMatrix(perMatrix) {}
  std::string name() const override { return "diversity"; }
  llvm::Expected<std::vector<size_t>>
  rank(const SelectionContext &context) override {
    const LearningPool &pool = context.pool;
    std::vector<std::string> ids = pool.matrixIds();
    llvm::Expected<std::vector<std::vector<float>>> emb =
        embeddings(context, ids);
    if (!emb)
      return emb.takeError();

    // Matrices already measured are the initial centers.
    std::map<std::string, size_t> index;
    for (size_t m = 0; m < ids.size(); ++m)
      index[ids[m]] = m;
    std::vector<size_t> measuredCount(ids.size(), 0);
    for (size_t c = 0; c < pool.candidates().size(); ++c)
      if (pool.isMeasured(c))
        ++measuredCount[index[pool.problems()[pool.candidates()[c].problem]
                                  .matrix.id]];
    std::vector<double> dist(ids.size(),
                             std::numeric_limits<double>::infinity());
    std::vector<bool> chosen(ids.size(), false);
    auto addCenter = [&](size_t m) {
      chosen[m] = true;
      for (size_t o = 0; o < ids.size(); ++o)
        dist[o] = std::min(dist[o], squaredDistance((*emb)[o], (*emb)[m]));
    };
    for (size_t m = 0; m < ids.size(); ++m)
      if (measuredCount[m])
        addCenter(m);
    std::mt19937_64 rng(context.seed);
    std::vector<size_t> order;
    for (size_t k = 0; k < ids.size(); ++k) {
      size_t best = ids.size();
      for (size_t m = 0; m < ids.size(); ++m)
        if (!chosen[m] && (best == ids.size() || dist[m] > dist[best]))
          best = m;
      if (best == ids.size())
        break;
      if (std::isinf(dist[best])) // no center yet: a random first one
        best = pickUnchosen(chosen, rng);
      order.push_back(best);
      addCenter(best);
    }
    // Then the matrices measured before, least measured first.
    std::vector<size_t> covered;
    for (size_t m = 0; m < ids.size(); ++m)
      if (measuredCount[m])
        covered.push_back(m);
    std::stable_sort(covered.begin(), covered.end(), [&](size_t a, size_t b) {
      return measuredCount[a] < measuredCount[b];
    });
    order.insert(order.end(), covered.begin(), covered.end());

    // Each matrix's unmeasured candidates, problems interleaved, shuffled.
    std::vector<std::vector<size_t>> ofMatrix(ids.size());
    {
      std::vector<std::vector<std::vector<size_t>>> perProblem(ids.size());
      for (size_t p = 0; p < pool.problems().size(); ++p) {
        std::vector<size_t> open = unmeasuredOf(pool, p);
        shuffle(open, rng);
        perProblem[index[pool.problems()[p].matrix.id]].push_back(
            std::move(open));
      }
      for (size_t m = 0; m < ids.size(); ++m)
        ofMatrix[m] = interleave(std::move(perProblem[m]), rng());
    }
    // Passes over the order, `perMatrix` candidates of each matrix a pass.
    std::vector<size_t> out;
    for (size_t pass = 0;; ++pass) {
      bool any = false;
      for (size_t m : order)
        for (size_t n = pass * perMatrix;
             n < std::min(ofMatrix[m].size(), (pass + 1) * perMatrix); ++n) {
          out.push_back(ofMatrix[m][n]);
          any = true;
        }
      if (!any)
        break;
    }
    return out;
  }

private:
  static size_t pickUnchosen(const std::vector<bool> &chosen,
                             std::mt19937_64 &rng) {
    std::vector<size_t> open;
    for (size_t m = 0; m < chosen.size(); ++m)
      if (!chosen[m])
        open.push_back(m);
    return open[rng() % open.size()];
  }

  /// One embedding per matrix id.
  static llvm::Expected<std::vector<std::vector<float>>>
  embeddings(const SelectionContext &context,
             const std::vector<std::string> &ids) {
    std::vector<std::vector<float>> out;
    for (const std::string &id : ids) {
      auto f = context.features.find(id);
      if (f == context.features.end())
        return failure("no features for matrix '" + id + "'");
      if (context.model) {
        std::string error;
        std::vector<float> e = context.model->matrixEmbedding(f->second, &error);
        if (e.empty())
          return failure("the matrix embedding of '" + id +
                         "' failed: " + error);
        out.push_back(std::move(e));
      } else {
        out.push_back(f->second.vector());
      }
    }
    if (!context.model && !out.empty()) {
      // Standardize each feature over the pool's matrices.
      size_t width = out.front().size();
      for (size_t d = 0; d < width; ++d) {
        double sum = 0, sq = 0;
        for (const auto &v : out) {
          sum += v[d];
          sq += static_cast<double>(v[d]) * v[d];
        }
        double n = static_cast<double>(out.size()), mean = sum / n;
        double sd = std::max(std::sqrt(std::max(0.0, sq / n - mean * mean)),
                             1e-2);
        for (auto &v : out)
          v[d] = static_cast<float>((v[d] - mean) / sd);
      }
    }
    return out;
  }

  size_t perMatrix;
};
} // namespace

std::unique_ptr<SelectionStrategy>
learn::makeDiversityStrategy(size_t perMatrix) {
  return std::make_unique<DiversityStrategy>(perMatrix);
}
