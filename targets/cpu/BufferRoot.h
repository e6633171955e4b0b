//===- BufferRoot.h - The buffer a memref value is a view of ----*- C++ -*-===//
//
// The CPU target's loop rewrites (sptune-promote-accumulators,
// sptune-jam-reductions) reason about which accesses may touch the same
// memory by the buffer each goes through. Function arguments are distinct
// roots: a kernel's operands are distinct tensors (its output updated in
// place, its inputs only read), which the sparsifier's own code assumes.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_BUFFERROOT_H
#define SPTUNE_TARGETS_CPU_BUFFERROOT_H

#include "mlir/IR/Value.h"

namespace mlir {
namespace sptune {

/// The buffer `memref` goes through, followed back through views and casts
/// to the function argument or allocation it is part of.
Value bufferRoot(Value memref);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_BUFFERROOT_H
