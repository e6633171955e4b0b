//===- standalone-opt.cpp - An MLIR driver that uses sptune ---------------===//
//
// Upstream MLIR's dialects, extensions and passes, sptune's dialect, passes,
// pipelines and targets (from an installed sptune: sptune/InitAll.h and
// Sptune::Passes), and this project's own pass and pipeline.
//
//===----------------------------------------------------------------------===//

#include "standalone/Passes.h"

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
  standalone::registerStandalonePasses();
  standalone::registerStandalonePipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::sptune::registerAllSptuneDialects(registry);

  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "standalone-opt, using sptune " << SPTUNE_VERSION << "\n";
  });
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "standalone compiler (MLIR + sptune)\n", registry));
}
