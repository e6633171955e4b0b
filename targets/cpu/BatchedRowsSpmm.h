//===- BatchedRowsSpmm.h - Batched SpMM over a batch's rows ----*- C++ -*-===//
//
// A batched SpMM, C(b, i, j) = sum over k of A(b, i, k) B(b, k, j) with A
// in dense batches of CSR rows (levels b : dense, i : dense, k :
// compressed), is what a multi-head attention layer or a minibatch of graphs
// of one size computes. MLIR's sparsifier runs it as the loop nest is
// written, with the CPU target's rule for kernels without a schedule: the
// batches in parallel (a handful of iterations for two threads to share),
// each batch's rows in turn, C's row loaded and stored per stored entry.
// Its rows are one array of positions over the flattened (b, i): sptune
// walks them as one CSR matrix of nb x m rows, all rows in parallel in
// blocks of equal work (a row's entries, plus one), each row's sums in
// vector registers (the row r = b m + i reads B's batch b, carried over a
// block's rows rather than divided out of each), as its scheduled 2-D SpMM
// keeps a row of C.
//
// A batched SpMM is computed so when it has a schedule (the kernel type
// `batched_spmm`, which the matcher gives only to batched SpMMs this kernel
// computes: sptune/Analysis/BatchedSpmmForm.h), or when it has none and
// meets the conditions below (else by the sparsifier; whyNotBatchedRowsSpmm
// says why; `batched-rows-spmm=false` and `parallelize-unscheduled=false`
// turn the kernel off for unscheduled ones):
//   - its body is a plain multiply-accumulate;
//   - A is its only sparse operand, levels in dimension order, not a
//     slice, no explicit or implicit value, stored as dense batches of CSR
//     rows (b : dense, i : dense, k : compressed and unique) or as ordered
//     COO (cpu/CooEntries.h: a compressed level and two singleton ones,
//     the last unique). COO has no positions of rows: the entries are cut
//     into one block per thread of equal entries at row starts, and each
//     block walks its entries once, a row's sum stored where (b, i)
//     changes and the rows it owns without entries filled as it passes
//     them (C written once);
//   - it reads B(b, k, j) and writes C(b, i, j), j of one static size with
//     rows of at most kMaxBatchedRowBytes, C starting from a linalg.fill of
//     a fresh tensor (cpu/FilledOutput.h);
//   - one element type, f32 or f64.
//
// As the factored MTTKRP kernel, the op is replaced, before sparsification,
// by a call to a declared function whose body is written on the buffers
// that code generation gives its arguments (defineBatchedRowsSpmmKernels).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_BATCHEDROWSSPMM_H
#define SPTUNE_TARGETS_CPU_BATCHEDROWSSPMM_H

#include "sptune/Analysis/BatchedSpmmForm.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// The attribute that marks a declared kernel: a dictionary
/// {types = [A, B, C], parallel = bool}.
constexpr const char *kBatchedRowsSpmmAttrName = "sptune.batched_rows_spmm";

/// The attribute that holds a declared kernel's blocks (an i64: the blocks
/// its rows are cut into when it runs in parallel, 0 for one per thread of
/// OpenMP's team at run time).
constexpr const char *kBatchedSpmmThreadsAttrName =
    "sptune.batched_spmm_threads";

/// A batched SpMM as the kernel reads it.
struct BatchedRowsSpmm {
  linalg::LinalgOp op;
  Value a, b;      ///< A(b, i, k), sparse; B(b, k, j)
  Value fillValue; ///< the value C's fill writes
};

/// Why `op` cannot run as the batched-rows kernel (the file header's
/// conditions, sptune/Analysis/BatchedSpmmForm.h), or "" when it can, with
/// `spmm` filled in. Whether `op` has a schedule is the caller's concern.
std::string whyNotBatchedRowsSpmm(linalg::LinalgOp op, BatchedRowsSpmm &spmm);

/// Replaces `spmm.op` with a call to a declared kernel that computes C; C's
/// fill and fresh tensor go where nothing else uses them. `parallel`: the
/// row loop runs in parallel (else in one thread); `threads`: its blocks
/// (kBatchedSpmmThreadsAttrName; its team size, when parallel with threads
/// > 0, as kOmpThreadsAttrName): one kernel per signature, parallelism and
/// blocks.
void outlineBatchedRowsSpmm(RewriterBase &rewriter, const BatchedRowsSpmm &spmm,
                            bool parallel, int threads);

/// After the sparsifier's code generation: gives every declared kernel of
/// `module` its body on the buffers its signature now has. Fails (with an
/// error on the function) when its marks or signature are not the ones
/// outlineBatchedRowsSpmm and code generation give. A parallel kernel cuts
/// its rows into blocks of equal work: its own blocks
/// (kBatchedSpmmThreadsAttrName) when it has them, else `threads` of them
/// when > 0 (the pipeline's `threads` option); 0 is one per thread of
/// OpenMP's default team (rowBlocks).
LogicalResult defineBatchedRowsSpmmKernels(ModuleOp module, int threads);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_BATCHEDROWSSPMM_H
