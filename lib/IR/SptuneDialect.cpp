//===- SptuneDialect.cpp - sptune dialect ---------------------------------===//
//
// The dialect and the tablegen'd attribute and enum definitions. Each
// attribute's parser, printer and verifier live in a file of their own.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneDialect.h"
#include "sptune/IR/SptuneAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sptune;

#include "sptune/IR/SptuneDialect.cpp.inc"
#include "sptune/IR/SptuneEnums.cpp.inc"

llvm::StringRef mlir::sptune::stringifyKernelKind(KernelKind kind) {
  return ::sptune::toString(kind);
}
std::optional<mlir::sptune::KernelKind>
mlir::sptune::symbolizeKernelKind(llvm::StringRef name) {
  return ::sptune::parseKernelType(std::string_view(name.data(), name.size()));
}
llvm::StringRef mlir::sptune::stringifyLoopRole(LoopRole role) {
  return ::sptune::toString(role);
}
std::optional<mlir::sptune::LoopRole>
mlir::sptune::symbolizeLoopRole(llvm::StringRef name) {
  return ::sptune::parseRole(std::string_view(name.data(), name.size()));
}

bool mlir::sptune::isKernelElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         type.isSignlessInteger(8) || type.isSignlessInteger(16) ||
         type.isSignlessInteger(32) || type.isSignlessInteger(64);
}
llvm::StringRef mlir::sptune::kernelElementTypesText() {
  return "f16, bf16, f32, f64, i8, i16, i32 or i64";
}

#define GET_ATTRDEF_CLASSES
#include "sptune/IR/SptuneAttrs.cpp.inc"

void SptuneDialect::initialize() { registerAttributes(); }

void SptuneDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sptune/IR/SptuneAttrs.cpp.inc"
      >();
}
