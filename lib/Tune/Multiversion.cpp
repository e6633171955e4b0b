//===- Multiversion.cpp - Schedules for matrices not known yet ------------===//

#include "sptune/Tune/Multiversion.h"

#include "sptune/Support/Error.h"
#include "sptune/Target/Target.h"
#include "sptune/Tune/ScheduleTuner.h"

#include "sptune/CostModel/MatrixFeatures.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace sptune;

/// How much better than the model's best a training matrix's heuristic
/// schedule is scored where the guard keeps it (a log speedup: 1%).
static constexpr double kGuardMargin = 0.01;

static llvm::Error failure(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

const char *DispatchFeatures::name(unsigned feature) {
  static const char *const names[Count] = {"rows",     "cols",   "nnz",
                                           "row_mean", "row_cv", "row_max"};
  return feature < Count ? names[feature] : "?";
}

DispatchFeatures sptune::dispatchFeatures(const CsrMatrix &m) {
  DispatchFeatures f;
  double sumSquares = 0;
  int64_t longest = 0;
  for (int64_t r = 0; r < m.rows; ++r) {
    int64_t len = m.rowLength(r);
    sumSquares += static_cast<double>(len) * static_cast<double>(len);
    longest = std::max(longest, len);
  }
  double rows = static_cast<double>(m.rows);
  double nnz = static_cast<double>(m.nnz());
  double mean = m.rows > 0 ? nnz / rows : 0;
  double variance = m.rows > 0 ? sumSquares / rows - mean * mean : 0;
  f.values[DispatchFeatures::Rows] = rows;
  f.values[DispatchFeatures::Cols] = static_cast<double>(m.cols);
  f.values[DispatchFeatures::Nnz] = nnz;
  f.values[DispatchFeatures::RowMean] = mean;
  f.values[DispatchFeatures::RowCv] =
      mean > 0 ? std::sqrt(std::max(0.0, variance)) / mean : 0;
  f.values[DispatchFeatures::RowMax] = static_cast<double>(longest);
  return f;
}

unsigned DispatchRule::route(const DispatchFeatures &f) const {
  if (nodes.empty())
    return 0;
  int n = 0;
  while (nodes[n].feature >= 0)
    n = f[nodes[n].feature] <= nodes[n].threshold ? nodes[n].left
                                                  : nodes[n].right;
  return nodes[n].variant;
}

bool DispatchRule::readsRowLengths() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const Node &n) {
    return n.feature == DispatchFeatures::RowCv ||
           n.feature == DispatchFeatures::RowMax;
  });
}

size_t DispatchRule::numLeaves() const {
  return std::count_if(nodes.begin(), nodes.end(),
                       [](const Node &n) { return n.feature < 0; });
}

std::string DispatchRule::str() const {
  if (nodes.empty())
    return "v0";
  std::string text;
  llvm::raw_string_ostream os(text);
  std::function<void(int)> print = [&](int n) {
    const Node &node = nodes[n];
    if (node.feature < 0) {
      os << "v" << node.variant;
      return;
    }
    os << "(" << DispatchFeatures::name(node.feature) << " <= "
       << llvm::format("%.6g", node.threshold) << " ? ";
    print(node.left);
    os << " : ";
    print(node.right);
    os << ")";
  };
  print(0);
  // The outermost parentheses say nothing.
  if (text.size() > 2 && text.front() == '(')
    text = text.substr(1, text.size() - 2);
  return text;
}

bool sptune::runsOnAnyShape(const Schedule &s) {
  if (s.splitRow != 1 || s.splitCol != 1)
    return false;
  bool sparseAbove = false;
  for (const StorageLevel &l : s.levels) {
    if (l.format == LevelFormat::Dense && sparseAbove)
      return false;
    sparseAbove |= l.format != LevelFormat::Dense;
  }
  return true;
}

namespace {
/// Scores (predicted log speedups, higher is faster) of every pooled
/// schedule on every training matrix, and the tree fitted to them.
struct ScoreTable {
  /// scores[m][s]: pooled schedule s on matrix m.
  std::vector<std::vector<double>> scores;
  std::vector<DispatchFeatures> features;

