//===- SptuneDialect.cpp - sptune dialect ---------------------------------===//

#include "sptune/IR/SptuneDialect.h"
#include "sptune/IR/SptuneAttrs.h"

using namespace mlir;
using namespace mlir::sptune;

#include "sptune/IR/SptuneDialect.cpp.inc"

void SptuneDialect::initialize() { registerAttributes(); }
