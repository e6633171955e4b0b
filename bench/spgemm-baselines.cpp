//===- spgemm-baselines.cpp - C = A A with the libraries users call -------===//
//
// Issue 33's SpGEMM baselines, built as their users build them (-O3
// -march=native, OpenMP): Eigen's sparse x sparse product (one thread: Eigen
// does not parallelize it), librsb's rsb_spmsp (its own threads), and a hand
// OpenMP Gustavson kernel as an HPC engineer writes it (two passes, a marker
// array and a dense accumulator per thread, rows in dynamic chunks of 64,
// each row's columns sorted). Each computes C = A A of one matrix (sptune's
// loader: symmetric files expanded, pattern entries 1) in f64; the fastest of
// --reps calls after a warm-up is reported, with C's stored entries and a
// checksum (sum of value * (column + 1)) to compare the results by.
//
//   sptune-spgemm-baselines <matrix file or gen: spec> [--reps N]
//       [--write-general OUT.mtx]
//
// prints one JSON object. --write-general writes the matrix as loaded, in
// general coordinate form (what MLIR's sparse_tensor.new reads whole: it
// keeps the stored triangle of a symmetric file), for bench/spgemm.py to
// time sptune's kernel on the same matrix.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/MatrixMarket.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/SparseMatrix.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#if SPTUNE_HAVE_EIGEN
#include <Eigen/SparseCore>
#endif
#if SPTUNE_HAVE_RSB
#include <rsb.h>
#endif

using namespace sptune;

namespace {

/// A product's result as compared across libraries.
struct Result {
  int64_t entries = 0;
  double checksum = 0;
};

/// C in CSR (the hand kernel's result).
struct Csr {
  std::vector<int64_t> rowPtr;
  std::vector<int32_t> cols;
  std::vector<double> values;
};

/// The hand OpenMP Gustavson product.
Csr handGustavson(const CsrMatrix &a, const CsrMatrix &b) {
  Csr c;
  c.rowPtr.assign(a.rows + 1, 0);
#pragma omp parallel
  {
    std::vector<int64_t> mark(b.cols, -1);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < a.rows; ++i) {
      int64_t count = 0;
      for (int64_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
        int32_t k = a.colIdx[p];
        for (int64_t q = b.rowPtr[k]; q < b.rowPtr[k + 1]; ++q)
          if (mark[b.colIdx[q]] != i) {
            mark[b.colIdx[q]] = i;
            ++count;
          }
      }
      c.rowPtr[i + 1] = count;
    }
  }
  for (int64_t i = 0; i < a.rows; ++i)
    c.rowPtr[i + 1] += c.rowPtr[i];
  c.cols.resize(c.rowPtr[a.rows]);
  c.values.resize(c.rowPtr[a.rows]);
#pragma omp parallel
  {
    std::vector<int64_t> mark(b.cols, -1);
    std::vector<double> acc(b.cols);
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < a.rows; ++i) {
      int64_t next = c.rowPtr[i];
      for (int64_t p = a.rowPtr[i]; p < a.rowPtr[i + 1]; ++p) {
        int32_t k = a.colIdx[p];
        double x = a.values[p];
        for (int64_t q = b.rowPtr[k]; q < b.rowPtr[k + 1]; ++q) {
          int32_t j = b.colIdx[q];
          if (mark[j] != i) {
            mark[j] = i;
            acc[j] = x * b.values[q];
            c.cols[next++] = j;
          } else {
            acc[j] += x * b.values[q];
          }
        }
      }
      std::sort(c.cols.begin() + c.rowPtr[i], c.cols.begin() + next);
      for (int64_t p = c.rowPtr[i]; p < next; ++p)
        c.values[p] = acc[c.cols[p]];
    }
  }
  return c;
}

double checksumOf(const std::vector<int32_t> &cols,
                  const std::vector<double> &values) {
  double s = 0;
  for (size_t p = 0; p < cols.size(); ++p)
    s += values[p] * (cols[p] + 1.0);
  return s;
}

