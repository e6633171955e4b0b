//===- SpgemmForm.h - The sparse x sparse products sptune tunes -*- C++ -*-===//
//
// Part of sptune. Which sparse x sparse products (SpGEMM) the kernel matcher
// recognizes: C(i, j) += A(i, k) * B(k, j), inputs in either order, A, B and
// C stored as CSR, C a fresh tensor — the products a target's row-wise kernel
// (the CPU's Gustavson product, targets/cpu/GustavsonSpgemm.h) computes
// exactly as upstream's sparsifier does. Others pass through untuned, with
// the reason in the matcher's remark.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_SPGEMMFORM_H
#define SPTUNE_ANALYSIS_SPGEMMFORM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir {
namespace sptune {

/// The input that plays A(i, k) (0 or 1) when `op` computes
/// C(i, j) += A(i, k) * B(k, j) with k its reduction loop (no operand
/// transposed), else -1.
int spgemmLeftFactor(linalg::LinalgOp op);

/// Why `type` is not a sparse tensor stored as ordered, unique CSR
/// ([dense, compressed], rows first, no slice) whose values are all stored
/// (no explicit or implicit value) and whose positions and coordinates are
/// at least `minWidth` bits wide (0 = index, always wide enough), or "".
std::string whyNotPlainCsr(Type type, unsigned minWidth);

/// Why `op` is not a sparse x sparse product that a row-wise kernel computes,
/// or "" when it is: a multiply-accumulate C(i, j) += A(i, k) * B(k, j)
/// (inputs in either order) without invariant factors; A, B and C of one
/// integer or float element type, each plain CSR (whyNotPlainCsr), C with
/// positions and coordinates of 32 bits or more; C a fresh tensor (its init
/// a tensor.empty).
std::string whyNotRowWiseSpgemm(linalg::LinalgOp op);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_SPGEMMFORM_H