  /// The variant of `variants` with the best total score over `rows`.
  std::pair<unsigned, double> bestVariant(const std::vector<size_t> &rows,
                                          const std::vector<size_t> &variants) const {
    unsigned best = 0;
    double bestTotal = -std::numeric_limits<double>::infinity();
    for (unsigned v = 0; v < variants.size(); ++v) {
      double total = 0;
      for (size_t m : rows)
        total += scores[m][variants[v]];
      if (total > bestTotal) {
        bestTotal = total;
        best = v;
      }
    }
    return {best, bestTotal};
  }
};
} // namespace

/// Greedy cover: each step adds the pooled schedule that most raises the sum
/// over matrices of the best score among the chosen.
static std::vector<size_t> chooseVariants(const ScoreTable &t, size_t pool,
                                          unsigned count) {
  std::vector<size_t> chosen;
  size_t numMatrices = t.scores.size();
  std::vector<double> best(numMatrices,
                           -std::numeric_limits<double>::infinity());
  while (chosen.size() < count) {
    size_t pick = pool;
    double pickTotal = -std::numeric_limits<double>::infinity();
    for (size_t s = 0; s < pool; ++s) {
      if (std::find(chosen.begin(), chosen.end(), s) != chosen.end())
        continue;
      double total = 0;
      for (size_t m = 0; m < numMatrices; ++m)
        total += std::max(best[m], t.scores[m][s]);
      if (total > pickTotal + 1e-12) {
        pickTotal = total;
        pick = s;
      }
    }
    if (pick == pool)
      break;
    // A schedule that adds nothing past the first leaves the rest out.
    double before = 0;
    for (size_t m = 0; m < numMatrices; ++m)
      before += best[m];
    if (!chosen.empty() && pickTotal <= before + 1e-9)
      break;
    chosen.push_back(pick);
    for (size_t m = 0; m < numMatrices; ++m)
      best[m] = std::max(best[m], t.scores[m][pick]);
  }
  return chosen;
}

/// Grows the subtree of `rows` into `rule` (returns its node): the split
/// that most raises the total score of the leaves' variants, down to
/// `depth` levels.
static int growTree(const ScoreTable &t, const std::vector<size_t> &variants,
                    const std::vector<size_t> &rows, unsigned depth,
                    unsigned minLeaf, DispatchRule &rule) {
  auto [leafVariant, leafTotal] = t.bestVariant(rows, variants);
  int self = static_cast<int>(rule.nodes.size());
  rule.nodes.push_back({});
  rule.nodes[self].variant = leafVariant;
  if (depth == 0 || rows.size() < 2 * minLeaf)
    return self;
  int bestFeature = -1;
  double bestThreshold = 0, bestTotal = leafTotal + 1e-9;
  for (unsigned f = 0; f < DispatchFeatures::Count; ++f) {
    std::vector<size_t> sorted = rows;
    std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
      return t.features[a][f] < t.features[b][f];
    });
    for (size_t cut = minLeaf; cut + minLeaf <= sorted.size(); ++cut) {
      double lo = t.features[sorted[cut - 1]][f];
      double hi = t.features[sorted[cut]][f];
      if (!(lo < hi))
        continue;
      std::vector<size_t> left(sorted.begin(), sorted.begin() + cut);
      std::vector<size_t> right(sorted.begin() + cut, sorted.end());
      double total = t.bestVariant(left, variants).second +
                     t.bestVariant(right, variants).second;
      if (total > bestTotal) {
        bestTotal = total;
        bestFeature = static_cast<int>(f);
        bestThreshold = lo > 0 ? std::sqrt(lo * hi) : (lo + hi) / 2;
      }
    }
  }
  if (bestFeature < 0)
    return self;
  std::vector<size_t> left, right;
  for (size_t m : rows)
    (t.features[m][bestFeature] <= bestThreshold ? left : right).push_back(m);
  int l = growTree(t, variants, left, depth - 1, minLeaf, rule);
  int r = growTree(t, variants, right, depth - 1, minLeaf, rule);
  // Two leaves with one variant are that leaf.
  if (rule.nodes[l].feature < 0 && rule.nodes[r].feature < 0 &&
      rule.nodes[l].variant == rule.nodes[r].variant) {
    rule.nodes.resize(self + 1);
    return self;
  }
  rule.nodes[self].feature = bestFeature;
  rule.nodes[self].threshold = bestThreshold;
  rule.nodes[self].left = l;
  rule.nodes[self].right = r;
  return self;
}

