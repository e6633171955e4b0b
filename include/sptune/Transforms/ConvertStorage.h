//===- ConvertStorage.h - Widening conversions ------------------*- C++ -*-===//
//
// Part of sptune. A schedule's storage differs from the operand's: the
// operand is converted where the kernel reads it. MLIR 22.1's
// sparse_tensor.convert sign-extends 8- and 16-bit positions and coordinates
// when it widens them (values of 2^(w-1) and more come out negative: wrong
// sums or a crash; reproduced with mlir-opt 22.1), so such storage takes a
// detour of its own.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TRANSFORMS_CONVERTSTORAGE_H
#define SPTUNE_TRANSFORMS_CONVERTSTORAGE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace sptune {

/// `sparse` (a sparse tensor) in the storage of `type` (same shape and
/// element type), built at the builder's insertion point. Storage with
/// positions or coordinates narrower than 32 bits is first copied, by a
/// sparse kernel whose loads zero-extend, into the same levels at index
/// width; narrow target storage with other levels is reached through its
/// levels at index width (each intermediate freed after its conversion);
/// anything else is one sparse_tensor.convert.
Value convertSparseStorage(OpBuilder &builder, Location loc, Value sparse,
                           RankedTensorType type);

/// `values` restricted to the entries `pattern` stores (both sparse, of one
/// type): a sparse intersection that keeps `values`' value wherever both
/// store an entry. A sparse result computed in blocked storage holds the
/// zeros of its blocks as entries, and converting it back keeps them; its
/// sample, in the caller's storage, says which entries upstream would have
/// stored (an entry whose value is zero included).
Value keepEntriesOf(OpBuilder &builder, Location loc, Value values,
                    Value pattern);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_CONVERTSTORAGE_H
