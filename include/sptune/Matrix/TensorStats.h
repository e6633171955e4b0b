//===- TensorStats.h - Structural statistics of a 3-D tensor ----*- C++ -*-===//
//
// Part of sptune. The structure of a third-order sparse tensor as the kernels
// over it see it, in its stored mode order (i, j, k): slices (entries of one
// i), fibers (entries of one (i, j)) and how the entries spread over them,
// computed in one pass over a canonical tensor. Printed by `sptune-matrix
// stats`; what a cost model of MTTKRP would read, as MatrixStats is for
// matrices.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_MATRIX_TENSORSTATS_H
#define SPTUNE_MATRIX_TENSORSTATS_H

#include "sptune/Matrix/CooTensor.h"

#include <array>
#include <cstdint>
#include <string>

namespace sptune {

/// Mean, standard deviation and largest value of a count over the groups
/// that have entries (slices or fibers).
struct CountSpread {
  double mean = 0, stddev = 0;
  int64_t max = 0;
};

struct TensorStats {
  std::array<int64_t, 3> dims = {0, 0, 0};
  int64_t nnz = 0;
  double density = 0;
  /// Slices (distinct i) and fibers (distinct (i, j)) with entries.
  int64_t slices = 0, fibers = 0;
  /// Entries per slice, fibers per slice, entries per fiber.
  CountSpread entriesPerSlice, fibersPerSlice, entriesPerFiber;
  /// The entries of the fiber holding a typical entry: the entry-weighted
  /// mean fiber length, sum over fibers of length^2 / nnz (what the CPU
  /// MTTKRP kernel's `mttkrp-form=auto` estimates, cpu/FactoredMttkrp.h).
  double typicalFiberLength = 0;
  /// Distinct j and distinct k among the entries (how much of the factor
  /// matrices a kernel reads).
  int64_t distinctJ = 0, distinctK = 0;

  /// One JSON object with the fields above (snake_case names).
  std::string toJson() const;
};

/// The statistics of `t`, which must be canonical (CooTensor::canonicalize).
TensorStats computeTensorStats(const CooTensor &t);

/// How `sptune-matrix stats` prints a tensor: the table's header line, one
/// tensor's row, or its JSON object (id, source and toJson's fields). Each
/// ends in "\n".
std::string tensorStatsTableHeader();
std::string tensorStatsTableRow(const TensorStats &stats,
                                const std::string &id);
std::string tensorStatsJsonLine(const TensorStats &stats, const std::string &id,
                                const std::string &source);

} // namespace sptune

#endif // SPTUNE_MATRIX_TENSORSTATS_H
