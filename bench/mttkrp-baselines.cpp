//===- mttkrp-baselines.cpp - MTTKRP as an HPC engineer writes it ---------===//
//
// Issue 33's MTTKRP baseline, built as its users build it (-O3 -march=native,
// OpenMP): a hand CSF kernel in the style of SPLATT, for A(i, j) = sum over k,
// l of B(i, k, l) C(k, j) D(l, j) (mode 1). B is read from a FROSTT file by
// sptune's reader (the extended form MLIR's sparse_tensor.new reads: "3 NNZ",
// then the three sizes, then one-based "i k l value" lines; or plain FROSTT)
// and stored as CSF (slices i, fibers (i, k), entries l). Threads take slices
// in dynamic chunks of 16; per fiber a thread sums B(i, k, l) D(l, :) and adds
// that sum times C(k, :) to A(i, :) (one multiply per entry and column fewer
// than the loop nest as written); A's rows start on cache lines. Ranks 8, 16,
// 32 and 64 are compiled for, with the slice's row of A and the fiber's sum in
// vector registers; other ranks run the same loops on scalars. C and D are the
// factor matrices bench/mttkrp.py's program builds (C(k, j) = ((k + 2j) mod 7 +
// 1) / 8, D(l, j) = ((3l + j) mod 5 + 1) / 8); A is zeroed inside each call, as
// in sptune's program. The fastest of --reps calls after a warm-up is reported,
// with a checksum of A (sum of A(i, j) ((i + j) mod 3 + 1)) to compare the
// results by.
//
//   sptune-mttkrp-baselines <file.tns> [--rank R] [--reps N]
//                           [--factor-rows M]
//
// prints one JSON object.
//
// `--factor-rows M` measures a locality ceiling, not the tensor's MTTKRP: the
// fibers' k and the entries' l are taken modulo M, so that the same loops
// over the same slices, fibers and entries read only M rows of C and of D
// (M = 16: 4 KB each at rank 32 in f64, in L1 throughout). The time is what
// this kernel would take if no read of a factor missed the cache level those
// rows fit in (docs/results.md "How far MTTKRP's kernel is from its
// locality ceiling"); the checksum is the changed problem's.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/Frostt.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// B in CSF: slices (their i), fibers (their k), entries (their l, value).
struct Csf {
  int64_t dims[3] = {0, 0, 0};
  std::vector<int64_t> sliceI, slicePtr; ///< slicePtr: into the fibers
  std::vector<int64_t> fiberK, fiberPtr; ///< fiberPtr: into the entries
  std::vector<int64_t> entryL;
  std::vector<double> values;
};

[[noreturn]] void fail(const std::string &message) {
  llvm::errs() << "sptune-mttkrp-baselines: " << message << "\n";
  std::exit(1);
}

/// Reads a FROSTT file of a 3-D tensor (sptune/Matrix/Frostt.h: repeated
/// coordinates summed, every line checked) into CSF.
Csf readTensor(const std::string &path) {
  llvm::Expected<sptune::CooTensor> read = sptune::readFrostt(path);
  if (!read)
    fail(llvm::toString(read.takeError()));
  const sptune::CooTensor &coo = *read;
  Csf t;
  for (int m = 0; m < 3; ++m)
    t.dims[m] = coo.dims[m];
  const auto &I = coo.coords[0], &K = coo.coords[1], &L = coo.coords[2];
  for (int64_t p = 0; p < coo.nnz(); ++p) {
    if (t.sliceI.empty() || t.sliceI.back() != I[p]) {
      t.sliceI.push_back(I[p]);
      t.slicePtr.push_back(static_cast<int64_t>(t.fiberK.size()));
    }
    if (t.fiberK.size() == static_cast<size_t>(t.slicePtr.back()) ||
        t.fiberK.back() != K[p]) {
      t.fiberK.push_back(K[p]);
      t.fiberPtr.push_back(static_cast<int64_t>(t.entryL.size()));
    }
    t.entryL.push_back(L[p]);
    t.values.push_back(coo.values[p]);
  }
  t.slicePtr.push_back(static_cast<int64_t>(t.fiberK.size()));
  t.fiberPtr.push_back(static_cast<int64_t>(t.entryL.size()));
  return t;
}

/// A rows x rank matrix starting on a cache line, whose rows start on
/// cache lines when rank * 8 is a multiple of 64 (no two threads' rows of A
/// share a line; a factor's row of rank 32 spans four lines, not five).
struct AlignedMatrix {
  AlignedMatrix(int64_t rows, int64_t rank)
      : size(static_cast<size_t>(rows * rank)),
        data(static_cast<double *>(std::aligned_alloc(
            64, ((size * sizeof(double) + 63) / 64) * 64 + 64))) {
    if (!data)
      fail("out of memory for a " + std::to_string(rows) + " x " +
           std::to_string(rank) + " matrix");
  }
  ~AlignedMatrix() { std::free(data); }
  AlignedMatrix(const AlignedMatrix &) = delete;
  AlignedMatrix &operator=(const AlignedMatrix &) = delete;
  size_t size;
  double *data;
};

