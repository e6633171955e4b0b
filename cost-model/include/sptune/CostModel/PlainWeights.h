//===- PlainWeights.h - A model's weights as plain arrays -------*- C++ -*-===//
//
// Part of sptune. The "plain_weights" section of a model file: every
// parameter and buffer of the network by name, as a float32 array with its
// shape, in a versioned little-endian layout that plain C++ reads without
// LibTorch (the "weights" section is LibTorch's own archive). Written with
// every model; read by PlainModel, the release-mode scorer.
//
//   "sptune-plain-weights\n"  magic
//   u32 version (1), u32 count
//   count x { u32 name length, name, u32 rank, i64 dims[rank],
//             f32 values[product of dims] }
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_PLAINWEIGHTS_H
#define SPTUNE_COSTMODEL_PLAINWEIGHTS_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sptune {

/// The section name in a model file.
inline constexpr const char *kPlainWeightsSection = "plain_weights";
/// The layout version this build writes and reads.
inline constexpr uint32_t kPlainWeightsVersion = 1;

/// One named array.
struct PlainArray {
  std::vector<int64_t> shape;
  std::vector<float> values; ///< row-major, product of `shape` values
};

/// Arrays by name (the network's parameter and buffer names, e.g.
/// "matrix.c1.weight", "vec_mean").
using PlainArrays = std::map<std::string, PlainArray>;

/// The section's bytes. Arrays whose value count does not match their
/// shape are a programming error (asserted).
std::string encodePlainWeights(const PlainArrays &arrays);

/// Decodes a section; an error says what is wrong (another version, a
/// truncated or inconsistent layout, a non-finite value).
llvm::Expected<PlainArrays> decodePlainWeights(const std::string &bytes);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_PLAINWEIGHTS_H
