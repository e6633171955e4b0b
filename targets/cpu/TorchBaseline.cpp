//===- TorchBaseline.cpp - PyTorch's sparse CPU ops -----------------------===//
//
// Compiled with exceptions (LibTorch throws; sptune_add_library's EH) and
// linked against LibTorch and LLVM's libomp (for omp_get_max_threads, the
// OpenMP default the other baselines use). LibTorch is built against libgomp,
// but in the tools its OpenMP calls bind to LLVM's libomp, loaded first
// (LD_DEBUG=bindings): LibTorch and the JIT'd kernels share one runtime and
// one thread count. So the count is set before LibTorch's first parallel
// region: its lazy initialization would otherwise set OpenMP's count to its
// own default (the physical cores cpuinfo finds, 1 on some VMs) for the
// kernels measured after it in the same worker too.
//
// Timing. The first call is timed and its result checked (when asked). A
// first call longer than kTorchCallCapSeconds is the measurement on its own
// (reps = 1, "capped": true in the details) — sampled_addmm takes seconds
// per call on large matrices, and a call cannot be interrupted. Otherwise
// the shared repetition policy (repeatAndSummarize) runs, its warm-ups and
// minimum repetitions trimmed so that the repetitions stay within
// max(minSeconds, kTorchCallCapSeconds) at the first call's speed.
//
//===----------------------------------------------------------------------===//

#include "cpu/TorchBaseline.h"

#if !SPTUNE_HAVE_TORCH_BASELINE
// Configured without LibTorch (libtorch-dev not found, or
// SPTUNE_ENABLE_TORCH_BASELINE=OFF): the baseline reports that it was not
// built instead of a time.
using namespace sptune;

Measurement sptune::measureTorch(const CsrMatrix &, const KernelSpec &,
                                 const MeasureOptions &) {
  Measurement m;
  m.status = MeasureStatus::Error;
  m.reason = "the torch baseline was not built (libtorch-dev not found at "
             "configure time, or SPTUNE_ENABLE_TORCH_BASELINE=OFF)";
  return m;
}
#else

#include "sptune/Matrix/Reference.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

using namespace sptune;

namespace {

/// A single call longer than this is reported alone (reps = 1).
constexpr double kTorchCallCapSeconds = 10.0;

/// LibTorch 1.x (no native CPU kernel; Debian's build has no MKL either)
/// computes sampled_addmm through the dense rows x cols product: time and
/// memory grow with rows x cols, not with the nonzeros. Measured peak: about
/// four dense rows x cols buffers of the element type.
constexpr bool kSampledAddmmIsDense = TORCH_VERSION_MAJOR < 2;
constexpr double kSampledAddmmDenseBuffers = 4;
/// The most those buffers may take: this, or half of the available memory
/// when that is less.
constexpr double kDenseLimitBytes = 4.0 * (1ull << 30);

/// Swallows LibTorch's warnings (it warns once per process that sparse CSR
/// support is in beta) so that they do not interleave with the tools'
/// output.
class QuietWarnings : public c10::WarningHandler {
public:
  void process(const c10::SourceLocation &, const std::string &,
               const bool) override {}
};

/// MemAvailable from /proc/meminfo in bytes, 0 when unknown.
double availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:")
      return kib * 1024;
  }
  return 0;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f GiB", bytes / (1ull << 30));
  return buf;
}

/// OpenMP's default thread count, read once before LibTorch first runs (its
/// lazy initialization would set OpenMP's count to its own default).
int openmpThreads() {
  static const int threads = std::max(1, omp_get_max_threads());
  return threads;
}

/// Sets LibTorch's intra-op threads to OpenMP's default; returns the count
/// LibTorch then reports.
int useOpenmpThreads() {
  int n = openmpThreads();
  if (at::get_num_threads() != n)
    at::set_num_threads(n);
  return at::get_num_threads();
}

template <typename T> constexpr at::ScalarType scalarType() {
  return std::is_same_v<T, double> ? at::kDouble : at::kFloat;
}

/// A row-major rows x cols tensor of element type T holding `values`.
template <typename T>
at::Tensor denseTensor(const std::vector<float> &values, int64_t rows,
                       int64_t cols) {
  at::Tensor t = at::empty({rows, cols}, at::TensorOptions().dtype(
                                             scalarType<T>()));
  std::copy(values.begin(), values.end(), t.data_ptr<T>());
  return t;
}

