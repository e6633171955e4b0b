//===- Random.h - Portable seeded random numbers (private) ------*- C++ -*-===//
//
// Part of sptune. The generators must give the same matrix for the same spec
// on every platform and standard library, so they cannot use the <random>
// distributions (whose algorithms are implementation-defined). This is
// xoshiro256** seeded by splitmix64, with our own bounded integers and
// uniform doubles.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LIB_MATRIX_RANDOM_H
#define SPTUNE_LIB_MATRIX_RANDOM_H

#include <cstdint>

namespace sptune {
namespace detail {

/// xoshiro256** (Blackman & Vigna), fully specified and portable.
class Rng {
public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t &w : s)
      w = splitmix64(x);
  }

  /// 64 uniform random bits.
  uint64_t next() {
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }

  /// Uniform integer in [0, bound) (bound > 0), unbiased (Lemire's method).
  uint64_t below(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform double in (0, 1].
  double uniformPositive() {
    return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
  }

  /// Derives an independent stream for a sub-task (e.g. values vs. structure).
  static uint64_t derive(uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (stream * 0x9E3779B97F4A7C15ULL);
    return splitmix64(x);
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t &x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  uint64_t s[4];
};

} // namespace detail
} // namespace sptune

#endif // SPTUNE_LIB_MATRIX_RANDOM_H
