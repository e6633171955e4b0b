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

#include "sptune/Schedule/Schedule.h"
#include "llvm/ADT/Hashing.h"

namespace sptune {
/// Hashing for the #sptune.schedule storage.
inline llvm::hash_code hash_value(const Schedule &s) {
  return llvm::hash_value(s.str());
}
} // namespace sptune

#include "sptune/IR/SptuneEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sptune/IR/SptuneAttrs.h.inc"

#endif // SPTUNE_IR_SPTUNEATTRS_H