/// `m` as a torch sparse CSR tensor (int64 indices, T values).
template <typename T> at::Tensor csrTensor(const CsrMatrix &m) {
  auto i64 = at::TensorOptions().dtype(at::kLong);
  at::Tensor crow = at::empty({m.rows + 1}, i64);
  std::copy(m.rowPtr.begin(), m.rowPtr.end(), crow.data_ptr<int64_t>());
  at::Tensor col = at::empty({m.nnz()}, i64);
  std::copy(m.colIdx.begin(), m.colIdx.end(), col.data_ptr<int64_t>());
  at::Tensor val =
      at::empty({m.nnz()}, at::TensorOptions().dtype(scalarType<T>()));
  std::copy(m.values.begin(), m.values.end(), val.data_ptr<T>());
  return at::sparse_csr_tensor(crow, col, val, at::IntArrayRef{m.rows, m.cols},
                               at::TensorOptions()
                                   .dtype(scalarType<T>())
                                   .layout(at::kSparseCsr));
}

/// The message of an exception caught at the LibTorch boundary.
std::string currentExceptionMessage() {
  try {
    throw;
  } catch (const c10::Error &e) {
    return e.what_without_backtrace();
  } catch (const std::bad_alloc &) {
    return "out of memory";
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "an unknown exception";
  }
}

