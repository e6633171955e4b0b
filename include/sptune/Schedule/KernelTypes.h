//===- KernelTypes.h - The kernels a schedule can describe ------*- C++ -*-===//
//
// Part of sptune. What the schedule layer knows of a kernel type: which loop
// roles index its sparse operand (row, column), which loop the sparse operand
// does not index (the "free" loop), which one is a reduction, and the dense
// operands whose storage order a schedule may choose. SpMM, SDDMM, SpMV,
// the sparse ⊙ dense (Hadamard) product, the sparse x sparse product
// (SpGEMM), MTTKRP and the batched SpMM are built in (KernelType's
// enumerators); more are added at run time with addKernelType from a
// canonical form, a KernelDescriptor whose loops are named by their roles —
// docs/kernels.md shows it with a toy added by one registration line.
//
// The Hadamard product and added types are defined by their canonical form:
// their properties are derived from it, and an op is of such a type when its
// descriptor is the form up to the names of its loops
// (matchKernelTypeByForm). SpMM, SDDMM, SpMV, SpGEMM, MTTKRP and the
// batched SpMM keep the
// matcher's own rules (sptune/Analysis/KernelMatcher.h), which accept more
// spellings (either operand order, transposed inputs, the in-place SDDMM).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_KERNELTYPES_H
#define SPTUNE_SCHEDULE_KERNELTYPES_H

#include "sptune/Schedule/KernelDescriptor.h"
#include "sptune/Schedule/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

/// A dense operand of a kernel whose storage order a schedule chooses, in
/// its canonical orientation: `outer` x `inner`, `inner` contiguous (the
/// row-major layout of the kernel as written: SpMM's B(k,j) and C(i,j),
/// SDDMM's A(i,k) and B(k,j)). SpMV's vector has one order only.
struct DenseOperandInfo {
  const char *name; ///< "a", "b" or "c", as printed in `layout = [...]`
  Role outer;
  Role inner;
};

struct KernelTypeInfo {
  /// "spmm", "sddmm", "spmv", or the name it was added with.
  std::string name;
  /// The roles of the sparse operand's dimensions, in canonical order.
  Role row = Role::I;
  Role col = Role::K;
  /// The loop the sparse operand does not index (SpMM's j), if any.
  std::optional<Role> free;
  /// The reduction loop, if any.
  std::optional<Role> reduction;
  /// The dense operands whose layout a schedule chooses, bit n of
  /// Schedule::denseTransposed standing for the n-th.
  std::vector<DenseOperandInfo> denseOperands;
  /// Types defined by their form (the Hadamard product, added types): the
  /// canonical form (loops named "i", "j", "k" by role, sizes dynamic).
  /// Empty for SpMM, SDDMM, SpMV, SpGEMM, MTTKRP and the batched SpMM.
  std::optional<KernelDescriptor> pattern;
};

/// The properties of `k` (a built-in or added type).
const KernelTypeInfo &kernelTypeInfo(KernelType k);

/// Every kernel type, the built-in ones first, then in the order added.
std::vector<KernelType> allKernelTypes();

/// True for KernelType's enumerators (SpMM, SDDMM, SpMV, Hadamard, SpGEMM,
/// MTTKRP, BatchedSpMM).
bool isBuiltinKernelType(KernelType k);

/// True for the kernel types a target's own kernel computes on the
/// operands' own storage, built as a schedule's knobs say (SpGEMM, MTTKRP,
/// the batched SpMM): nothing is converted, and a schedule's storage part
/// is a stand-in (CSR in the natural order, widths [64, 64]) for whatever
/// the operands' is.
bool keepsOperandStorage(KernelType k);

/// True for the kernel types whose sparse operand is a 3-D tensor, measured
/// on one (a gen3: spec or a .tns file; Measurer::measureTensor): MTTKRP
/// and the batched SpMM (its batches the tensor's first dimension).
bool isMeasuredOnTensor(KernelType k);

/// Whether `name` can name a kernel type: a lower-case identifier of at most
/// 32 characters (letters, digits, '_'; a letter first).
bool isKernelTypeName(std::string_view name);

/// Adds the kernel type `name` whose canonical form is `pattern`, or returns
/// the one added under that name before when its pattern is the same. The
/// pattern must be one a schedule can describe: loops named "i", "j", "k"
/// (each at most once, "i" and one other indexing the sparse operand); one
/// sparse input of rank 2 indexed (i, x); dense inputs and a dense output of
/// rank 1 or 2; at most one loop outside the sparse operand and at most one
/// reduction; a multiply-accumulate or elementwise-product body. Its rank-2
/// dense operands get layout names by operand position ("a" for the first
/// operand, "b", "c", ...).
llvm::Expected<KernelType> addKernelType(std::string_view name,
                                         KernelDescriptor pattern);

/// What a kernel type computes, read off its properties (roles, dense
/// operands; for a type defined by its form, the form's operands): for code
/// that implements kernels by hand rather than from their descriptor — the
/// library baselines, a target's simulator, the NVVM target's cuSPARSE path and
/// measurer, byte counts. Such code asks for a shape, not for one of
/// KernelType's enumerators, so a type added at run time with one of these
/// forms is served by it, and one of any other form is `Other` (refused there).
enum class ProductShape : uint8_t {
  /// C(i,j) += A(i,k) * B(k,j), A sparse (SpMM).
  MatrixMatrix,
  /// X(i,j) = S(i,j) * sum_k A(i,k) * B(k,j), S sparse: the dense product
  /// sampled at S's entries (SDDMM).
  SampledMatrixMatrix,
  /// y(i) += A(i,k) * x(k), A sparse (SpMV).
  MatrixVector,
  /// C(i,j) = A(i,j) * B(i,j), A sparse (the Hadamard product).
  Elementwise,
  /// Any other form (SpGEMM's among them: its second sparse input is no
  /// dense operand a library baseline or a simulator could be handed;
  /// MTTKRP's, whose sparse operand is a 3-D tensor).
  Other
};

/// The shape of `k`.
ProductShape productShape(KernelType k);

/// Whether `k` is a matrix-matrix, sampled or matrix-vector product (SpMM,
/// SDDMM, SpMV, or a type added with SpMM's or SpMV's form).
bool hasMatrixProductShape(KernelType k);

/// An op's kernel type and the role of each of its loops (indexed like the
/// descriptor's loops).
struct KernelTypeMatch {
  KernelType type;
  std::vector<Role> loopRoles;
};

/// The type defined by a form (the Hadamard product, an added type) whose
/// canonical form `d` is up to loop names (same body, operand kinds and ranks
/// in the same order, or in any order of the inputs for a body that
/// multiplies them, loops of the same kinds; the output of an elementwise
/// product may be sparse where the form's is dense), or nullopt. Element
/// types, sizes and storage levels are not compared; that a sparse output is
/// stored like the sparse input is the matcher's to check (it sees the IR).
std::optional<KernelTypeMatch> matchKernelTypeByForm(const KernelDescriptor &d);

/// The canonical form of a type defined by one, with its loops sized: the
/// row role `rows`, the column role `cols`, the free loop `free`. SpMM, SDDMM
/// and SpMV have their own (sptune/Target/BenchModule.h): nullopt for them.
std::optional<KernelDescriptor> sizedKernelPattern(KernelType k, int64_t rows,
                                                   int64_t cols, int64_t free);

} // namespace sptune

#endif // SPTUNE_SCHEDULE_KERNELTYPES_H
