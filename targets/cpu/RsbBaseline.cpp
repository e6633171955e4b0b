//===- RsbBaseline.cpp - librsb, the second library baseline --------------===//
//
// librsb is built with gcc's OpenMP (libgomp), so a worker that measures it
// holds two OpenMP runtimes: libgomp for librsb, LLVM's libomp for the JIT'd
// kernels and Eigen. Their thread pools only wait on their own work, so
// measurements of one are not disturbed by the other once the other's
// threads have gone to sleep (libomp's KMP_BLOCKTIME, 200 ms by default).
//
//===----------------------------------------------------------------------===//

#include "cpu/RsbBaseline.h"

#if !SPTUNE_HAVE_RSB
// Configured without librsb (librsb-dev not found, or SPTUNE_ENABLE_RSB=OFF):
// the baseline reports that it was not built instead of a time.
using namespace sptune;

Measurement sptune::measureRsb(const CsrMatrix &, const KernelSpec &,
                               const MeasureOptions &) {
  Measurement m;
  m.status = MeasureStatus::Error;
  m.reason = "the librsb baseline was not built (librsb-dev not found at "
             "configure time, or SPTUNE_ENABLE_RSB=OFF)";
  return m;
}
#else

#include "sptune/Matrix/Reference.h"
#include "sptune/Support/AlignedVector.h"

#include <rsb.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace sptune;