llvm::Expected<MultiversionPlan>
sptune::planMultiversion(const CostModel &model, const Target &target,
                         const std::vector<const CsrMatrix *> &matrices,
                         KernelType kernel, int64_t free,
                         const MultiversionOptions &options) {
  if (matrices.empty())
    return failure("multi-versioning needs training matrices, and got none");
  if (options.variants == 0)
    return failure("multi-versioning needs at least one variant");
  MultiversionPlan plan;
  std::string error;
  // A model that cannot serve the target or kernel: the heuristic scores.
  const CostModel *scorer = &model;
  std::unique_ptr<CostModel> heuristic;
  if (!model.supports(target.kind()) || !model.supportsKernel(kernel)) {
    heuristic = takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
                    .value_or(nullptr);
    if (!heuristic)
      return failure(error);
    scorer = heuristic.get();
    plan.fallbackReason = model.description() + " cannot rank '" +
                          std::string(target.name()) + "' " + toString(kernel) +
                          " schedules";
  }

  TuneOptions tune;
  tune.target = target.kind();
  tune.targetInfo = &target;
  tune.candidates = options.candidates;
  tune.seed = options.seed;
  tune.topK = std::max(1u, options.perMatrixTop);
  tune.useModelGuard = options.useModelGuard;
  tune.applicable = [&](const Schedule &s) -> std::string {
    if (!runsOnAnyShape(s))
      return "does not run on every shape";
    return options.applicable ? options.applicable(s) : std::string();
  };
  // 1. The pool: every matrix's best schedules.
  std::vector<Schedule> pool;
  std::map<std::string, size_t> pooled;
  ScoreTable table;
  std::vector<MatrixFeatures> modelFeatures;
  // The heuristic mode ranks each matrix's own heuristic schedule first
  // (tuneSchedule does so); its scores here must agree.
  bool heuristicFirst = scorer->mode() == CostModelMode::Heuristic;
  std::vector<size_t> firstOf;
  std::vector<bool> keptHeuristic;
  // Reserved: `tune.features` points into it.
  modelFeatures.reserve(matrices.size());
  for (const CsrMatrix *m : matrices) {
    // Featurized once, for the ranking here and the scoring below.
    modelFeatures.push_back(featurize(*m));
    tune.features = &modelFeatures.back();
    llvm::Expected<TuneResult> r =
        tuneSchedule(*scorer, *m, kernel, free, tune);
    if (!r)
      return r.takeError();
    // Each pick as a variant (Target::asVariant), which any matrix may get.
    std::string firstKey;
    for (const RankedCandidate &c : r->top) {
      Schedule variant = target.asVariant(c.schedule);
      std::string key = variant.str();
      if (firstKey.empty())
        firstKey = key;
      if (pooled.emplace(key, pool.size()).second)
        pool.push_back(std::move(variant));
    }
    firstOf.push_back(pooled[firstKey]);
    keptHeuristic.push_back(r->keptHeuristic());
    plan.guardKeptHeuristic += r->keptHeuristic();
    table.features.push_back(dispatchFeatures(*m));
  }
  // Every pooled schedule, scored on every matrix.
  for (const MatrixFeatures &f : modelFeatures) {
    llvm::Expected<Ranking> ranking =
        scorer->rank(f, pool, target.kind(), free);
    if (!ranking)
      return ranking.takeError();
    table.scores.push_back(ranking->scores);
    if (heuristicFirst) {
      // The heuristic's schedule is the one to cover: 1 for it, 0 for the
      // rest (its analytical cost is no prediction of time).
      std::vector<double> &row = table.scores.back();
      std::fill(row.begin(), row.end(), 0.0);
      row[firstOf[table.scores.size() - 1]] = 1.0;
    } else if (keptHeuristic[table.scores.size() - 1]) {
      // The guard did not trust the model's pick over the heuristic here.
      std::vector<double> &row = table.scores.back();
      row[firstOf[table.scores.size() - 1]] =
          *std::max_element(row.begin(), row.end()) + kGuardMargin;
    }
  }
  plan.trainingMatrices = matrices.size();
  plan.pooledSchedules = pool.size();

  // 2. The variants; 3. the rule.
  std::vector<size_t> chosen = chooseVariants(table, pool.size(),
                                              options.variants);
  for (size_t s : chosen)
    plan.variants.push_back(pool[s]);
  std::vector<size_t> all(matrices.size());
  std::iota(all.begin(), all.end(), 0);
  growTree(table, chosen, all, options.maxDepth, std::max(1u, options.minLeaf),
           plan.rule);

  // Variants no leaf names are dropped (the greedy cover chose them for
  // matrices the depth-limited rule cannot single out); the rest keep their
  // order.
  std::vector<int> renumbered(chosen.size(), -1);
  for (const DispatchRule::Node &node : plan.rule.nodes)
    if (node.feature < 0)
      renumbered[node.variant] = 0;
  std::vector<size_t> kept;
  std::vector<Schedule> keptSchedules;
  for (size_t v = 0; v < chosen.size(); ++v)
    if (renumbered[v] == 0) {
      renumbered[v] = static_cast<int>(kept.size());
      kept.push_back(chosen[v]);
      keptSchedules.push_back(plan.variants[v]);
    }
  for (DispatchRule::Node &node : plan.rule.nodes)
    if (node.feature < 0)
      node.variant = renumbered[node.variant];
  double singleLog = 0;
  for (size_t m = 0; m < matrices.size(); ++m) {
    const std::vector<double> &row = table.scores[m];
    singleLog += row[chosen[0]] - *std::max_element(row.begin(), row.end());
  }
  chosen = std::move(kept);
  plan.variants = std::move(keptSchedules);

  plan.routedCounts.assign(plan.variants.size(), 0);
  double routedLog = 0;
  for (size_t m = 0; m < matrices.size(); ++m) {
    const std::vector<double> &row = table.scores[m];
    double best = *std::max_element(row.begin(), row.end());
    unsigned v = plan.rule.route(table.features[m]);
    ++plan.routedCounts[v];
    routedLog += row[chosen[v]] - best;
    plan.routedToBest += row[chosen[v]] >= best;
  }
  plan.scoresArePredictions = !heuristicFirst;
  plan.routedShareOfBest = std::exp(routedLog / matrices.size());
  plan.singleShareOfBest = std::exp(singleLog / matrices.size());
  return plan;
}

