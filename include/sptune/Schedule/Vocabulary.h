//===- Vocabulary.h - Names every layer of sptune shares --------*- C++ -*-===//
//
// Part of sptune. The MLIR-free vocabulary of the project: which target,
// which kernel, which loop role, which part of a split role. The `Schedule`
// value, the cost model, the simulator and the collector use these enums;
// the `sptune` dialect uses the same ones (its `KernelKind` and `LoopRole`
// are these types, sptune/IR/SptuneAttrs.h), so there is nothing to convert.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_VOCABULARY_H
#define SPTUNE_SCHEDULE_VOCABULARY_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace sptune {

/// A target: the built-in ones, and those added at run time
/// (addTargetKind) after them.
enum class TargetKind : uint8_t { CPU, NVVM, SPADE };

/// The sparse kernels sptune recognizes and schedules: the built-in ones,
/// and those added at run time (addKernelType, sptune/Schedule/KernelTypes.h)
/// after them.
enum class KernelType : uint8_t {
  SpMM,
  SDDMM,
  SpMV,
  /// The sparse ⊙ dense (Hadamard) product C(i,j) = A(i,j) * B(i,j).
  Hadamard,
  /// The sparse x sparse product C(i,j) += A(i,k) * B(k,j), A, B and C
  /// sparse (CSR): computed row by row by a target's own kernel (the CPU's
  /// Gustavson product), whose knobs a schedule chooses; its storage is
  /// the operands' own (nothing is converted).
  SpGEMM,
  /// The matricized tensor times Khatri-Rao product (mode 1)
  /// A(i,j) += B(i,k,l) * C(k,j) * D(l,j), B a sparse 3-D tensor (CSF or
  /// COO), C, D and A dense: computed by a target's own kernel (the CPU's,
  /// slice by slice), whose knobs a schedule chooses; its storage is B's
  /// own (nothing is converted).
  MTTKRP,
  /// The batched SpMM C(b,i,j) += A(b,i,k) * B(b,k,j), A sparse (dense
  /// batches of CSR rows, or COO), B and C dense: computed by a target's own
  /// kernel (the CPU's, over all rows of all batches), whose knobs a
  /// schedule chooses; its storage is A's own (nothing is converted).
  BatchedSpMM
};

/// The kernel a value names until it is told another (a default-constructed
/// Schedule, KernelSpec, dataset record, SPADE program, ...): SpMM, the
/// first built in. One definition, so that no header spells an enumerator.
inline constexpr KernelType kDefaultKernelType = KernelType::SpMM;

/// The canonical role of an iteration dimension. For SpMM / SpMV, `i` is the
/// free dimension of the sparse operand, `k` the reduction and `j` the free
/// dimension of the dense operand; for SDDMM `i`, `j` are the sampled
/// (sparse) dimensions and `k` the reduction. `l` is the second reduction of
/// MTTKRP's B(i,k,l), which only a kernel's description (#sptune.kernel)
/// names: schedules describe the sparse operand's `i` and `k` (a schedule
/// naming `l` is illegal). `b` is the batch loop of a batched SpMM
/// (KernelType::BatchedSpMM), likewise named by a kernel's description
/// only.
enum class Role : uint8_t { I, J, K, L, B };

/// Which part of a role a loop or level stands for.
enum class Part : uint8_t { Whole, Outer, Inner };

/// "cpu", "nvvm", "spade" (or the name a run-time target was added with).
const char *toString(TargetKind);
/// "spmm", "sddmm", "spmv", "hadamard", "spgemm", "mttkrp", "batched_spmm"
/// (or the name a run-time kernel type was added with).
const char *toString(KernelType);
/// "i", "j", "k", "l", "b".
const char *toString(Role);

std::optional<TargetKind> parseTargetKind(std::string_view);
std::optional<KernelType> parseKernelType(std::string_view);
std::optional<Role> parseRole(std::string_view);

/// The kind of a target added at run time (sptune/Target/Target.h) beyond
/// the three built in: a new enumerator value the first time `name` is seen,
/// the same one after. toString and parseTargetKind know it from then on.
TargetKind addTargetKind(std::string_view name);

} // namespace sptune

#endif // SPTUNE_SCHEDULE_VOCABULARY_H
