//===- GeneratorSupport.h - What the generators share (private) -*- C++ -*-===//
//
// Part of sptune. The pieces the matrix generators (Generators.cpp) and the
// 3-D tensor generators (TensorGenerators.cpp) share: the random streams of a
// seed, distinct sampling, and the parsing and printing of spec numbers.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LIB_MATRIX_GENERATORSUPPORT_H
#define SPTUNE_LIB_MATRIX_GENERATORSUPPORT_H

#include "Random.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {
namespace detail {

/// Streams of one seed: structure and values never share random numbers, so
/// the pattern does not depend on how values are drawn.
enum Stream : uint64_t { kStructure = 1, kValues = 2, kExtra = 3 };

/// Appends `v` in its shortest exact decimal form.
template <typename T> void appendNumber(std::string &s, T v) {
  char buf[32];
  auto [q, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  s.append(buf, q);
}

/// Sorts and deduplicates `batch`, then merges it into the sorted, distinct
/// `out`.
void mergeDistinct(std::vector<uint64_t> &out, std::vector<uint64_t> &batch);

/// Sorted distinct values drawn uniformly from [0, n) (k <= n).
void sampleDistinct(uint64_t n, uint64_t k, Rng &rng,
                    std::vector<uint64_t> &out);

/// A spec `<prefix><kind>:<params>` split after its `prefixLength`
/// characters (the prefix is checked by the caller): its kind and its
/// parameters (empty without a ':').
void splitSpec(std::string_view text, size_t prefixLength,
               std::string_view &kind, std::string_view &params);

/// One `key=value` of a spec's parameters.
struct SpecItem {
  std::string key;
  std::string_view value;
};

/// Splits a spec's parameters `key=value,key=value,...` (empty: none) into
/// `items`; false with the message in `error` on an empty parameter (a stray
/// ',') or one without '='. Keys are not checked here.
bool splitSpecItems(std::string_view params, std::vector<SpecItem> &items,
                    std::string &error);

/// The whole of `text` as a number (no sign for parseUnsigned; parseReal
/// takes finite values only).
bool parseInt(std::string_view text, int64_t &out);
bool parseUnsigned(std::string_view text, uint64_t &out);
bool parseReal(std::string_view text, double &out);

} // namespace detail
} // namespace sptune

#endif // SPTUNE_LIB_MATRIX_GENERATORSUPPORT_H