/// Eight doubles: one AVX-512 register (two AVX2 ones), as GCC's and
/// clang's vector extensions give them; loads and stores need only a
/// double's alignment.
typedef double Vec8 __attribute__((vector_size(64), aligned(8)));

/// The SPLATT-style kernel for a rank known at compile time (`Vectors` x 8
/// columns): A (dims[0] x rank, row-major) from B, C, D. Slices are handed
/// out in dynamic chunks of 16 (SPLATT's choice: balance on skewed slices,
/// neighbouring rows of A mostly in one thread's chunk). A slice's row of A
/// and a fiber's sum of B(i, k, l) D(l, :) stay in vector registers: a
/// fiber's sum is multiplied by C(k, :) once and added to the slice's row,
/// which is stored once. Written with vector types because neither GCC nor
/// clang kept both rows in registers from the scalar loops of the kernel
/// below on every rank (issue 33's MTTKRP section in docs/results.md: up
/// to 2x apart on one tensor, by compiler).
template <int64_t Vectors>
void mttkrpVectorKernel(const Csf &b, const AlignedMatrix &c,
                        const AlignedMatrix &d, AlignedMatrix &a) {
  constexpr int64_t rank = Vectors * 8;
  std::fill(a.data, a.data + a.size, 0.0);
  const int64_t slices = static_cast<int64_t>(b.sliceI.size());
  const int64_t *slicePtr = b.slicePtr.data(), *sliceI = b.sliceI.data();
  const int64_t *fiberPtr = b.fiberPtr.data(), *fiberK = b.fiberK.data();
  const int64_t *entryL = b.entryL.data();
  const double *values = b.values.data(), *cData = c.data, *dData = d.data;
  double *aData = a.data;
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t s = 0; s < slices; ++s) {
    Vec8 out[Vectors];
    for (int64_t q = 0; q < Vectors; ++q)
      out[q] = Vec8{};
    for (int64_t f = slicePtr[s]; f < slicePtr[s + 1]; ++f) {
      const Vec8 *ck = reinterpret_cast<const Vec8 *>(cData + fiberK[f] * rank);
      const int64_t first = fiberPtr[f], end = fiberPtr[f + 1];
      const Vec8 *d0 =
          reinterpret_cast<const Vec8 *>(dData + entryL[first] * rank);
      Vec8 row[Vectors];
      for (int64_t q = 0; q < Vectors; ++q)
        row[q] = values[first] * d0[q];
      for (int64_t p = first + 1; p < end; ++p) {
        const Vec8 *dl =
            reinterpret_cast<const Vec8 *>(dData + entryL[p] * rank);
        for (int64_t q = 0; q < Vectors; ++q)
          row[q] += values[p] * dl[q];
      }
      for (int64_t q = 0; q < Vectors; ++q)
        out[q] += row[q] * ck[q];
    }
    Vec8 *dst = reinterpret_cast<Vec8 *>(aData + sliceI[s] * rank);
    for (int64_t q = 0; q < Vectors; ++q)
      dst[q] = out[q];
  }
}

/// The kernel for other ranks, known at run time: the same loops on
/// scalars. A fiber of one entry adds B(i, k, l) C(k, :) D(l, :) directly;
/// a longer one first sums B(i, k, l) D(l, :) over its entries into a row
/// of the thread's own.
void mttkrpScalarKernel(const Csf &b, const AlignedMatrix &c,
                        const AlignedMatrix &d, int64_t rank,
                        AlignedMatrix &a) {
  std::fill(a.data, a.data + a.size, 0.0);
  int64_t slices = static_cast<int64_t>(b.sliceI.size());
#pragma omp parallel
  {
    std::vector<double> row(static_cast<size_t>(rank));
#pragma omp for schedule(dynamic, 16)
    for (int64_t s = 0; s < slices; ++s) {
      double *out = a.data + b.sliceI[s] * rank;
      for (int64_t f = b.slicePtr[s]; f < b.slicePtr[s + 1]; ++f) {
        const double *ck = c.data + b.fiberK[f] * rank;
        int64_t first = b.fiberPtr[f], end = b.fiberPtr[f + 1];
        const double v0 = b.values[first];
        const double *d0 = d.data + b.entryL[first] * rank;
        if (end - first == 1) {
#pragma omp simd
          for (int64_t j = 0; j < rank; ++j)
            out[j] += v0 * ck[j] * d0[j];
          continue;
        }
#pragma omp simd
        for (int64_t j = 0; j < rank; ++j)
          row[j] = v0 * d0[j];
        for (int64_t p = first + 1; p < end; ++p) {
          const double v = b.values[p];
          const double *dl = d.data + b.entryL[p] * rank;
#pragma omp simd
          for (int64_t j = 0; j < rank; ++j)
            row[j] += v * dl[j];
        }
#pragma omp simd
        for (int64_t j = 0; j < rank; ++j)
          out[j] += row[j] * ck[j];
      }
    }
  }
}

