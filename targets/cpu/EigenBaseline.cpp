//===- EigenBaseline.cpp - The library baseline users compare with --------===//
//
// Built with -fopenmp but linked against LLVM's libomp (which provides the
// GOMP entry points gcc emits), so that Eigen and the JIT'd kernels share one
// OpenMP runtime in a measurement worker.
//
//===----------------------------------------------------------------------===//

#include "cpu/EigenBaseline.h"

#if !SPTUNE_HAVE_EIGEN
// Configured without Eigen (libeigen3-dev not found, or
// SPTUNE_ENABLE_EIGEN=OFF): the baseline reports that it was not built instead
// of a time.
using namespace sptune;

Measurement sptune::measureEigen(const CsrMatrix &, const KernelSpec &,
                                 const MeasureOptions &) {
  Measurement m;
  m.status = MeasureStatus::Error;
  m.reason = "the Eigen baseline was not built (libeigen3-dev not found at "
             "configure time, or SPTUNE_ENABLE_EIGEN=OFF)";
  return m;
}

int sptune::eigenThreads() { return 0; }
#else

#include "sptune/Matrix/Reference.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>

using namespace sptune;

int sptune::eigenThreads() { return Eigen::nbThreads(); }

namespace {
template <typename T>
using SparseRM = Eigen::SparseMatrix<T, Eigen::RowMajor, int64_t>;
template <typename T>
using DenseRM =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename T>
Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                const MeasureOptions &opts) {
  Measurement result;
  // Eigen's compressed storage built directly from the CSR arrays.
  std::vector<Eigen::Triplet<T, int64_t>> triplets;
  triplets.reserve(m.nnz());
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t p = m.rowPtr[i]; p < m.rowPtr[i + 1]; ++p)
      triplets.emplace_back(i, m.colIdx[p], static_cast<T>(m.values[p]));
  SparseRM<T> a(m.rows, m.cols);
  a.setFromTriplets(triplets.begin(), triplets.end());
  a.makeCompressed();

  const bool spmv = productShape(spec.kernel) == ProductShape::MatrixVector;
  int64_t n = spmv ? 1 : spec.free;
  std::vector<float> bIn = denseInput(m.cols, n, 1);
  DenseRM<T> b(m.cols, n);
  for (int64_t r = 0; r < m.cols; ++r)
    for (int64_t c = 0; c < n; ++c)
      b(r, c) = bIn[static_cast<size_t>(r * n + c)];
  DenseRM<T> c = DenseRM<T>::Zero(m.rows, n);

  if (opts.checkResult) {
    c.noalias() += a * b;
    ReferenceResult ref = spmv ? referenceSpMV(m, bIn, kValueBits<T>)
                               : referenceSpMM(m, bIn, n, kValueBits<T>);
    std::vector<double> got(c.data(), c.data() + c.size());
    int64_t bad = firstMismatch(ref, got.data(), opts.tolerance);
    if (bad >= 0) {
      result.status = MeasureStatus::WrongResult;
      result.reason = "Eigen result #" + std::to_string(bad) + " differs";
      return result;
    }
  }
  // Each repetition timed on its own, like the JIT's rtclock per call.
  timeEachCall(
      opts,
      [&] {
        c.noalias() += a * b;
        return true;
      },
      result);
  result.detailsJson = "{\"library\": \"eigen\", \"threads\": " +
                       std::to_string(eigenThreads()) + "}";
  return result;
}
} // namespace

Measurement sptune::measureEigen(const CsrMatrix &matrix,
                                 const KernelSpec &spec,
                                 const MeasureOptions &options) {
  const ProductShape shape = productShape(spec.kernel);
  if (shape == ProductShape::SampledMatrixMatrix)
    return Measurement::refused("Eigen has no SDDMM");
  if (shape != ProductShape::MatrixMatrix &&
      shape != ProductShape::MatrixVector)
    return Measurement::refused(std::string("Eigen computes SpMM and SpMV "
                                            "only, not '") +
                                toString(spec.kernel) + "'");
  return spec.elementBits == 64 ? run<double>(matrix, spec, options)
                                : run<float>(matrix, spec, options);
}
#endif // SPTUNE_HAVE_EIGEN
