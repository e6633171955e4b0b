//===- SparseStorage.h - Storage a hand-written kernel reads ----*- C++ -*-===//
//
// Part of sptune. Which operand types the kernels sptune writes itself (the
// CPU target's MTTKRP, batched SpMM and fused kernels, targets/cpu) read from
// their buffers, asked of the IR before a kernel is chosen: by those kernels,
// and by the kernel matcher for the kernel types that only such a kernel
// computes (MttkrpForm.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_SPARSESTORAGE_H
#define SPTUNE_ANALYSIS_SPARSESTORAGE_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// Whether `type` is sparse storage a kernel sptune writes itself can read
/// from its buffers: rank `rank`, levels in dimension order, not a slice
/// (whose buffers are its parent's), its stored values the values (no
/// explicit or implicit value in the encoding). The level types are the
/// caller's to check.
bool isPlainSparseStorage(Type type, unsigned rank);

/// Whether `type` is ordered COO of rank `rank`: plain storage
/// (isPlainSparseStorage), a compressed level then singleton ones, every
/// level ordered (a group's entries are contiguous), the last unique (where
/// it is not, the sparsifier's loops take one of the entries stored at the
/// same coordinates, and a kernel adding them all would differ), its
/// coordinates one array of structures or (`soa`) one buffer per level.
bool isOrderedCoo(Type type, unsigned rank);

/// Whether `type` is a 3-D tensor stored as CSF: plain storage, the first
/// level dense or compressed and ordered, the others compressed, every
/// compressed level unique.
bool isCsf(Type type);

/// N when `type` is a dense tensor of rank `rank` and element type
/// `element` whose innermost dimension is static, N, with rows of at most
/// `maxBytes`; else -1.
int64_t staticRowWidth(Type type, Type element, unsigned rank,
                       int64_t maxBytes);

/// Why the operands of a product on `sparse` are not what a kernel sptune
/// writes itself reads, or "": one element type, f32 or f64; the dense
/// inputs `dense` and the output `init`, of rank `rank`, with one static
/// innermost size (`width` names it in the reason: "N", "rank") and rows of
/// at most `maxBytes`; `init` a linalg.fill of a fresh tensor
/// (sptune/Analysis/FilledValue.h).
std::string whyNotKernelOperands(Value sparse, ValueRange dense, Value init,
                                 unsigned rank, int64_t maxBytes,
                                 llvm::StringRef width);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_SPARSESTORAGE_H
