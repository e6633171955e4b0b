//===- KernelMatcher.h - Recognize sparse kernels in linalg -----*- C++ -*-===//
//
// Part of sptune. The analysis behind `sptune-extract-kernels`: decides whether
// a linalg op on #sparse_tensor operands is an SpMM, SDDMM, SpMV or SpGEMM (by
// its own rules; sptune/Analysis/SpgemmForm.h for SpGEMM) or a kernel type
// added at run time (by its canonical form, sptune/Schedule/KernelTypes.h), and
// if so describes it (roles of loops and operands, sizes, encoding). It
// rewrites nothing; the pass turns its result into a #sptune.kernel attribute.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_ANALYSIS_KERNELMATCHER_H
#define SPTUNE_ANALYSIS_KERNELMATCHER_H

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/Schedule/KernelDescriptor.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace mlir {
namespace sptune {

/// What the matcher found out about a linalg op.
struct KernelMatch {
  /// What the op computes, when it can be described (ranked tensors,
  /// projected-permutation indexing maps), recognized or not.
  std::optional<::sptune::KernelDescriptor> descriptor;
  /// The op has no sparse operand: it is not a candidate, stay silent.
  bool isSparse = false;
  /// The recognized kernel (null when the op is sparse but not recognized).
  KernelAttr kernel;
  /// Why a sparse op was not recognized, phrased for a remark.
  std::string reason;

  bool recognized() const { return static_cast<bool>(kernel); }
};

/// Returns true when any operand of `op` has a #sparse_tensor encoding.
bool hasSparseOperand(Operation *op);

/// Describes what `op` computes — loops, operands of any rank, the body's
/// meaning — or says why it cannot (an operand that is not a ranked tensor,
/// an indexing map that is not a projected permutation, several outputs).
llvm::Expected<::sptune::KernelDescriptor> describeKernel(linalg::LinalgOp op);

/// Why `op` is not a plain product of `inputs` inputs into one result whose
/// descriptor has the known shape `shape` (KernelDescriptor::shapeName(),
/// `what` naming it in the reason: "an MTTKRP"), its body a plain
/// multiply-accumulate (no invariant factor); "" with `descriptor` set when
/// it is. The opening checks of the forms a target's own kernel computes
/// (SpgemmForm.h, MttkrpForm.h, BatchedSpmmForm.h).
std::string whyNotPlainProductOfShape(linalg::LinalgOp op, unsigned inputs,
                                      llvm::StringRef shape,
                                      llvm::StringRef what,
                                      ::sptune::KernelDescriptor &descriptor);

/// A factor of a kernel's product that no loop changes
/// (KernelDescriptor::scaled): a constant or a value defined outside the
/// op, by which the product is multiplied or (a non-zero constant) divided.
struct InvariantFactor {
  Value value;
  bool divides = false;
};

/// The invariant factors of `op`'s product in the order the body meets
/// them: empty when its body is not a product sptune recognizes or has
/// none. A pass that rebuilds the body keeps them with these.
SmallVector<InvariantFactor> invariantFactors(linalg::LinalgOp op);

/// Classifies `op`. Never fails hard: unrecognized sparse ops come back with
/// a reason, dense ops with `isSparse == false`.
KernelMatch matchSparseKernel(linalg::LinalgOp op);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_ANALYSIS_KERNELMATCHER_H
