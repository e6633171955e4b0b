//===- ExtractTesting.h - Modules with their kernels recognized -*- C++ -*-===//
//
// Part of sptune's unit tests: parses a module and runs
// sptune-extract-kernels on it, as the tests that call the passes' functions
// directly start.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_EXTRACTTESTING_H
#define SPTUNE_UNITTESTS_SUPPORT_EXTRACTTESTING_H

#include "sptune/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

namespace sptune::test {

/// `text` parsed in `ctx`, its kernels recognized (a test failure, and
/// possibly null, when either step fails).
inline mlir::OwningOpRef<mlir::ModuleOp>
recognizedModule(const char *text, mlir::MLIRContext &ctx) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  EXPECT_TRUE(module);
  if (!module)
    return module;
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::sptune::createExtractKernels());
  EXPECT_TRUE(mlir::succeeded(pm.run(*module)));
  return module;
}

} // namespace sptune::test

#endif // SPTUNE_UNITTESTS_SUPPORT_EXTRACTTESTING_H
