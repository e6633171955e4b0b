//===- sptune-fuzz.cpp - Random legal schedules, executed and checked -----===//
//
// Draws random legal schedules from the CPU space for a set of small matrices
// with awkward shapes (empty rows, one row, one column, rectangular, random,
// blocked, power-law, tiny, empty), compiles and runs each in a measurement
// worker, and checks the result against a double-precision reference. Every
// schedule the legality check accepts must compile and compute the right
// numbers; any other outcome is a finding, printed with its schedule and
// reason.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuScheduleSpace.h"
#include "cpu/CpuTarget.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Measurer.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-fuzz options");

static cl::list<std::string> kernels(cl::cat(category), "kernel",
                                     cl::desc("spmm, sddmm, spmv"),
                                     cl::CommaSeparated);
static cl::opt<unsigned> count(cl::cat(category), "schedules",
                               cl::desc("Schedules per kernel (spread over "
                                        "the matrices)"),
                               cl::init(200));
static cl::opt<uint64_t> seed(cl::cat(category), "seed",
                              cl::desc("Random seed"), cl::init(1));
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("N of SpMM / K of SDDMM"),
                                 cl::init(16));
static cl::list<std::string>
    matrices(cl::cat(category), "matrix",
             cl::desc("Matrices (paths or gen: specs); default: "
                      "a built-in set of awkward shapes"));
static cl::opt<unsigned> workers(cl::cat(category), "workers",
                                 cl::desc("Worker processes"), cl::init(1));
static cl::opt<double> timeout(cl::cat(category), "timeout",
                               cl::desc("Seconds per schedule"), cl::init(60));
static cl::opt<std::string> worker(cl::cat(category), "worker-exe",
                                   cl::desc("sptune-measure executable"));
static cl::opt<bool> verbose(cl::cat(category), "v",
                             cl::desc("Print every schedule"));

static const char *kDefaultMatrices[] = {
    "gen:uniform:rows=64,cols=64,density=0.08,seed=11", // random
    "gen:uniform:rows=96,cols=96,nnz=24,seed=12",       // mostly empty rows
    "gen:uniform:rows=1,cols=48,nnz=20,seed=13",        // a single row
    "gen:uniform:rows=48,cols=1,nnz=20,seed=14",        // a single column
    "gen:uniform:rows=40,cols=112,nnz=300,seed=15",     // rectangular
    "gen:block:rows=64,cols=64,nnz=512,bs=4,seed=16",   // blocked
    "gen:rmat:rows=128,cols=128,nnz=900,seed=17",       // power law
    "gen:uniform:rows=16,cols=8,nnz=40,seed=18", // blocks as large as a side
    "gen:uniform:rows=32,cols=32,nnz=0,seed=19", // no entries at all
};

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune schedule fuzzer\n");
  registerCpuTarget(); // prints and parses cpu schedules
  std::vector<std::string> kernelNames(kernels.begin(), kernels.end());
  if (kernelNames.empty())
    kernelNames = {"spmm", "sddmm"};
  std::vector<std::string> sources(matrices.begin(), matrices.end());
  if (sources.empty())
    sources.assign(std::begin(kDefaultMatrices), std::end(kDefaultMatrices));

  // Shapes of the matrices, for the space (the kernel is set per kernel
  // below).
  std::vector<ProblemShape> shapes;
  for (const std::string &source : sources) {
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    if (takeErrorMessage(loadMatrix(source, coo, info), error)) {
      llvm::errs() << "sptune-fuzz: " << error << "\n";
      return 2;
    }
    coo.canonicalize();
    shapes.push_back(
        {kDefaultKernelType, coo.rows, coo.cols, freeSize, coo.nnz()});
  }

  std::vector<MeasureRequest> requests;
  // Every legal schedule, also those the tuner's space leaves out until a
  // model is trained on them: column panels of vectors, rows balanced by
  // stored entries (the heuristic's and the rule's OpenMP schedule, which
  // the shipped model has no feature for).
  CpuSpaceConfig config;
  config.vectorizedTiles = true;
  config.omp.push_back({OmpScheduleKind::Balanced, 0});
  // And rows visited in reverse Cuthill-McKee order, which no tuner's space
  // holds (it never won), where the matrix is square.
  config.rowOrders = {RowOrderKind::Natural, RowOrderKind::Rcm};
  CpuScheduleSpace space(config);
  for (const std::string &name : kernelNames) {
    std::optional<KernelType> kernel = parseKernelType(name);
    if (!kernel) {
      llvm::errs() << "sptune-fuzz: unknown kernel '" << name << "'\n";
      return 2;
    }
    if (std::string why = whyKernelNotMeasured(*kernel); !why.empty()) {
      llvm::errs() << "sptune-fuzz: --kernel " << name << ": " << why << "\n";
      return 2;
    }
    for (size_t m = 0; m < sources.size(); ++m) {
      ProblemShape shape = shapes[m];
      shape.kernel = *kernel;
      size_t share = count / sources.size() + (m < count % sources.size());
      for (const Schedule &s :
           space.sample(shape, share, seed * 1000003 + m * 131 + 7)) {
        MeasureRequest r;
        r.id = static_cast<int64_t>(requests.size());
        r.matrix = sources[m];
        r.kernel = name;
        r.free = freeSize;
        r.schedule = s.str();
        r.options.warmups = 0;
        r.options.minReps = 1;
        r.options.maxReps = 1;
        r.options.minSeconds = 0;
        r.options.timeoutSeconds = timeout;
        requests.push_back(r);
      }
    }
  }

  WorkerOptions options;
  options.executable = worker;
  options.timeoutSeconds = timeout;
  WorkerPool pool(options, workers);
  std::map<std::string, int> byStatus;
  std::vector<std::string> findings;
  auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  pool.run(requests, [&](const MeasureRequest &q, const MeasureResponse &r) {
    ++done;
    const char *status = toString(r.measurement.status);
    ++byStatus[status];
    if (!r.measurement.ok())
      findings.push_back(std::string(status) + " | " + q.matrix + " | " +
                         q.schedule + " | " + r.measurement.reason);
    if (verbose)
      llvm::errs() << status << " " << q.matrix << " " << q.schedule << "\n";
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::errs() << "\r[" << done << "/" << requests.size() << "] "
                 << llvm::format("%.1f", done / elapsed) << " schedules/s, ETA "
                 << llvm::format("%.0f",
                                 (requests.size() - done) * elapsed / done)
                 << " s   ";
  });
  llvm::errs() << "\n";

  llvm::outs() << "schedules: " << requests.size() << "\n";
  for (auto &[status, n] : byStatus)
    llvm::outs() << "  " << status << ": " << n << "\n";
  llvm::outs() << "failures: " << findings.size() << "\n";
  for (const std::string &f : findings)
    llvm::outs() << "  " << f << "\n";
  return findings.empty() ? 0 : 1;
}
