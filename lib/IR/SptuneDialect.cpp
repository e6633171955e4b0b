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

#define GET_ATTRDEF_CLASSES
#include "sptune/IR/SptuneAttrs.cpp.inc"

void SptuneDialect::initialize() { registerAttributes(); }

void SptuneDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sptune/IR/SptuneAttrs.cpp.inc"
      >();
}
