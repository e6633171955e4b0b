//===- ReferenceBaseline.cpp - The hand-written kernels -------------------===//
//
// Compiled with -O3 -march=native -fopenmp (see CMakeLists.txt), linked
// against LLVM's libomp like the JIT'd kernels.
//
//===----------------------------------------------------------------------===//

#include "cpu/ReferenceBaseline.h"

#include "sptune/Matrix/Reference.h"
#include "sptune/Support/AlignedVector.h"

#include <chrono>
#include <omp.h>
#include <string>
#include <vector>

using namespace sptune;

namespace {

/// Times `kernel` with the shared repetition policy.
template <typename F>
void timeKernel(const MeasureOptions &opts, F &&kernel, Measurement &result) {
  timeEachCall(
      opts,
      [&] {
        kernel();
        return true;
      },
      result);
}

Measurement mismatch(int64_t index) {
  Measurement m;
  m.status = MeasureStatus::WrongResult;
  m.reason = "reference kernel result #" + std::to_string(index) + " differs";
  return m;
}

template <typename T>
Measurement spmm(const CsrMatrix &m, int64_t n, const MeasureOptions &opts) {
  const int64_t rows = m.rows;
  const int64_t *ptr = m.rowPtr.data();
  const int32_t *col = m.colIdx.data();
  std::vector<T> val(m.values.begin(), m.values.end());
  std::vector<float> bIn = denseInput(m.cols, n, 1);
  AlignedVector<T> b(bIn.begin(), bIn.end());
  AlignedVector<T> c(static_cast<size_t>(rows * n), T(0));
  const T *a = val.data();
  const T *bp = b.data();
  T *cp = c.data();
  auto kernel = [&] {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < rows; ++i) {
      T *ci = cp + i * n;
      for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p) {
        const T av = a[p];
        const T *bk = bp + col[p] * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j)
          ci[j] += av * bk[j];
      }
    }
  };
  Measurement result;
  if (opts.checkResult) {
    kernel();
    std::vector<double> got(c.begin(), c.end());
    int64_t bad = firstMismatch(referenceSpMM(m, bIn, n, kValueBits<T>),
                                got.data(), opts.tolerance);
    if (bad >= 0)
      return mismatch(bad);
  }
  timeKernel(opts, kernel, result);
  return result;
}

template <typename T>
Measurement spmv(const CsrMatrix &m, const MeasureOptions &opts) {
  const int64_t rows = m.rows;
  const int64_t *ptr = m.rowPtr.data();
  const int32_t *col = m.colIdx.data();
  std::vector<T> val(m.values.begin(), m.values.end());
  std::vector<float> xIn = denseInput(m.cols, 1, 1);
  AlignedVector<T> x(xIn.begin(), xIn.end());
  AlignedVector<T> y(static_cast<size_t>(rows), T(0));
  const T *a = val.data();
  const T *xp = x.data();
  T *yp = y.data();
  auto kernel = [&] {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < rows; ++i) {
      T sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p)
        sum += a[p] * xp[col[p]];
      yp[i] += sum;
    }
  };
  Measurement result;
  if (opts.checkResult) {
    kernel();
    std::vector<double> got(y.begin(), y.end());
    int64_t bad = firstMismatch(referenceSpMV(m, xIn, kValueBits<T>),
                                got.data(), opts.tolerance);
    if (bad >= 0)
      return mismatch(bad);
  }
  timeKernel(opts, kernel, result);
  return result;
}

template <typename T>
Measurement sddmm(const CsrMatrix &s, int64_t k, const MeasureOptions &opts,
                  double &transposeSeconds) {
  const int64_t rows = s.rows;
  const int64_t *ptr = s.rowPtr.data();
  const int32_t *col = s.colIdx.data();
  std::vector<T> sval(s.values.begin(), s.values.end());
  std::vector<float> aIn = denseInput(s.rows, k, 2);
  std::vector<float> bIn = denseInput(k, s.cols, 3);
  AlignedVector<T> a(aIn.begin(), aIn.end());
  // Bt = B transposed, cols x k: row j of Bt is column j of B.
  auto t0 = std::chrono::steady_clock::now();
  AlignedVector<T> bt(static_cast<size_t>(s.cols * k));
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < s.cols; ++j)
      bt[static_cast<size_t>(j * k + r)] =
          bIn[static_cast<size_t>(r * s.cols + j)];
  transposeSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::vector<T> x(sval.size(), T(0));
  const T *sp = sval.data();
  const T *ap = a.data();
  const T *btp = bt.data();
  T *xp = x.data();
  auto kernel = [&] {
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < rows; ++i) {
      const T *ai = ap + i * k;
      for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p) {
        const T *bj = btp + col[p] * k;
        T dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t r = 0; r < k; ++r)
          dot += ai[r] * bj[r];
        xp[p] = sp[p] * dot;
      }
    }
  };
  Measurement result;
  if (opts.checkResult) {
    kernel();
    double checksum = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t p = ptr[i]; p < ptr[i + 1]; ++p)
        checksum += static_cast<double>(x[static_cast<size_t>(p)]) *
                    checksumWeight(i, col[p]);
    int64_t bad =
        firstMismatch(referenceSDDMMChecksum(s, aIn, bIn, k, kValueBits<T>),
                      &checksum, opts.tolerance);
    if (bad >= 0)
      return mismatch(bad);
  }
  timeKernel(opts, kernel, result);
  return result;
}

template <typename T>
Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                const MeasureOptions &opts) {
  double transposeSeconds = 0;
  Measurement result;
  const ProductShape shape = productShape(spec.kernel);
  switch (shape) {
  case ProductShape::MatrixMatrix:
    result = spmm<T>(m, spec.free, opts);
    break;
  case ProductShape::MatrixVector:
    result = spmv<T>(m, opts);
    break;
  case ProductShape::SampledMatrixMatrix:
    result = sddmm<T>(m, spec.free, opts, transposeSeconds);
    break;
  default: // refused by measureReference
    break;
  }
  result.detailsJson =
      "{\"library\": \"reference\", \"threads\": " +
      std::to_string(omp_get_max_threads()) +
      (shape == ProductShape::SampledMatrixMatrix
           ? ", \"untimed_transpose_s\": " + std::to_string(transposeSeconds)
           : std::string()) +
      "}";
  return result;
}

} // namespace

Measurement sptune::measureReference(const CsrMatrix &matrix,
                                     const KernelSpec &spec,
                                     const MeasureOptions &options) {
  if (!hasMatrixProductShape(spec.kernel))
    return Measurement::refused(
        std::string("the reference kernels compute SpMM, SDDMM and SpMV "
                    "only, not '") +
        toString(spec.kernel) + "'");
  return spec.elementBits == 64 ? run<double>(matrix, spec, options)
                                : run<float>(matrix, spec, options);
}
