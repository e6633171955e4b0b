//===- SptuneAttrs.h - sptune attributes ------------------------*- C++ -*-===//
//
// Part of sptune. #sptune.kernel and #sptune.schedule.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_IR_SPTUNEATTRS_H
#define SPTUNE_IR_SPTUNEATTRS_H

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "sptune/IR/SptuneEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sptune/IR/SptuneAttrs.h.inc"

#endif // SPTUNE_IR_SPTUNEATTRS_H
