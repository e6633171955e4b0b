//===- MttkrpForm.h - The MTTKRPs sptune tunes ------------------*- C++ -*-===//
//
// Part of sptune. Which MTTKRPs (mode 1, A(i, j) += B(i, k, l) C(k, j)
// D(l, j), B a sparse 3-D tensor) the kernel matcher recognizes as the
// kernel type `mttkrp`: those a target's own kernel computes (the CPU's,
// targets/cpu/FactoredMttkrp.h, which sums B's slices in one block of equal
// work per thread). Others pass through untuned, with the reason in the
// matcher's remark, and the sparsifier computes them.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_MTTKRPFORM_H
#define SPTUNE_ANALYSIS_MTTKRPFORM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// The widest row of A (the rank) the kernel keeps in vector registers, in
/// bytes: 64 f64 or 128 f32, 8 AVX-512 registers for A's row and 8 for the
/// fiber's sum (AVX2's 16 registers spill some); wider ranks are left to
/// the sparsifier.
constexpr int64_t kMaxMttkrpRowBytes = 512;

/// The inputs of an MTTKRP that play B(i, k, l), C(k, j) and D(l, j).
struct MttkrpInputs {
  unsigned b = 0, c = 0, d = 0;
};

/// Why `op` is not an MTTKRP that sptune's kernel computes, or "" when it
/// is (with `inputs` set when given): a plain multiply-accumulate (no
/// invariant factor) A(i, j) += B(i, k, l) C(k, j) D(l, j), inputs in any
/// order, none transposed, k and l reductions; B its only sparse operand,
/// stored as CSF or ordered COO (sptune/Analysis/SparseStorage.h); one
/// element type, f32 or f64; C, D and A dense with the same static number
/// of columns (the rank), rows of at most kMaxMttkrpRowBytes; A starting
/// from a linalg.fill of a fresh tensor (sptune/Analysis/FilledValue.h).
std::string whyNotKernelMttkrp(linalg::LinalgOp op,
                               MttkrpInputs *inputs = nullptr);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_MTTKRPFORM_H
