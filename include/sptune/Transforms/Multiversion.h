//===- Multiversion.h - Variants and a run-time dispatcher ------*- C++ -*-===//
//
// Part of sptune. What `sptune-autotune{multiversion=K}` does to a kernel
// compiled without its matrix, as functions a downstream compiler can call:
// plan K variants over a training distribution (sptune/Tune/Multiversion.h)
// and rewrite the kernel's function @f into
//
//   @f__sptune_v0 ... @f__sptune_vK-1   copies of @f, each kernel scheduled
//                                       with one variant's schedule;
//   @f__sptune_route(%A) -> index       the dispatch features of the sparse
//                                       operand (dimensions, entries, and
//                                       when the rule reads them the row
//                                       lengths from its positions, O(rows))
//                                       and the rule as nested scf.if;
//   @f                                  the original signature: calls the
//                                       route, then the variant it names.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TRANSFORMS_MULTIVERSION_H
#define SPTUNE_TRANSFORMS_MULTIVERSION_H

#include "sptune/Transforms/Autotune.h"
#include "sptune/Tune/Multiversion.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
namespace sptune {

/// Names of the functions a multi-versioned @f becomes.
std::string variantFunctionName(llvm::StringRef function, unsigned variant);
std::string routeFunctionName(llvm::StringRef function);

/// Why `k`'s kernel cannot be multi-versioned, or "": its function must
/// hold no other kernel, the sparse operand must be one of the function's
/// arguments, in canonical orientation, stored as CSR (the dispatcher reads
/// its positions), and the target must rewrite IR.
std::string whyNotMultiversioned(const KernelTuningContext &k);

/// The matrix sources of a training distribution: `spec` is a directory
/// (its .mtx files, sorted), a file (one .mtx path or gen: spec a line;
/// blank lines and '#' comments skipped; relative paths are the file's), or
/// "" (the built-in set, ::sptune::defaultDispatchTrainingSpecs).
llvm::Expected<std::vector<std::string>>
trainingMatrixSources(const std::string &spec);

/// Emits `plan`'s variants of `k`'s function, its route function, and turns
/// the function into the dispatcher, with a remark on the kernel that
/// names the variants and the rule (`note` appended). `k` must pass
/// whyNotMultiversioned. Fails, with an error, when a function name it
/// needs is taken.
LogicalResult emitMultiversioned(KernelTuningContext &k,
                                 const ::sptune::MultiversionPlan &plan,
                                 llvm::StringRef trainingDescription,
                                 llvm::StringRef note = "");

/// What `sptune-autotune` does with a kernel without a matrix when its
/// options ask for variants: loads the training matrices (through `k`'s
/// MatrixCache), plans (`model` ranks; the heuristic when it cannot serve
/// the target or kernel) and emits. `k` must pass whyNotMultiversioned.
/// Fails, with an error on the op, when a training matrix cannot be read or
/// planning fails.
LogicalResult multiversionKernel(KernelTuningContext &k,
                                 const ::sptune::CostModel &model,
                                 llvm::StringRef note = "");

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_MULTIVERSION_H