/// The kernel for `rank`: in vector registers for the common ranks 8 to 64.
void mttkrp(const Csf &b, const AlignedMatrix &c, const AlignedMatrix &d,
            int64_t rank, AlignedMatrix &a) {
  switch (rank) {
  case 8:
    return mttkrpVectorKernel<1>(b, c, d, a);
  case 16:
    return mttkrpVectorKernel<2>(b, c, d, a);
  case 32:
    return mttkrpVectorKernel<4>(b, c, d, a);
  case 64:
    return mttkrpVectorKernel<8>(b, c, d, a);
  default:
    return mttkrpScalarKernel(b, c, d, rank, a);
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string path;
  int64_t rank = 32, reps = 5, factorRows = 0;
  for (int n = 1; n < argc; ++n) {
    std::string arg = argv[n];
    auto value = [&](const char *name, int64_t lo, int64_t hi) {
      char *end = nullptr;
      long long v = n + 1 < argc ? std::strtoll(argv[n + 1], &end, 10) : 0;
      if (n + 1 >= argc || *end != '\0' || v < lo || v > hi)
        fail(std::string(name) + " must be an integer in [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]");
      ++n;
      return static_cast<int64_t>(v);
    };
    if (arg == "--rank")
      rank = value("--rank", 1, 4096);
    else if (arg == "--reps")
      reps = value("--reps", 1, 1000);
    else if (arg == "--factor-rows")
      factorRows = value("--factor-rows", 1, int64_t(1) << 40);
    else if (!arg.empty() && arg[0] == '-')
      fail("unknown option '" + arg + "'");
    else
      path = arg;
  }
  if (path.empty())
    fail("no tensor given (usage: sptune-mttkrp-baselines <file.tns> "
         "[--rank R] [--reps N] [--factor-rows M])");
  Csf b = readTensor(path);
  if (factorRows > 0) { // the locality ceiling (the file header)
    for (int64_t &k : b.fiberK)
      k %= factorRows;
    for (int64_t &l : b.entryL)
      l %= factorRows;
  }
  // The factors start on cache lines, as sptune's buffers do (MLIR's
  // bufferization aligns them to 64 bytes): from malloc a 256-byte row of
  // rank 32 spans five cache lines, and whether D did decided 25% of this
  // kernel's time on the 200-slice tensor (docs/results.md).
  AlignedMatrix c(b.dims[1], rank), d(b.dims[2], rank);
  AlignedMatrix a(b.dims[0], rank);
  for (int64_t k = 0; k < b.dims[1]; ++k)
    for (int64_t j = 0; j < rank; ++j)
      c.data[k * rank + j] = static_cast<double>((k + 2 * j) % 7 + 1) / 8.0;
  for (int64_t l = 0; l < b.dims[2]; ++l)
    for (int64_t j = 0; j < rank; ++j)
      d.data[l * rank + j] = static_cast<double>((3 * l + j) % 5 + 1) / 8.0;

  double best = std::numeric_limits<double>::infinity();
  for (int64_t r = 0; r <= reps; ++r) { // call 0 is the warm-up
    auto start = std::chrono::steady_clock::now();
    mttkrp(b, c, d, rank, a);
    double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (r > 0)
      best = std::min(best, t);
  }
  double checksum = 0;
  for (int64_t i = 0; i < b.dims[0]; ++i)
    for (int64_t j = 0; j < rank; ++j)
      checksum += a.data[i * rank + j] * static_cast<double>((i + j) % 3 + 1);

  llvm::json::Object out{
      {"tensor", path},
      {"dims", llvm::json::Array{b.dims[0], b.dims[1], b.dims[2]}},
      {"nnz", static_cast<int64_t>(b.values.size())},
      {"slices", static_cast<int64_t>(b.sliceI.size())},
      {"fibers", static_cast<int64_t>(b.fiberK.size())},
      {"rank", rank},
      {"threads", omp_get_max_threads()},
      {"factor_rows", factorRows > 0 ? llvm::json::Value(factorRows)
                                     : llvm::json::Value(nullptr)},
      {"seconds", llvm::json::Object{{"hand", best}}},
      {"checksum", llvm::json::Object{{"hand", checksum}}}};
  llvm::outs() << llvm::json::Value(std::move(out)) << "\n";
  return 0;
}