namespace {

std::string rsbError(const char *what, rsb_err_t err) {
  char buf[256] = {0};
  rsb_strerror_r(err, buf, sizeof(buf));
  return std::string("librsb ") + what + " failed: " + buf;
}

/// librsb's state in this process.
struct RsbLibrary {
  std::string error;     ///< empty when initialized
  rsb_int_t threads = 0; ///< its default thread count
};

/// Initializes librsb once per process.
const RsbLibrary &rsbLibrary() {
  static RsbLibrary lib;
  static std::once_flag once;
  std::call_once(once, [] {
    if (rsb_err_t err = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
        err != RSB_ERR_NO_ERROR)
      lib.error = rsbError("initialization", err);
    else if ((err = rsb_lib_get_opt(RSB_IO_WANT_EXECUTING_THREADS,
                                    &lib.threads)) != RSB_ERR_NO_ERROR)
      lib.error = rsbError("reading the thread count", err);
  });
  return lib;
}

/// Owns a librsb matrix.
struct RsbMatrix {
  rsb_mtx_t *mtx = nullptr;
  RsbMatrix() = default;
  RsbMatrix(const RsbMatrix &) = delete;
  RsbMatrix &operator=(const RsbMatrix &) = delete;
  ~RsbMatrix() {
    if (mtx)
      rsb_mtx_free(mtx);
  }
};

template <typename T> constexpr rsb_type_t rsbType();
template <> constexpr rsb_type_t rsbType<float>() {
  return RSB_NUMERICAL_TYPE_FLOAT;
}
template <> constexpr rsb_type_t rsbType<double>() {
  return RSB_NUMERICAL_TYPE_DOUBLE;
}

template <typename T>
Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                const MeasureOptions &opts, rsb_int_t defaultThreads) {
  Measurement result;
  auto fail = [&](MeasureStatus status, std::string reason) {
    result.status = status;
    result.reason = std::move(reason);
    return result;
  };
  if (m.rows > INT_MAX || m.cols > INT_MAX || m.nnz() > INT_MAX)
    return fail(MeasureStatus::Illegal,
                "librsb indices are 32-bit: the matrix is too large");

  std::vector<rsb_coo_idx_t> rowPtr(m.rowPtr.begin(), m.rowPtr.end());
  std::vector<T> vals(m.values.begin(), m.values.end());
  // librsb takes an empty matrix but not null arrays (it reports "not enough
  // memory"), which is what empty vectors give.
  const rsb_coo_idx_t noIndex = 0;
  const T noValue = 0;
  bool empty = m.nnz() == 0;
  rsb_err_t err = RSB_ERR_NO_ERROR;
  RsbMatrix a;
  a.mtx = rsb_mtx_alloc_from_csr_const(
      empty ? &noValue : vals.data(), rowPtr.data(),
      empty ? &noIndex : m.colIdx.data(), static_cast<rsb_nnz_idx_t>(m.nnz()),
      rsbType<T>(), static_cast<rsb_coo_idx_t>(m.rows),
      static_cast<rsb_coo_idx_t>(m.cols),
      /*brA=*/1, /*bcA=*/1, RSB_FLAG_NOFLAGS, &err);
  if (!a.mtx || err != RSB_ERR_NO_ERROR)
    return fail(MeasureStatus::Error, rsbError("matrix assembly", err));

  bool spmv = productShape(spec.kernel) == ProductShape::MatrixVector;
  int64_t n = spmv ? 1 : spec.free;
  std::vector<float> bIn = denseInput(m.cols, n, 1);
  AlignedVector<T> b(bIn.begin(), bIn.end());
  AlignedVector<T> c(static_cast<size_t>(m.rows * n), T(0));
  const T one = 1;
  auto multiply = [&]() {
    return spmv ? rsb_spmv(RSB_TRANSPOSITION_N, &one, a.mtx, b.data(), 1, &one,
                           c.data(), 1)
                : rsb_spmm(RSB_TRANSPOSITION_N, &one, a.mtx,
                           static_cast<rsb_coo_idx_t>(n),
                           RSB_FLAG_WANT_ROW_MAJOR_ORDER, b.data(), n, &one,
                           c.data(), n);
  };

  // The previous measurement in this worker may have tuned the thread count.
  rsb_int_t threads = defaultThreads;
  if ((err = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &threads)) !=
      RSB_ERR_NO_ERROR)
    return fail(MeasureStatus::Error, rsbError("setting threads", err));
  // librsb picks the leaf layout (it may rebuild the matrix) and the thread
  // count for this product: at most 3 rounds of at most 0.5 s each, on
  // operands it allocates itself. `tuned` stays 0 when nothing was better.
  auto tuneStart = std::chrono::steady_clock::now();
  rsb_real_t tuneSpeedup = 0;
  rsb_int_t tuned = 0;
  err = rsb_tune_spmm(
      &a.mtx, &tuneSpeedup, &tuned, /*maxr=*/3, /*maxt=*/0.5,
      RSB_TRANSPOSITION_N, &one, nullptr, static_cast<rsb_coo_idx_t>(n),
      RSB_FLAG_WANT_ROW_MAJOR_ORDER, nullptr, n, &one, nullptr, n);
  if (err != RSB_ERR_NO_ERROR)
    return fail(MeasureStatus::Error, rsbError("autotuning", err));
  if (tuned > 0) {
    threads = tuned;
    if ((err = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &threads)) !=
        RSB_ERR_NO_ERROR)
      return fail(MeasureStatus::Error, rsbError("setting threads", err));
  }
  double tuneSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - tuneStart)
                           .count();
  // Give libomp's spinning workers (a JIT'd kernel measured just before in
  // this worker) time to go to sleep: both runtimes share the cores.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));

  if (opts.checkResult) {
    std::fill(c.begin(), c.end(), T(0));
    if ((err = multiply()) != RSB_ERR_NO_ERROR)
      return fail(MeasureStatus::Error, rsbError("product", err));
    ReferenceResult ref = spmv ? referenceSpMV(m, bIn, kValueBits<T>)
                               : referenceSpMM(m, bIn, n, kValueBits<T>);
    std::vector<double> got(c.begin(), c.end());
    int64_t bad = firstMismatch(ref, got.data(), opts.tolerance);
    if (bad >= 0)
      return fail(MeasureStatus::WrongResult,
                  "librsb result #" + std::to_string(bad) + " differs");
  }
  bool failed = false;
  timeEachCall(
      opts,
      [&] {
        failed = multiply() != RSB_ERR_NO_ERROR;
        return !failed;
      },
      result);
  if (failed)
    return fail(MeasureStatus::Error, "librsb product failed while timing");
  result.detailsJson =
      "{\"library\": \"librsb\", \"threads\": " + std::to_string(threads) +
      ", \"tune_s\": " + std::to_string(tuneSeconds) +
      ", \"tune_speedup\": " + std::to_string(tuneSpeedup) + "}";
  return result;
}
} // namespace

Measurement sptune::measureRsb(const CsrMatrix &matrix, const KernelSpec &spec,
                               const MeasureOptions &options) {
  const ProductShape shape = productShape(spec.kernel);
  if (shape == ProductShape::SampledMatrixMatrix)
    return Measurement::refused("librsb has no SDDMM");
  if (shape != ProductShape::MatrixMatrix &&
      shape != ProductShape::MatrixVector)
    return Measurement::refused(std::string("librsb computes SpMM and SpMV "
                                            "only, not '") +
                                toString(spec.kernel) + "'");
  Measurement m;
  const RsbLibrary &lib = rsbLibrary();
  if (!lib.error.empty()) {
    m.status = MeasureStatus::Error;
    m.reason = lib.error;
    return m;
  }
  return spec.elementBits == 64
             ? run<double>(matrix, spec, options, lib.threads)
             : run<float>(matrix, spec, options, lib.threads);
}
#endif // SPTUNE_HAVE_RSB
