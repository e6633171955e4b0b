//===- JitContext.cpp - The MLIR context the JIT measurers build in -------===//
//
// Kept apart from JitBench.cpp: registering every upstream dialect pulls in
// the heaviest headers of the build.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneDialect.h"
#include "sptune/Target/JitBench.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

std::unique_ptr<mlir::MLIRContext> sptune::createJitContext(
    llvm::function_ref<void(mlir::DialectRegistry &)> addTargetTranslations) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::sptune::SptuneDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  addTargetTranslations(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  static bool nativeReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeReady;
  return ctx;
}
