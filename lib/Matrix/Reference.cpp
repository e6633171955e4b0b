//===- Reference.cpp - Reference results of the kernels -------------------===//

#include "sptune/Matrix/Reference.h"

#include <cmath>

using namespace sptune;

std::vector<float> sptune::denseInput(int64_t rows, int64_t cols,
                                      uint64_t seed) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  for (float &v : out) {
    // xorshift64*: fast, deterministic on every compiler.
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t r = x * 0x2545F4914F6CDD1Dull;
    v = static_cast<float>(static_cast<double>(r >> 40) / 8388608.0 - 1.0);
  }
  return out;
}

double sptune::valueAt(double stored, int valueBits) {
  return valueBits == 64 ? stored
                         : static_cast<double>(static_cast<float>(stored));
}

ReferenceResult sptune::referenceSpMM(const CsrMatrix &a,
                                      const std::vector<float> &b, int64_t n,
                                      int valueBits) {
  ReferenceResult r;
  r.values.assign(static_cast<size_t>(a.rows * n), 0.0);
  r.bounds.assign(static_cast<size_t>(a.rows * n), 0.0);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
      double av = valueAt(a.values[p], valueBits);
      const float *brow = &b[static_cast<size_t>(a.colIdx[p] * n)];
      double *c = &r.values[static_cast<size_t>(i * n)];
      double *e = &r.bounds[static_cast<size_t>(i * n)];
      for (int64_t j = 0; j < n; ++j) {
        c[j] += av * brow[j];
        e[j] += std::fabs(av * brow[j]);
      }
    }
  // A float dot product of length L errs by about L * 2^-24 of its
  // absolute sum; scale by the row length to allow any summation order.
  for (int64_t i = 0; i < a.rows; ++i) {
    double len = static_cast<double>(a.rowLength(i) + 1);
    for (int64_t j = 0; j < n; ++j)
      r.bounds[static_cast<size_t>(i * n + j)] *= len;
  }
  return r;
}

ReferenceResult sptune::referenceSpMV(const CsrMatrix &a,
                                      const std::vector<float> &x,
                                      int valueBits) {
  ReferenceResult r;
  r.values.assign(static_cast<size_t>(a.rows), 0.0);
  r.bounds.assign(static_cast<size_t>(a.rows), 0.0);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
      double t = valueAt(a.values[p], valueBits) * x[a.colIdx[p]];
      r.values[i] += t;
      r.bounds[i] += std::fabs(t);
    }
    r.bounds[i] *= static_cast<double>(a.rowLength(i) + 1);
  }
  return r;
}

ReferenceResult sptune::referenceSDDMMChecksum(const CsrMatrix &s,
                                               const std::vector<float> &a,
                                               const std::vector<float> &b,
                                               int64_t k, int valueBits) {
  double sum = 0, bound = 0;
  int64_t n = s.cols;
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t p = s.rowPtr[i]; p < s.rowPtr[i + 1]; ++p) {
      int64_t j = s.colIdx[p];
      double dot = 0, absDot = 0;
      for (int64_t q = 0; q < k; ++q) {
        double t = static_cast<double>(a[static_cast<size_t>(i * k + q)]) *
                   b[static_cast<size_t>(q * n + j)];
        dot += t;
        absDot += std::fabs(t);
      }
      double sv = valueAt(s.values[p], valueBits);
      double w = checksumWeight(i, j);
      sum += sv * dot * w;
      bound += std::fabs(sv) * absDot * w * static_cast<double>(k + 2);
    }
  ReferenceResult r;
  r.values = {sum};
  // The checksum itself is summed in double over nnz terms.
  r.bounds = {bound + 1e-12 * static_cast<double>(s.nnz())};
  return r;
}

ReferenceResult sptune::referenceSpGEMMChecksum(const CsrMatrix &a,
                                                const CsrMatrix &b,
                                                int valueBits) {
  // Row by row (Gustavson), in double: each row's sums, absolute sums and
  // product counts at its columns, cleared through the list of columns the
  // row touched.
  std::vector<double> sums(static_cast<size_t>(b.cols), 0.0),
      absSums(static_cast<size_t>(b.cols), 0.0);
  std::vector<int64_t> counts(static_cast<size_t>(b.cols), 0);
  std::vector<int64_t> touched;
  double sum = 0, bound = 0;
  int64_t entries = 0;
  for (int64_t i = 0; i < a.rows; ++i) {
    touched.clear();
    for (int64_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
      int64_t k = a.colIdx[p];
      double av = valueAt(a.values[p], valueBits);
      for (int64_t q = b.rowPtr[k]; q < b.rowPtr[k + 1]; ++q) {
        size_t j = static_cast<size_t>(b.colIdx[q]);
        double t = av * valueAt(b.values[q], valueBits);
        if (counts[j]++ == 0)
          touched.push_back(static_cast<int64_t>(j));
        sums[j] += t;
        absSums[j] += std::fabs(t);
      }
    }
    for (int64_t j : touched) {
      size_t c = static_cast<size_t>(j);
      double w = checksumWeight(i, j);
      sum += sums[c] * w;
      bound += absSums[c] * w * static_cast<double>(counts[c] + 2);
      sums[c] = absSums[c] = 0;
      counts[c] = 0;
    }
    entries += static_cast<int64_t>(touched.size());
  }
  ReferenceResult r;
  // The checksum, C's entries, and its entries in row-major order (all of
  // them: no duplicate, none out of order), the counts exact.
  r.values = {sum, static_cast<double>(entries), static_cast<double>(entries)};
  // The checksum itself is summed in double over C's entries.
  r.bounds = {bound + 1e-12 * static_cast<double>(entries), 0.0, 0.0};
  return r;
}

int64_t sptune::firstMismatch(const ReferenceResult &ref, const double *got,
                              double tolerance) {
  for (size_t i = 0; i < ref.values.size(); ++i) {
    // Equal infinities (a value beyond float range, read as one) and NaN
    // where the reference is NaN are the same result: |inf - inf| is NaN,
    // which made every such measurement a wrong result (issue 35).
    if (got[i] == ref.values[i] ||
        (std::isnan(got[i]) && std::isnan(ref.values[i])))
      continue;
    // An infinite or NaN reference has an infinite bound, which any value
    // would pass: only the same value matches it.
    if (!std::isfinite(ref.values[i]))
      return static_cast<int64_t>(i);
    double err = std::fabs(got[i] - ref.values[i]);
    if (!(err <= tolerance * ref.bounds[i] + 1e-30))
      return static_cast<int64_t>(i);
  }
  return -1;
}
