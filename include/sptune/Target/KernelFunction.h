//===- KernelFunction.h - A kernel descriptor written as linalg -*- C++ -*-===//
//
// Part of sptune. The inverse of the matcher (sptune/Analysis/KernelMatcher.h
// `describeKernel`): a KernelDescriptor printed as the function a user would
// write, one `linalg.generic` on #sparse_tensor operands. The measurers
// compile this function, so what is timed is the kernel a descriptor
// describes, whatever its shape, and not IR written by hand per kernel.
//
// The function, for inputs X0..Xn-1 and output Y:
//   func.func @kernel(%in0: X0, ..., %in<n-1>: Xn-1 [, %out: Y]) -> Y
// The output is an argument (and the generic's `outs`) when it is dense or
// when the body is the in-place sampled form (SDDMM's
// sparse_tensor.unary/reduce, which updates the sparse output's values);
// a sparse output of any other body is allocated fresh with tensor.empty.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_KERNELFUNCTION_H
#define SPTUNE_TARGET_KERNELFUNCTION_H

#include "sptune/Schedule/KernelDescriptor.h"

#include "llvm/Support/Error.h"

#include <set>
#include <string>

namespace sptune {

struct KernelFunctionOptions {
  /// The function's name, without '@'.
  std::string name = "kernel";
  /// The type every sparse operand has, e.g. an alias `!S` the caller
  /// defines, or a whole `tensor<...x f32, #sparse_tensor.encoding<...>>`.
  /// The descriptor's levels are what the matcher read; the storage the
  /// kernel is written on is the caller's choice (a schedule's).
  std::string sparseType = "!S";
  /// A dense output allocated in the function and filled with zeros
  /// (`tensor.empty`, `linalg.fill`), not an argument: the form sptune's own
  /// kernels replace (sptune/Analysis/FilledValue.h), e.g. MTTKRP's.
  bool freshFilledOutput = false;
  /// Rank-2 dense inputs (by operand index) the caller supplies transposed:
  /// the function takes the transpose and undoes it with a linalg.transpose
  /// before the generic, as GNN code reading a feature matrix B^T does.
  std::set<unsigned> transposedInputs;
};

/// The type of operand `n` as the function's signature spells it: the
/// sparse type, or `tensor<AxBxET>` with `transposed` swapping a rank-2
/// shape.
std::string kernelOperandType(const KernelDescriptor &d, unsigned n,
                              const KernelFunctionOptions &options,
                              bool transposed = false);

/// Whether the function takes the output as its last argument (see above;
/// a dense output never with options.freshFilledOutput).
bool kernelTakesOutput(const KernelDescriptor &d,
                       const KernelFunctionOptions &options = {});

/// The function's text. Fails, saying why, when the descriptor cannot be
/// written: a dynamic loop, an `Other` body, no output, sparse operands of
/// different shapes (they share one type), a transposed operand that is not
/// a rank-2 dense input.
llvm::Expected<std::string>
printKernelFunction(const KernelDescriptor &d,
                    const KernelFunctionOptions &options = {});

} // namespace sptune

#endif // SPTUNE_TARGET_KERNELFUNCTION_H
