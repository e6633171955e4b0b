//===- NvvmGpuBench.cpp - sptune-gpu-bench: tuned vs cuSPARSE on a GPU ----===//
//
//   sptune-gpu-bench [options] MATRIX...
//
// For each matrix and kernel (SpMM, SDDMM): measures the cuSPARSE baseline
// (called directly), then a fixed set of NVVM schedules — MLIR's sparse GPU
// code generation with several thread counts, storages and loop orders, and
// the cuSPARSE path through sptune-lower-nvvm — and reports the fastest
// legal, correct one as "tuned" with its speedup over the baseline. The
// tuned choice is the best measured candidate of that set (an oracle over a
// small space; the NVVM cost model is trained from such measurements); the
// best of the code-generation candidates alone is reported as "codegen".
// Results are JSON lines: one per measurement, one summary per (matrix,
// kernel).
//
//   sptune-gpu-bench --emit-module --kernel=spmm --schedule="nvvm spmm, ..."
//                    --rows=R --cols=C
// prints the lowered bench module instead (no GPU needed).
//
// Exit status: 0 when every (matrix, kernel) has a baseline and a tuned
// time (individual candidates may fail and are reported), 1 on bad input,
// 2 when no GPU is usable, 3 when a baseline or every candidate failed.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmGpuBenchRun.h"
#include "nvvm/NvvmTarget.h"
#include "sptune/Support/BoundOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace sptune;
namespace cl = llvm::cl;

/// The options bind straight to the run's fields (defaults: theirs).
static NvvmGpuBenchOptions run;
static cl::OptionCategory category("sptune-gpu-bench options");


static BoundList
    matrices(cl::cat(category), cl::Positional, at(run.matrices),
             cl::desc("<matrix .mtx or gen: spec>"));
static BoundOpt<std::string> kernels(cl::cat(category), "kernel", at(run.kernels),
                                cl::desc("spmm, sddmm or all (default)"));
static BoundOpt<int64_t> freeSize(cl::cat(category), "free", at(run.free),
                             cl::desc("N of SpMM, K of SDDMM (64)"));
static BoundOpt<int> bits(cl::cat(category), "bits", at(run.bits),
                     cl::desc("Element bits: 32 (default) or 64"));
static BoundOpt<std::string> jsonPath(cl::cat(category), "json", at(run.jsonPath),
                                 cl::desc("Write JSON lines here"));
static BoundOpt<double> minSeconds(cl::cat(category), "min-seconds",
                              at(run.minSeconds),
                              cl::desc("Minimum measured time (0.05)"));
static BoundOpt<int> warmups(cl::cat(category), "warmups", at(run.warmups),
                        cl::desc("Untimed calls (3)"));
static BoundOpt<int> minReps(cl::cat(category), "min-reps", at(run.minReps),
                        cl::desc("Minimum repetitions (10)"));
static BoundOpt<int> maxReps(cl::cat(category), "max-reps", at(run.maxReps),
                        cl::desc("Maximum repetitions (500)"));
static BoundOpt<std::string> chip(cl::cat(category), "chip", at(run.chip),
                             cl::desc("sm_XY (default: the device's)"));
static BoundOpt<std::string> schedules(cl::cat(category), "schedules",
                                  at(run.schedules),
                                  cl::desc("Measure these schedules "
                                           "(';'-separated) instead of the "
                                           "built-in candidates"));
static BoundOpt<bool> emitModule(cl::cat(category), "emit-module",
                            at(run.emitModule),
                            cl::desc("Print the lowered bench module of "
                                     "--schedule and exit"));
static BoundOpt<std::string> schedule(cl::cat(category), "schedule",
                                 at(run.schedule),
                                 cl::desc("With --emit-module"));
static BoundOpt<bool> jitOnly(cl::cat(category), "jit-only", at(run.jitOnly),
                         cl::desc("Testing: also JIT the host code of "
                                  "--schedule against the runtime (no device "
                                  "needed) and exit"),
                         cl::Hidden);
static BoundOpt<int64_t> rows(cl::cat(category), "rows", at(run.rows),
                         cl::desc("With --emit-module (1024)"));
static BoundOpt<int64_t> cols(cl::cat(category), "cols", at(run.cols),
                         cl::desc("With --emit-module (1024)"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerNvvmTarget(); // prints and parses nvvm schedules
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "sptune GPU benchmark: tuned vs cuSPARSE\n");
  return runNvvmGpuBench(run);
}
