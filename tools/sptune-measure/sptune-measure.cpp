//===- sptune-measure.cpp - Measure one schedule, or serve as a worker ----===//
//
// One-shot:  sptune-measure --matrix M --kernel spmm --free 64
//                           (--schedule "cpu spmm, ..." | --baseline NAME)
// Worker:    sptune-measure --worker   (JSON requests on stdin, one JSON
//            result per line on stdout; see sptune/Collect/WorkerProtocol.h)
//
// Collectors run measurements in workers so that a compiler crash, a hang or
// a wrong result of one candidate is recorded and nothing else is lost.
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/WorkerProtocol.h"
#include "sptune/Config.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Machine/MachineDescriptor.h"
#include "sptune/Support/Error.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <iostream>
#include <string>

using namespace sptune;
namespace cl = llvm::cl;

static cl::OptionCategory category("sptune-measure options");

static cl::opt<bool> worker(cl::cat(category), "worker",
                            cl::desc("Serve JSON requests on stdin"));
static cl::opt<std::string>
    matrix(cl::cat(category), "matrix",
           cl::desc("Matrix: .mtx path or gen: spec (an MTTKRP's or a "
                    "batched SpMM's 3-D tensor: .tns path or gen3: spec)"));
static cl::opt<std::string>
    kernel(cl::cat(category), "kernel",
           cl::desc("spmm, sddmm, spmv, hadamard, spgemm (measured as A A), "
                    "mttkrp (on a 3-D tensor, --free its rank) or batched_spmm "
                    "(on a 3-D tensor, its batches the first dimension)"),
           cl::init("spmm"));
static cl::opt<int64_t> freeSize(cl::cat(category), "free",
                                 cl::desc("N of SpMM and batched SpMM, K of "
                                          "SDDMM, the rank of MTTKRP"),
                                 cl::init(64));
static cl::opt<int> bits(cl::cat(category), "bits",
                         cl::desc("Element bits: 32 or 64"), cl::init(32));
static cl::opt<bool> transposedB(
    cl::cat(category), "sddmm-b-transposed",
    cl::desc("SDDMM: supply B as B^T (cols x K, the layout of GNN feature "
             "matrices); the kernel transposes it in the IR, which a layout "
             "reading B^T elides"));
static cl::opt<std::string>
    target(cl::cat(category), "target",
           cl::desc("Target of a baseline (a schedule names its own)"),
           cl::init("cpu"));
static cl::opt<std::string> schedule(cl::cat(category), "schedule",
                                     cl::desc("The schedule (printed form)"));
static cl::opt<std::string> baseline(
    cl::cat(category), "baseline",
    cl::desc("Measure a baseline instead: heuristic, or one of the "
             "target's (cpu: mlir-default, eigen, rsb, reference, torch; nvvm: "
             "cusparse)"));
static cl::opt<double> minSeconds(cl::cat(category), "min-seconds",
                                  cl::desc("Minimum measured time"),
                                  cl::init(0.2));
static cl::opt<int> minReps(cl::cat(category), "min-reps",
                            cl::desc("Minimum repetitions"), cl::init(5));
static cl::opt<bool> noCheck(cl::cat(category), "no-check",
                             cl::desc("Skip the result check"));
static cl::opt<double> timeoutSeconds(
    cl::cat(category), "timeout",
    cl::desc("Seconds the compile and the runs may take together; past them "
             "the answer is 'timeout' (the request's timeout_s)"),
    cl::init(MeasureOptions().timeoutSeconds));
static cl::opt<std::string> injectFault(
    cl::cat(category), "inject-fault",
    cl::desc("Testing: 'crash:TEXT' or 'hang:TEXT' makes the worker segfault "
             "or hang on requests whose baseline or schedule contains TEXT"),
    cl::Hidden);
static cl::opt<bool> printMachine(
    cl::cat(category), "machine",
    cl::desc("Print this machine's descriptor (what every measurement "
             "record carries as 'machine': cores, SIMD width, caches, "
             "measured bandwidth) as JSON and exit"));
static cl::opt<bool> printIR(cl::cat(category), "print-ir",
                             cl::desc("Print the lowered module to stderr"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "sptune measurement worker\n");
  registerAllMeasurers();
  MeasureService service;
  if (!injectFault.empty()) {
    llvm::StringRef fault(injectFault);
    auto [kind, text] = fault.split(':');
    if ((kind != "crash" && kind != "hang") || text.empty()) {
      llvm::errs() << "sptune-measure: --inject-fault takes crash:TEXT or "
                      "hang:TEXT\n";
      return 2;
    }
    service.injectFault(kind == "crash", text.str());
  }
  if (worker)
    return service.serve(std::cin, llvm::outs());
  if (printMachine) {
    llvm::outs() << llvm::json::Value(toJson(thisMachine())) << "\n";
    return 0;
  }

  if (matrix.empty()) {
    llvm::errs() << "sptune-measure: --matrix is required (or --worker)\n";
    return 2;
  }
  MeasureRequest request;
  request.id = 0;
  request.target = target;
  if (std::optional<Schedule> parsed =
          llvm::expectedToOptional(parseSchedule(schedule)))
    request.target = toString(parsed->target);
  request.matrix = matrix;
  request.kernel = kernel;
  request.free = freeSize;
  request.elementBits = bits;
  request.transposedB = transposedB;
  request.schedule = schedule;
  request.baseline = baseline;
  request.options.minSeconds = minSeconds;
  request.options.minReps = minReps;
  // No --max-reps: a larger --min-reps raises the cap with it.
  request.options.maxReps = std::max(request.options.maxReps, minReps.getValue());
  request.options.checkResult = !noCheck;
  request.options.timeoutSeconds = timeoutSeconds;
  std::string error;
  if (takeErrorMessage(request.validate(), error)) {
    llvm::errs() << "sptune-measure: " << error << "\n";
    return 2;
  }
  MeasureResponse response = service.handleWithin(request, llvm::outs());
  if (printIR)
    llvm::errs() << service.lastModule() << "\n";
  llvm::outs() << response.toJson() << "\n";
  return response.measurement.ok() ? 0 : 1;
}
