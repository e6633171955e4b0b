//===- KernelDescriptor.h - A sparse kernel as data -------------*- C++ -*-===//
//
// Part of sptune. What a linalg op on #sparse_tensor operands computes, in
// plain C++: its loops (parallel or reduction, static size or dynamic), its
// operands (sparse, dense or output; element type; the loops each dimension
// is indexed by; the storage levels of a sparse one) and the meaning of its
// body (a multiply-accumulate, a sampled one, an elementwise product, or
// something else). The matcher (sptune/Analysis/KernelDescriber.h) produces
// one from any such op, of any rank; the shapes sptune knows by name (SpMM,
// SDDMM, SpMV, SpGEMM, MTTKRP, batched SpMM, sparse-dense elementwise) are
// structural classifications of a descriptor (`shapeName`), labels for
// reports and remarks. Only SpMM, SDDMM and SpMV are scheduled today.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_KERNELDESCRIPTOR_H
#define SPTUNE_SCHEDULE_KERNELDESCRIPTOR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

struct KernelLoop {
  /// "i", "j", "k", "l", ... by position in the op's iteration space.
  std::string name;
  bool reduction = false;
  int64_t size = -1; ///< -1 = dynamic
};

struct KernelOperand {
  enum class Kind : uint8_t { Sparse, Dense, Output, SparseOutput };
  Kind kind = Kind::Dense;
  /// "f32", "bf16", "i8", ... as MLIR prints the element type.
  std::string elementType;
  /// The loop (index into KernelDescriptor::loops) of each dimension.
  std::vector<unsigned> dims;
  /// Sparse operands: each storage level as MLIR prints it ("dense",
  /// "compressed", "compressed(nonunique)", "singleton", ...), outermost
  /// first; and the position / coordinate bit widths (0 = index).
  std::vector<std::string> levels;
  unsigned posWidth = 0, crdWidth = 0;

  bool sparse() const {
    return kind == Kind::Sparse || kind == Kind::SparseOutput;
  }
  bool output() const {
    return kind == Kind::Output || kind == Kind::SparseOutput;
  }
};

struct KernelDescriptor {
  enum class Body : uint8_t {
    MultiplyAccumulate, ///< out += product of every input
    SampledMultiplyAccumulate, ///< SDDMM's sparse_tensor.unary/reduce form
    ElementwiseProduct, ///< out = product of every input, no reduction
    Other
  };
  std::vector<KernelLoop> loops;
  /// Inputs in operand order, then the output.
  std::vector<KernelOperand> operands;
  Body body = Body::Other;
  /// The product also multiplies by (or divides by) values that no loop
  /// changes: a constant or a value defined outside the op, e.g. an
  /// attention layer's 1/sqrt(d) fused into its SDDMM, or SpMM's alpha.
  /// Such a factor does not change which schedules are legal or how they
  /// rank; a target whose program computes plain products only refuses it
  /// (Target::whyUnsupportedBody).
  bool scaled = false;

  unsigned numReductions() const;
  unsigned numSparseInputs() const;

  /// The shape's name when it is one sptune knows ("spmm", "sddmm", "spmv",
  /// "spgemm", "mttkrp", "batched-spmm", "sparse-elementwise"), else "".
  /// Structural: loop kinds, ranks, which operands are sparse, the body;
  /// whether sptune can schedule it is the matcher's business.
  std::string shapeName() const;

  /// E.g. `loops (i par 8, j par 16, k red 4); A(i, k) sparse f32 [dense,
  /// compressed], B(k, j) f32 -> C(i, j) f32; multiply-accumulate` (with
  /// ", scaled by an invariant" for a scaled body).
  std::string str() const;
};

const char *toString(KernelDescriptor::Body body);

/// The descriptor as JSON (how a measure request carries the user's op):
/// {"loops": [{"name": "i", "reduction": false, "size": 8}, ...],
///  "operands": [{"kind": "sparse" | "dense" | "output" | "sparse_output",
///                "type": "f32", "dims": [0, 2], "levels": [...],
///                "pos_width": 0, "crd_width": 0}, ...],
///  "body": "multiply-accumulate" | ..., "scaled": true}
/// ("scaled" only when true).
llvm::json::Value toJson(const KernelDescriptor &d);

/// Reads toJson's form back. Everything that is later written into IR is
/// checked: loop names are lower-case identifiers, element types one of
/// f16 bf16 f32 f64 i8 i16 i32 i64, levels MLIR level names; every dim
/// names a loop; the last operand, and only it, is an output.
llvm::Expected<KernelDescriptor> descriptorFromJson(const llvm::json::Value &v);

} // namespace sptune

#endif // SPTUNE_SCHEDULE_KERNELDESCRIPTOR_H