double secondsOf(const std::function<void()> &call) {
  auto t0 = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// Times `call` (see the file comment). `check` checks the first call's
/// result: the index of the first mismatch, or -1. Exceptions from LibTorch
/// become status `error`.
Measurement timeTorch(const MeasureOptions &opts,
                      const std::function<void()> &call,
                      const std::function<int64_t()> &check, bool &capped) {
  Measurement result;
  capped = false;
  double first = 0;
  try {
    first = secondsOf(call);
    if (opts.checkResult) {
      int64_t bad = check();
      if (bad >= 0) {
        result.status = MeasureStatus::WrongResult;
        result.reason = "torch result #" + std::to_string(bad) + " differs";
        return result;
      }
    }
  } catch (...) {
    result.status = MeasureStatus::Error;
    result.reason = "torch: " + currentExceptionMessage();
    return result;
  }
  if (first > kTorchCallCapSeconds) {
    capped = true;
    summarizeSamples({first}, result);
    return result;
  }
  // The first call was the warm-up; keep the repetitions within the budget.
  MeasureOptions o = opts;
  double budget = std::max(opts.minSeconds, kTorchCallCapSeconds);
  if (first * (o.warmups + std::max(1, o.minReps)) > budget) {
    o.warmups = 0;
    o.minReps = std::clamp(static_cast<int>(budget / std::max(first, 1e-9)),
                           1, std::max(1, o.maxReps));
  }
  // repeatAndSummarize is built without exceptions: none may cross it. After
  // an exception the batches return zero times at once, which ends the loop
  // (at maxReps), and the error replaces the result.
  std::string error;
  repeatAndSummarize(
      o,
      [&](int reps, std::vector<double> &times) {
        times.clear();
        for (int r = 0; r < reps; ++r) {
          if (error.empty()) {
            try {
              times.push_back(secondsOf(call));
              continue;
            } catch (...) {
              error = "torch: " + currentExceptionMessage();
            }
          }
          times.push_back(0);
        }
      },
      result);
  if (!error.empty()) {
    result = Measurement();
    result.status = MeasureStatus::Error;
    result.reason = error;
  }
  return result;
}

template <typename T>
Measurement spmm(const CsrMatrix &m, int64_t n, bool isSpmv,
                 const MeasureOptions &opts, bool &capped) {
  at::Tensor a = csrTensor<T>(m);
  std::vector<float> bIn = denseInput(m.cols, n, 1);
  at::Tensor b = denseTensor<T>(bIn, m.cols, n);
  at::Tensor c = at::zeros({m.rows, n}, b.options());
  // C = 1 * C + 1 * (A B), in place.
  auto call = [&] { at::addmm_out(c, c, a, b); };
  auto check = [&]() -> int64_t {
    at::Tensor got = c.to(at::kDouble).contiguous();
    ReferenceResult ref = isSpmv ? referenceSpMV(m, bIn, kValueBits<T>)
                                 : referenceSpMM(m, bIn, n, kValueBits<T>);
    return firstMismatch(ref, got.data_ptr<double>(), opts.tolerance);
  };
  return timeTorch(opts, call, check, capped);
}

template <typename T>
Measurement sddmm(const CsrMatrix &s, int64_t k, const MeasureOptions &opts,
                  bool &capped) {
  double elementBytes = sizeof(T);
  if (kSampledAddmmIsDense && s.nnz() > 0) {
    double need = static_cast<double>(s.rows) * static_cast<double>(s.cols) *
                  elementBytes * kSampledAddmmDenseBuffers;
    double available = availableMemoryBytes();
    double limit = available > 0 ? std::min(kDenseLimitBytes, available / 2)
                                 : kDenseLimitBytes;
    if (need > limit) {
      Measurement m;
      m.status = MeasureStatus::Error;
      m.reason = "torch " TORCH_VERSION " computes sampled_addmm through "
                 "the dense " +
                 std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                 " product (about " + gib(need) + " of dense buffers, over "
                 "the limit of " + gib(limit) + "); not run";
      return m;
    }
  }
  at::Tensor st = csrTensor<T>(s);
  at::Tensor sValues = st.values();
  std::vector<float> aIn = denseInput(s.rows, k, 2);
  std::vector<float> bIn = denseInput(k, s.cols, 3);
  at::Tensor a = denseTensor<T>(aIn, s.rows, k);
  at::Tensor b = denseTensor<T>(bIn, k, s.cols);
  at::Tensor x;
  // spy(S) .* (A B), then times S's values: both timed.
  auto call = [&] {
    x = at::sparse_sampled_addmm(st, a, b, /*beta=*/0, /*alpha=*/1);
    x.values().mul_(sValues);
  };
  auto check = [&]() -> int64_t {
    at::Tensor crow = x.crow_indices().to(at::kLong).contiguous();
    at::Tensor col = x.col_indices().to(at::kLong).contiguous();
    at::Tensor val = x.values().to(at::kDouble).contiguous();
    const int64_t *cp = crow.data_ptr<int64_t>();
    const int64_t *jp = col.data_ptr<int64_t>();
    const double *vp = val.data_ptr<double>();
    double checksum = 0;
    for (int64_t i = 0; i < s.rows; ++i)
      for (int64_t p = cp[i]; p < cp[i + 1]; ++p)
        checksum += vp[p] * checksumWeight(i, jp[p]);
    return firstMismatch(referenceSDDMMChecksum(s, aIn, bIn, k, kValueBits<T>),
                         &checksum, opts.tolerance);
  };
  return timeTorch(opts, call, check, capped);
}

template <typename T>
Measurement run(const CsrMatrix &m, const KernelSpec &spec,
                const MeasureOptions &opts) {
  Measurement result;
  QuietWarnings quiet;
  c10::Warning::WarningHandlerGuard guard(&quiet);
  int threads = 0;
  bool capped = false;
  const ProductShape shape = productShape(spec.kernel);
  const char *op = shape == ProductShape::SampledMatrixMatrix
                       ? "sparse_sampled_addmm"
                       : "addmm";
  try {
    threads = useOpenmpThreads();
    switch (shape) {
    case ProductShape::MatrixMatrix:
      result = spmm<T>(m, spec.free, /*isSpmv=*/false, opts, capped);
      break;
    case ProductShape::MatrixVector:
      result = spmm<T>(m, 1, /*isSpmv=*/true, opts, capped);
      break;
    case ProductShape::SampledMatrixMatrix:
      result = sddmm<T>(m, spec.free, opts, capped);
      break;
    default: // refused by measureTorch
      break;
    }
  } catch (...) {
    result = Measurement();
    result.status = MeasureStatus::Error;
    result.reason = "torch: " + currentExceptionMessage();
  }
  std::ostringstream details;
  details << "{\"library\": \"torch\", \"torch_version\": \"" TORCH_VERSION
             "\", \"threads\": "
          << threads << ", \"op\": \"" << op
          << "\", \"capped\": " << (capped ? "true" : "false") << "}";
  result.detailsJson = details.str();
  return result;
}

} // namespace

Measurement sptune::measureTorch(const CsrMatrix &matrix,
                                 const KernelSpec &spec,
                                 const MeasureOptions &options) {
  if (!hasMatrixProductShape(spec.kernel))
    return Measurement::refused(
        std::string("torch.sparse computes SpMM, SDDMM and SpMV here, not '") +
        toString(spec.kernel) + "'");
  return spec.elementBits == 64 ? run<double>(matrix, spec, options)
                                : run<float>(matrix, spec, options);
}
#endif // SPTUNE_HAVE_TORCH_BASELINE
