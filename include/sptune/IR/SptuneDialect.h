//===- SptuneDialect.h - sptune dialect -------------------------*- C++ -*-===//
//
// Part of sptune. The dialect that holds sptune's attributes.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_IR_SPTUNEDIALECT_H
#define SPTUNE_IR_SPTUNEDIALECT_H

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/Dialect.h"

#include "sptune/IR/SptuneDialect.h.inc"

#endif // SPTUNE_IR_SPTUNEDIALECT_H
