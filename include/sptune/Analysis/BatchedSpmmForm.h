//===- BatchedSpmmForm.h - The batched SpMMs sptune tunes -------*- C++ -*-===//
//
// Part of sptune. Which batched SpMMs (C(b, i, j) += A(b, i, k) B(b, k, j),
// A a sparse 3-D tensor) the kernel matcher recognizes as the kernel type
// `batched_spmm`: those a target's own kernel computes (the CPU's,
// targets/cpu/BatchedRowsSpmm.h, which walks all rows of all batches as one
// CSR matrix in blocks of equal work). Others pass through untuned, with
// the reason in the matcher's remark, and the sparsifier computes them.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_BATCHEDSPMMFORM_H
#define SPTUNE_ANALYSIS_BATCHEDSPMMFORM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// The widest row of C the kernel keeps in vector registers, in bytes: 128
/// f32 or 64 f64, 8 AVX-512 registers; wider rows are left to the
/// sparsifier.
constexpr int64_t kMaxBatchedRowBytes = 512;

/// The inputs of a batched SpMM that play A(b, i, k) and B(b, k, j).
struct BatchedSpmmInputs {
  unsigned a = 0, b = 1;
};

/// Whether `type` is a 3-D tensor of dense batches of CSR rows: plain
/// storage (isPlainSparseStorage), levels dense, dense, then compressed and
/// unique.
bool isBatchedCsr(Type type);

/// Why `op` is not a batched SpMM that sptune's kernel computes, or "" when
/// it is (with `inputs` set when given): a plain multiply-accumulate
/// C(b, i, j) += A(b, i, k) B(b, k, j), inputs in either order, none
/// transposed; A its only sparse operand, stored as dense batches of CSR
/// rows (isBatchedCsr) or ordered COO (sptune/Analysis/SparseStorage.h);
/// one element type, f32 or f64; B and C dense with the same static N,
/// rows of at most kMaxBatchedRowBytes; C starting from a linalg.fill of a
/// fresh tensor (sptune/Analysis/FilledValue.h). Whether `op` has a
/// schedule is the caller's concern.
std::string whyNotKernelBatchedSpmm(linalg::LinalgOp op,
                                    BatchedSpmmInputs *inputs = nullptr);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_BATCHEDSPMMFORM_H
