//===- InitAll.cpp - Register everything sptune provides ------------------===//

#include "sptune/InitAll.h"
#include "sptune/InitAllTargets.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::sptune::registerAllSptuneDialects(DialectRegistry &registry) {
  registry.insert<SptuneDialect>();
}

void mlir::sptune::registerAllSptunePasses() {
  ::sptune::registerAllTargets();
  registerSptunePasses();
  ::sptune::registerAllTargetPasses();
}