std::vector<std::string> sptune::defaultDispatchTrainingSpecs() {
  std::vector<std::string> specs;
  unsigned seed = 9001;
  auto add = [&](const std::string &kind, int64_t rows, int64_t cols,
                 int64_t nnz, const std::string &extra) {
    specs.push_back("gen:" + kind + ":rows=" + std::to_string(rows) +
                    ",cols=" + std::to_string(cols) +
                    ",nnz=" + std::to_string(nnz) + extra +
                    ",seed=" + std::to_string(seed++));
  };
  for (int64_t rows : {2048, 8192, 32768}) {
    for (int64_t perRow : {2, 8, 32}) {
      int64_t nnz = rows * perRow;
      add("uniform", rows, rows, nnz, "");
      add("rmat", rows, rows, nnz, ",a=0.57,b=0.19,c=0.19");
      add("banded", rows, rows, nnz, ",bw=" + std::to_string(perRow * 2));
      add("block", rows, rows, nnz, ",bs=" + std::to_string(perRow >= 8 ? 4 : 2));
      add("clustered", rows, rows, nnz, ",group=8");
    }
  }
  // Rectangular ones: wide and tall.
  add("uniform", 4096, 65536, 4096 * 16, "");
  add("rmat", 65536, 4096, 65536 * 4, ",a=0.45,b=0.19,c=0.19");
  add("uniform", 65536, 2048, 65536 * 8, "");
  return specs;
}
