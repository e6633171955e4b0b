//===- TensorStats.cpp - Structural statistics of a 3-D tensor ------------===//
//
// One pass over the canonical entries: a slice ends where i changes, a fiber
// where (i, j) does; counts are summed into running moments. Distinct j and k
// are counted with one bit per coordinate.
//
//===----------------------------------------------------------------------===//

#include "sptune/Matrix/TensorStats.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace sptune;

namespace {

/// Running moments of a count.
struct Moments {
  double sum = 0, sumSquares = 0;
  int64_t n = 0, max = 0;
  void add(int64_t v) {
    sum += double(v);
    sumSquares += double(v) * double(v);
    ++n;
    max = std::max(max, v);
  }
  CountSpread spread() const {
    CountSpread s;
    if (n == 0)
      return s;
    s.mean = sum / double(n);
    s.stddev =
        std::sqrt(std::max(0.0, sumSquares / double(n) - s.mean * s.mean));
    s.max = max;
    return s;
  }
};

int64_t countDistinct(const std::vector<int32_t> &coords, int64_t size) {
  std::vector<bool> seen(size_t(size), false);
  int64_t distinct = 0;
  for (int32_t c : coords)
    if (!seen[size_t(c)]) {
      seen[size_t(c)] = true;
      ++distinct;
    }
  return distinct;
}

llvm::json::Object spreadJson(const CountSpread &s) {
  return llvm::json::Object{
      {"mean", s.mean}, {"std", s.stddev}, {"max", s.max}};
}

} // namespace

TensorStats sptune::computeTensorStats(const CooTensor &t) {
  TensorStats s;
  s.dims = t.dims;
  s.nnz = t.nnz();
  const double cells =
      double(t.dims[0]) * double(t.dims[1]) * double(t.dims[2]);
  s.density = cells > 0 ? double(s.nnz) / cells : 0;
  Moments perSlice, fibersPerSlice, perFiber;
  const auto &I = t.coords[0], &J = t.coords[1];
  int64_t sliceEntries = 0, sliceFibers = 0, fiberEntries = 0;
  for (int64_t e = 0; e < s.nnz; ++e) {
    const bool newSlice = e == 0 || I[e] != I[e - 1];
    const bool newFiber = newSlice || J[e] != J[e - 1];
    if (e > 0 && newFiber)
      perFiber.add(fiberEntries), fiberEntries = 0;
    if (e > 0 && newSlice) {
      perSlice.add(sliceEntries);
      fibersPerSlice.add(sliceFibers);
      sliceEntries = sliceFibers = 0;
    }
    ++sliceEntries;
    ++fiberEntries;
    sliceFibers += newFiber;
  }
  if (s.nnz > 0) {
    perFiber.add(fiberEntries);
    perSlice.add(sliceEntries);
    fibersPerSlice.add(sliceFibers);
  }
  s.slices = perSlice.n;
  s.fibers = perFiber.n;
  s.entriesPerSlice = perSlice.spread();
  s.fibersPerSlice = fibersPerSlice.spread();
  s.entriesPerFiber = perFiber.spread();
  s.typicalFiberLength = s.nnz > 0 ? perFiber.sumSquares / double(s.nnz) : 0;
  s.distinctJ = countDistinct(t.coords[1], t.dims[1]);
  s.distinctK = countDistinct(t.coords[2], t.dims[2]);
  return s;
}

std::string TensorStats::toJson() const {
  llvm::json::Object o{{"dims", llvm::json::Array{dims[0], dims[1], dims[2]}},
                       {"nnz", nnz},
                       {"density", density},
                       {"slices", slices},
                       {"fibers", fibers},
                       {"entries_per_slice", spreadJson(entriesPerSlice)},
                       {"fibers_per_slice", spreadJson(fibersPerSlice)},
                       {"entries_per_fiber", spreadJson(entriesPerFiber)},
                       {"typical_fiber_length", typicalFiberLength},
                       {"distinct_j", distinctJ},
                       {"distinct_k", distinctK}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(o));
  return os.str();
}

std::string sptune::tensorStatsTableHeader() {
  return "                      dims          nnz    density   slices     "
         "fibers  nnz/slice max/slice  nnz/fiber max/fiber typ/fiber  id\n";
}

std::string sptune::tensorStatsTableRow(const TensorStats &s,
                                        const std::string &id) {
  char dims[64], row[256];
  std::snprintf(dims, sizeof(dims), "%lldx%lldx%lld", (long long)s.dims[0],
                (long long)s.dims[1], (long long)s.dims[2]);
  std::snprintf(row, sizeof(row),
                "%26s %12lld %10.3g %8lld %10lld %10.2f %9lld %10.2f %9lld "
                "%9.2f",
                dims, (long long)s.nnz, s.density, (long long)s.slices,
                (long long)s.fibers, s.entriesPerSlice.mean,
                (long long)s.entriesPerSlice.max, s.entriesPerFiber.mean,
                (long long)s.entriesPerFiber.max, s.typicalFiberLength);
  return std::string(row) + "  " + id + "\n";
}

std::string sptune::tensorStatsJsonLine(const TensorStats &s,
                                        const std::string &id,
                                        const std::string &source) {
  llvm::json::Object o{{"id", id}, {"source", source}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(o));
  os.flush();
  // Splice toJson's fields after id and source.
  out.pop_back();
  return out + "," + s.toJson().substr(1) + "\n";
}
