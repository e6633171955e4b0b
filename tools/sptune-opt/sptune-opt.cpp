//===- sptune-opt.cpp - sptune optimizer driver ---------------------------===//
//
// mlir-opt with every upstream dialect, extension, pass and pipeline, plus
// sptune's own. It can measure (sptune-autotune measure-top-k=...): the
// candidates run in sptune-measure worker processes.
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
#include "llvm/Support/raw_ostream.h"

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
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sptune optimizer driver\n", registry));
}
