//===- sptune-opt.cpp - sptune optimizer driver ---------------------------===//
//
// mlir-opt with every upstream dialect, extension, pass and pipeline, plus
// sptune's own. It can measure (sptune-autotune measure-top-k=...): the
// candidates run in sptune-measure worker processes.
//
// The passes named on the command line (upstream's too: --sparsifier) run
// under a crash recovery context: a crash in upstream code on input it does
// not handle ends with its stack, a message and exit status 1, the output
// file removed, instead of a process killed by the signal. Crashes in the
// worker threads of a parallel nested pipeline are not caught
// (--mlir-disable-threading makes them so).
//
//===----------------------------------------------------------------------===//

#include "sptune/Collect/WorkerCandidateMeasurer.h"
#include "sptune/Config.h"
#include "sptune/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::sptune::registerAllSptunePasses();
  sptune::registerWorkerCandidateMeasurer();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::sptune::registerAllSptuneDialects(registry);

  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "sptune version " << SPTUNE_VERSION << "\n"
       << "  built with LLVM/MLIR " << SPTUNE_LLVM_VERSION << "\n";
  });
  // LLVM's stack-dump handlers first (MlirOptMain's InitLLVM finds them
  // installed), then the recovery handlers over them: a crash on this thread
  // is recovered (its frames printed); on another thread the recovery
  // handlers step aside and LLVM's dump the stack and end the process.
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext context;
  // The stack at the crash, for a bug report (and for the probe, which tells
  // sptune's crashes from upstream's by the frames).
  context.DumpStackAndCleanupOnFailure = true;
  mlir::LogicalResult result = mlir::failure();
  if (!context.RunSafely([&] {
        result = mlir::MlirOptMain(argc, argv, "sptune optimizer driver\n",
                                   registry);
      })) {
    // The stack was abandoned: remove the output file (registered for
    // removal on a signal) and leave without running destructors.
    llvm::sys::RunInterruptHandlers();
    llvm::errs() << "sptune-opt: crashed (signal " << context.RetCode - 128
                 << ") while running the passes; the frames above show where "
                    "(upstream MLIR "
                 << SPTUNE_LLVM_VERSION
                 << " on input it does not handle, or a bug in sptune); "
                    "nothing was written. "
                    "--mlir-pass-pipeline-crash-reproducer=FILE saves the "
                    "module and the pass that crashed\n";
    llvm::errs().flush();
    std::_Exit(1);
  }
  return mlir::asMainReturnCode(result);
}
