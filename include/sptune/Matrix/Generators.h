//===- Generators.h - Seeded synthetic sparse matrices ----------*- C++ -*-===//
//
// Part of sptune. Deterministic generators of synthetic sparsity patterns for
// training at scale, described by a spec string
//
//   gen:<kind>:key=value,key=value,...
//
// e.g. `gen:rmat:rows=4096,cols=4096,nnz=40000,a=0.57,b=0.19,c=0.19,seed=3`.
// The same spec gives the same matrix on every platform (own RNG, no <random>
// distributions). GenSpec::str() prints the canonical form, which datasets
// store as the matrix source and id.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_GENERATORS_H
#define SPTUNE_MATRIX_GENERATORS_H

#include "sptune/Matrix/SparseMatrix.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace sptune {

enum class GenKind {
  /// Positions uniformly at random.
  Uniform,
  /// Recursive-matrix (R-MAT) power-law graph: each entry descends the
  /// quadrants with probabilities a, b, c, 1-a-b-c.
  RMat,
  /// Positions uniformly at random within |c - r| <= bw.
  Banded,
  /// Randomly placed aligned bs x bs blocks, each filled to `fill`.
  Block,
  /// Consecutive groups of `group` rows sharing one random column set, each
  /// entry moved to a random column with probability `noise`.
  Clustered,
};

/// Name used in specs ("uniform", "rmat", "banded", "block", "clustered").
const char *genKindName(GenKind kind);

/// A parsed generator spec. Every kind uses rows, cols, nnz and seed; the
/// other fields belong to one kind and keep their defaults otherwise.
struct GenSpec {
  GenKind kind = GenKind::Uniform;
  int64_t rows = 0;
  int64_t cols = 0;
  /// Exact number of stored entries of the generated matrix (the spec may
  /// give `density` instead: nnz = round(density * rows * cols)). R-MAT may
  /// fall short when the requested count is close to what its skew allows.
  int64_t nnz = 0;
  uint64_t seed = 1;
  // rmat
  double a = 0.57, b = 0.19, c = 0.19;
  // banded: half bandwidth.
  int64_t bw = 8;
  // block: block size and fraction of each chosen block that is filled.
  int64_t bs = 4;
  double fill = 1.0;
  // clustered: rows per group, probability an entry leaves the group's set.
  int64_t group = 8;
  double noise = 0.0;

  /// Canonical spec: `gen:<kind>:` then every key of the kind in a fixed
  /// order, numbers in their shortest exact form. parse(str()) == *this.
  std::string str() const;
  /// The largest nnz the structure admits (e.g. the band's area).
  int64_t capacity() const;
};

bool operator==(const GenSpec &x, const GenSpec &y);
inline bool operator!=(const GenSpec &x, const GenSpec &y) { return !(x == y); }

/// True if `source` looks like a generator spec (starts with "gen:").
bool isGenSpec(std::string_view source);

/// Parses `gen:<kind>:key=value,...`. Keys: rows (required), cols (default
/// rows), nnz or density (exactly one, required), seed (default 1), and per
/// kind a, b, c (rmat), bw (banded), bs, fill (block), group, noise
/// (clustered).
llvm::Expected<GenSpec> parseGenSpec(std::string_view text);

/// Generates the matrix of `spec` into `out` (canonical COO, values uniform
/// in (0, 1] drawn from a stream separate from the structure's). Fails on a
/// spec that parseGenSpec would reject.
llvm::Expected<CooMatrix> generate(const GenSpec &spec);

/// Help text describing the spec syntax and the kinds (for --help).
const char *genSpecHelp();

} // namespace sptune

#endif // SPTUNE_MATRIX_GENERATORS_H
