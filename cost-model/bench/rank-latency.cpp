//===- rank-latency.cpp - Featurization and ranking latency ---------------===//
//
// Part of sptune. Measures, side by side in one run, what the autotuning pass
// pays per kernel: featurizing a matrix (statistics + images + histograms)
// and ranking 1,000 candidate schedules with the heuristic and with a learned
// model (the budget is 20 ms). Prints a table and writes JSON (--out).
//
//   sptune-rank-latency [--matrix SRC] [--model FILE] [--candidates N]
//                       [--reps R] [--out FILE]
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/InitAllTargets.h"
#include "sptune/CostModel/CostModel.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/Model.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Support/Error.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <unistd.h>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-rank-latency options");

static cl::opt<std::string> matrixSource(
    cl::cat(category), "matrix", cl::desc("matrix (.mtx path or gen: spec)"),
    cl::init("/work/shared/matrices/SNAP_ego-Twitter_undirected.mtx"));
static cl::opt<std::string>
    modelPath(cl::cat(category), "model",
              cl::desc("model file (default: an untrained model of "
                       "the default architecture)"),
              cl::init(""));
static cl::opt<unsigned> numCandidates(cl::cat(category), "candidates",
                                       cl::init(1000),
                                       cl::desc("candidates per ranking"));
static cl::opt<unsigned> reps(cl::cat(category), "reps", cl::init(21),
                              cl::desc("repetitions (the median is reported)"));
static cl::opt<std::string> outPath(cl::cat(category), "out",
                                    cl::desc("write JSON results here"),
                                    cl::init(""));

template <typename Fn> static double medianSeconds(unsigned n, Fn fn) {
  std::vector<double> t;
  for (unsigned r = 0; r < n; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

/// `count` distinct legal CPU SpMM schedules: formats x loop orders x knobs.
static std::vector<Schedule> candidates(size_t count) {
  std::vector<Schedule> bases = {
      Schedule::csr(TargetKind::CPU, KernelType::SpMM),
      Schedule::csc(TargetKind::CPU, KernelType::SpMM),
      Schedule::dcsr(TargetKind::CPU, KernelType::SpMM),
      Schedule::coo(TargetKind::CPU, KernelType::SpMM)};
  for (int b : {2, 4, 8})
    bases.push_back(Schedule::bsr(TargetKind::CPU, KernelType::SpMM, b, b));
  size_t bi = 0, before = bases.size();
  for (size_t n = 0; n < before; ++n) {
    Schedule s = bases[n];
    // The free loop outermost: a legal, slower order.
    std::rotate(s.loopOrder.rbegin(), s.loopOrder.rbegin() + 1,
                s.loopOrder.rend());
    bases.push_back(s);
  }
  std::vector<Schedule> knobs =
      sampleKnobSettings(TargetKind::CPU, KernelType::SpMM, count * 8, 7);
  std::set<std::string> seen;
  std::vector<Schedule> out;
  for (size_t n = 0; n < knobs.size() && out.size() < count; ++n) {
    Schedule s = bases[bi++ % bases.size()];
    s.knobBlock = knobs[n].knobBlock;
    s.posWidth = (n / 3) % 2 ? 32 : 64;
    s.tile = (n / 5) % 3 == 0 ? 0 : 16;
    s = canonicalize(s);
    if (isLegal(s) && seen.insert(s.str()).second)
      out.push_back(s);
  }
  return out;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune featurize/rank latency\n");
  registerAllTargets();
  CooMatrix coo;
  MatrixInfo info;
  std::string error;
  if (takeErrorMessage(loadMatrix(matrixSource, coo, info), error)) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  CsrMatrix csr = CsrMatrix::fromCoo(std::move(coo));
  MatrixStats stats;
  MatrixFeatures features;
  unsigned fr = std::max(1u, static_cast<unsigned>(reps));
  double statsTime = medianSeconds(fr, [&] { stats = computeStats(csr); });
  double imageTime =
      medianSeconds(fr, [&] { features = featurize(csr, stats); });
  double featurizeTime = medianSeconds(fr, [&] { features = featurize(csr); });

  std::vector<Schedule> cands = candidates(numCandidates);
  std::string file = modelPath;
  std::string tmp;
  if (file.empty()) {
    std::unique_ptr<Model> m = Model::create(ModelConfig(), 1, &error);
    if (!m) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    m->markTrained(TargetKind::CPU);
    tmp = "/tmp/sptune-rank-latency-" + std::to_string(::getpid()) + ".pt";
    if (!m->save(tmp, error)) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    file = tmp;
  }
  std::unique_ptr<CostModel> learned =
      takeValue(createCostModel(CostModelMode::Development, file), error)
          .value_or(nullptr);
  if (!tmp.empty())
    llvm::sys::fs::remove(tmp);
  if (!learned) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  std::unique_ptr<CostModel> heuristic =
      takeValue(createCostModel(CostModelMode::Heuristic, ""), error)
          .value_or(nullptr);
  int64_t free = 64;
  bool ok = true;
  auto rankWith = [&](const CostModel &m) {
    std::string why;
    if (!takeValue(m.rank(features, cands, TargetKind::CPU, free), why)) {
      llvm::errs() << "error: " << why << "\n";
      ok = false;
    }
  };
  rankWith(*learned); // warm-up (first call allocates LibTorch's buffers)
  double learnedTime = medianSeconds(fr, [&] { rankWith(*learned); });
  double heuristicTime = medianSeconds(fr, [&] { rankWith(*heuristic); });
  if (!ok)
    return 1;

  std::printf("matrix %s: %lld x %lld, %lld nonzeros\n", info.id.c_str(),
              static_cast<long long>(csr.rows),
              static_cast<long long>(csr.cols),
              static_cast<long long>(csr.nnz()));
  std::printf("  computeStats                 %9.3f ms\n", statsTime * 1e3);
  std::printf("  images + histograms          %9.3f ms\n", imageTime * 1e3);
  std::printf("  featurize (total)            %9.3f ms\n", featurizeTime * 1e3);
  std::printf("rank %zu candidates (median of %u)\n", cands.size(), fr);
  std::printf("  heuristic                    %9.3f ms\n", heuristicTime * 1e3);
  std::printf("  learned model                %9.3f ms  (%.2fx of the 20 ms "
              "budget)\n",
              learnedTime * 1e3, learnedTime / 0.020);

  if (!outPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(outPath, ec);
    if (ec) {
      llvm::errs() << "error: cannot write '" << outPath
                   << "': " << ec.message() << "\n";
      return 1;
    }
    os << llvm::formatv(
        "{0:2}\n",
        llvm::json::Value(llvm::json::Object{
            {"matrix", info.id},
            {"rows", csr.rows},
            {"cols", csr.cols},
            {"nnz", csr.nnz()},
            {"stats_ms", statsTime * 1e3},
            {"images_ms", imageTime * 1e3},
            {"featurize_ms", featurizeTime * 1e3},
            {"candidates", static_cast<int64_t>(cands.size())},
            {"rank_heuristic_ms", heuristicTime * 1e3},
            {"rank_model_ms", learnedTime * 1e3},
            {"rank_budget_ratio", learnedTime / 0.020},
            {"model", modelPath.empty() ? std::string("untrained default "
                                                      "architecture")
                                        : std::string(modelPath)}}));
  }
  return 0;
}