/// The fastest of `reps` calls of `run(false)` after one warm-up, in
/// seconds; `result` is the warm-up's, `run(true)`, which also sums the
/// checksum (outside the timed calls). `run` keeps the product it makes
/// alive; `release` frees it, before each timed call (sptune's program frees
/// its result after its timer stops, too).
double fastest(int reps, const std::function<Result(bool)> &run,
               const std::function<void()> &release, Result &result) {
  result = run(true);
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    release();
    auto t0 = std::chrono::steady_clock::now();
    run(false);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

#if SPTUNE_HAVE_EIGEN
using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, int64_t>;
EigenCsr toEigen(const CsrMatrix &m) {
  EigenCsr e(m.rows, m.cols);
  e.resizeNonZeros(m.nnz());
  std::copy(m.rowPtr.begin(), m.rowPtr.end(), e.outerIndexPtr());
  std::copy(m.colIdx.begin(), m.colIdx.end(), e.innerIndexPtr());
  std::copy(m.values.begin(), m.values.end(), e.valuePtr());
  return e;
}
#endif

#if SPTUNE_HAVE_RSB
/// C = A A with librsb, or an error message.
std::string rsbProduct(const CsrMatrix &m, int reps, double &seconds,
                       Result &result) {
  if (m.rows > INT_MAX || m.nnz() > INT_MAX)
    return "librsb indices are 32-bit: the matrix is too large";
  if (rsb_lib_init(RSB_NULL_INIT_OPTIONS) != RSB_ERR_NO_ERROR)
    return "librsb did not initialize";
  std::vector<rsb_coo_idx_t> rowPtr(m.rowPtr.begin(), m.rowPtr.end());
  rsb_err_t err = RSB_ERR_NO_ERROR;
  rsb_mtx_t *a = rsb_mtx_alloc_from_csr_const(
      m.values.data(), rowPtr.data(), m.colIdx.data(),
      static_cast<rsb_nnz_idx_t>(m.nnz()), RSB_NUMERICAL_TYPE_DOUBLE,
      static_cast<rsb_coo_idx_t>(m.rows), static_cast<rsb_coo_idx_t>(m.cols), 1,
      1, RSB_FLAG_NOFLAGS, &err);
  if (!a || err != RSB_ERR_NO_ERROR)
    return "librsb could not assemble the matrix";
  const double one = 1;
  std::string error;
  rsb_mtx_t *c = nullptr;
  auto release = [&] {
    if (c)
      rsb_mtx_free(c);
    c = nullptr;
  };
  seconds = fastest(
      reps,
      [&](bool check) -> Result {
        Result r;
        rsb_err_t e = RSB_ERR_NO_ERROR;
        c = rsb_spmsp(RSB_NUMERICAL_TYPE_DOUBLE, RSB_TRANSPOSITION_N, &one, a,
                      RSB_TRANSPOSITION_N, &one, a, &e);
        if (!c || e != RSB_ERR_NO_ERROR) {
          error = "rsb_spmsp failed";
          return r;
        }
        rsb_nnz_idx_t nnz = 0;
        rsb_mtx_get_info(c, RSB_MIF_MATRIX_NNZ__TO__RSB_NNZ_INDEX_T, &nnz);
        r.entries = nnz;
        if (check && nnz > 0) {
          std::vector<double> v(nnz);
          std::vector<rsb_coo_idx_t> ia(nnz), ja(nnz);
          rsb_mtx_get_coo(c, v.data(), ia.data(), ja.data(), RSB_FLAG_NOFLAGS);
          std::vector<int32_t> cols(ja.begin(), ja.end());
          r.checksum = checksumOf(cols, v);
        }
        return r;
      },
      release, result);
  release();
  rsb_mtx_free(a);
  rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
  return error;
}
#endif

int usage(const char *why) {
  llvm::errs() << "sptune-spgemm-baselines: " << why
               << "\nusage: sptune-spgemm-baselines <matrix file or gen: "
                  "spec> [--reps N] [--write-general OUT.mtx]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string source, general;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      char *end = nullptr;
      long v = std::strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1 || v > 1000)
        return usage("--reps must be an integer in [1, 1000]");
      reps = static_cast<int>(v);
    } else if (arg == "--write-general" && i + 1 < argc) {
      general = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && source.empty()) {
      source = arg;
    } else {
      return usage(("unexpected argument '" + arg + "'").c_str());
    }
  }
  if (source.empty())
    return usage("no matrix given");
  CooMatrix coo;
  MatrixInfo info;
  if (llvm::Error e = loadMatrix(source, coo, info)) {
    llvm::errs() << "sptune-spgemm-baselines: " << llvm::toString(std::move(e))
                 << "\n";
    return 1;
  }
  if (coo.rows != coo.cols) {
    llvm::errs() << "sptune-spgemm-baselines: A A needs a square matrix, '"
                 << source << "' is " << coo.rows << " x " << coo.cols << "\n";
    return 1;
  }
  if (!general.empty())
    if (llvm::Error e = writeMatrixMarket(general, coo)) {
      llvm::errs() << "sptune-spgemm-baselines: "
                   << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  CsrMatrix a = CsrMatrix::fromCoo(std::move(coo));

  llvm::json::Object times, entries, checksums, errors;
  Result hand;
  std::optional<Csr> handC;
  times["hand"] = fastest(
      reps,
      [&](bool check) {
        handC = handGustavson(a, a);
        return Result{static_cast<int64_t>(handC->cols.size()),
                      check ? checksumOf(handC->cols, handC->values) : 0.0};
      },
      [&] { handC.reset(); }, hand);
  handC.reset();
  entries["hand"] = hand.entries;
  checksums["hand"] = hand.checksum;
#if SPTUNE_HAVE_EIGEN
  {
    EigenCsr e = toEigen(a);
    Result r;
    std::optional<EigenCsr> c;
    times["eigen"] = fastest(
        reps,
        [&](bool check) {
          c.emplace(e * e);
          Result out{c->nonZeros(), 0};
          for (int64_t i = 0; check && i < c->outerSize(); ++i)
            for (EigenCsr::InnerIterator it(*c, i); it; ++it)
              out.checksum += it.value() * (it.col() + 1.0);
          return out;
        },
        [&] { c.reset(); }, r);
    entries["eigen"] = r.entries;
    checksums["eigen"] = r.checksum;
  }
#else
  errors["eigen"] = "not built (Eigen not found at configure time)";
#endif
#if SPTUNE_HAVE_RSB
  {
    double seconds = 0;
    Result r;
    std::string error = rsbProduct(a, reps, seconds, r);
    if (error.empty()) {
      times["rsb"] = seconds;
      entries["rsb"] = r.entries;
      checksums["rsb"] = r.checksum;
    } else {
      errors["rsb"] = error;
    }
  }
#else
  errors["rsb"] = "not built (librsb not found at configure time)";
#endif
  llvm::json::Object out{{"matrix", info.id},
                         {"rows", a.rows},
                         {"nnz", a.nnz()},
                         {"threads", omp_get_max_threads()},
                         {"reps", reps},
                         {"seconds", std::move(times)},
                         {"entries", std::move(entries)},
                         {"checksum", std::move(checksums)}};
  if (!errors.empty())
    out["errors"] = std::move(errors);
  llvm::outs() << llvm::json::Value(std::move(out)) << "\n";
  return 0;
}
