//===- TensorGenerators.h - Seeded synthetic 3-D sparse tensors -*- C++ -*-===//
//
// Part of sptune. Deterministic generators of third-order sparse tensors (the
// inputs of MTTKRP and the batched SpMM), described by a spec string
//
//   gen3:<kind>:dims=IxJxK,nnz=N,seed=S
//
// e.g. `gen3:powerlaw:dims=5000x5000x5000,nnz=2000000,seed=2`. Kinds:
//
//  - uniform: coordinates uniform (every slice and fiber about alike);
//  - powerlaw: each mode's coordinate floor(n u^3) for u uniform in [0, 1),
//    relabelled by a random permutation of the mode: a few heavy slices and
//    fibers scattered over the range, as in FROSTT's tensors.
//
// The same spec gives the same tensor on every platform (sptune's own RNG).
// TensorGenSpec::str() prints the canonical form, which datasets store as
// the tensor's source and id.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_TENSORGENERATORS_H
#define SPTUNE_MATRIX_TENSORGENERATORS_H

#include "sptune/Matrix/CooTensor.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sptune {

enum class TensorGenKind { Uniform, PowerLaw };

/// Name used in specs ("uniform", "powerlaw").
const char *tensorGenKindName(TensorGenKind kind);

struct TensorGenSpec {
  TensorGenKind kind = TensorGenKind::Uniform;
  std::array<int64_t, 3> dims = {0, 0, 0};
  /// Exact number of distinct stored entries, at most half the cells.
  int64_t nnz = 0;
  uint64_t seed = 1;

  /// Canonical spec (every key, seed included). parse(str()) == *this.
  std::string str() const;
};

bool operator==(const TensorGenSpec &x, const TensorGenSpec &y);
inline bool operator!=(const TensorGenSpec &x, const TensorGenSpec &y) {
  return !(x == y);
}

/// True if `source` looks like a tensor generator spec (starts with "gen3:").
bool isTensorGenSpec(std::string_view source);

/// Parses `gen3:<kind>:dims=IxJxK,nnz=N[,seed=S]` (seed 1 by default; each
/// size in [1, kMaxMatrixDim]; nnz in [0, 2^30] and at most half the cells).
llvm::Expected<TensorGenSpec> parseTensorGenSpec(std::string_view text);

/// Generates the tensor of `spec` (canonical, values uniform in (0, 1] from
/// a stream separate from the structure's). Fails on a spec that
/// parseTensorGenSpec would reject, and on a power law too skewed to give
/// `nnz` distinct entries in 50 nnz draws (the message says so).
llvm::Expected<CooTensor> generateTensor(const TensorGenSpec &spec);

/// Help text describing the spec syntax and the kinds (for --help).
const char *tensorGenSpecHelp();

} // namespace sptune

#endif // SPTUNE_MATRIX_TENSORGENERATORS_H
