//===- SptuneAttrs.h - sptune attributes ------------------------*- C++ -*-===//
//
// Part of sptune. #sptune.kernel and #sptune.schedule.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_IR_SPTUNEATTRS_H
#define SPTUNE_IR_SPTUNEATTRS_H

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "sptune/Schedule/Schedule.h"
#include "llvm/ADT/Hashing.h"

namespace sptune {
/// Hashing for the #sptune.schedule storage.
inline llvm::hash_code hash_value(const Schedule &s) {
  return llvm::hash_value(s.str());
}
} // namespace sptune

namespace mlir {
namespace sptune {
/// The dialect's kernel kinds and loop roles are the MLIR-free vocabulary's
/// own types (sptune/Schedule/Vocabulary.h): one definition, no converters.
using KernelKind = ::sptune::KernelType;
using LoopRole = ::sptune::Role;
/// Printed names ("spmm", "i"), as the ODS enums would have them.
llvm::StringRef stringifyKernelKind(KernelKind kind);
std::optional<KernelKind> symbolizeKernelKind(llvm::StringRef name);
llvm::StringRef stringifyLoopRole(LoopRole role);
std::optional<LoopRole> symbolizeLoopRole(llvm::StringRef name);
/// Whether a #sptune.kernel may have values of `type`: the types MLIR's
/// sparsifier lowers on CPU (f16, bf16, f32, f64; signless i8 to i64).
/// f16 and bf16 arithmetic goes through LLVM's promotion to f32.
bool isKernelElementType(Type type);
/// The names of those types, for diagnostics.
llvm::StringRef kernelElementTypesText();
} // namespace sptune
} // namespace mlir

#include "sptune/IR/SptuneEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sptune/IR/SptuneAttrs.h.inc"

#endif // SPTUNE_IR_SPTUNEATTRS_H
