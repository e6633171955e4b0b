//===- Featurizer.cpp - Features of a sparsity pattern --------------------===//
//
// Part of sptune. One pass over the nonzeros fills the finest density image
// (128 x 128 counts) and the column degrees; the coarser images are exact 2x2
// poolings of the finest one, since floor(floor(r * 128 / R) / 2) equals
// floor(r * 64 / R).
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/MatrixFeatures.h"

#include "sptune/Matrix/TensorStats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace sptune;

constexpr std::array<int, 3> MatrixFeatures::kImageSizes;

const std::vector<std::string> &sptune::scalarFeatureNames() {
  static const std::vector<std::string> names = {
      "log_rows",          "log_cols",       "log_nnz",
      "log10_density",     "log_row_mean",   "log_row_std",
      "log_row_min",       "log_row_max",    "log_row_cv",
      "log_row_max_mean",  "empty_row_frac", "log_col_mean",
      "log_col_std",       "log_col_max",    "log_col_cv",
      "empty_col_frac",    "log_bandwidth",  "rel_bandwidth",
      "rel_diag_distance", "block_fill_2",   "block_fill_4",
      "block_fill_8",      "block_fill_16",  "log_aspect"};
  return names;
}

int sptune::degreeBin(int64_t length) {
  if (length <= 0)
    return 0;
  int bin = 64 - __builtin_clzll(static_cast<unsigned long long>(length));
  return std::min(bin, MatrixFeatures::kHistBins - 1);
}

std::vector<float> MatrixFeatures::vector() const {
  std::vector<float> v;
  v.reserve(kVectorSize);
  v.insert(v.end(), rowHist.begin(), rowHist.end());
  v.insert(v.end(), colHist.begin(), colHist.end());
  v.insert(v.end(), scalars.begin(), scalars.end());
  return v;
}

bool MatrixFeatures::isWellFormed() const {
  for (size_t s = 0; s < kImageSizes.size(); ++s)
    if (images[s].size() != static_cast<size_t>(kImageSizes[s]) *
                                static_cast<size_t>(kImageSizes[s]))
      return false;
  return rowHist.size() == kHistBins && colHist.size() == kHistBins &&
         scalars.size() == kNumScalars;
}

/// log(1 + x) for non-negative statistics.
static float logp(double x) {
  return static_cast<float>(std::log1p(std::max(0.0, x)));
}

static float ratio(double num, double den) {
  return den > 0 ? static_cast<float>(num / den) : 0.0f;
}

static std::vector<float> scalarFeatures(const MatrixStats &st) {
  double maxDim = static_cast<double>(std::max(st.rows, st.cols));
  std::vector<float> s = {
      logp(static_cast<double>(st.rows)),
      logp(static_cast<double>(st.cols)),
      logp(static_cast<double>(st.nnz)),
      static_cast<float>(std::log10(std::max(st.density, 1e-12))),
      logp(st.rowMean),
      logp(st.rowStd),
      logp(static_cast<double>(st.rowMin)),
      logp(static_cast<double>(st.rowMax)),
      logp(st.rowMean > 0 ? st.rowStd / st.rowMean : 0.0),
      logp(st.rowMean > 0 ? static_cast<double>(st.rowMax) / st.rowMean : 0.0),
      ratio(static_cast<double>(st.emptyRows), static_cast<double>(st.rows)),
      logp(st.colMean),
      logp(st.colStd),
      logp(static_cast<double>(st.colMax)),
      logp(st.colMean > 0 ? st.colStd / st.colMean : 0.0),
      ratio(static_cast<double>(st.emptyCols), static_cast<double>(st.cols)),
      logp(static_cast<double>(st.bandwidth)),
      ratio(static_cast<double>(st.bandwidth), maxDim),
      ratio(st.meanDiagDistance, maxDim),
      static_cast<float>(st.blockFill[0]),
      static_cast<float>(st.blockFill[1]),
      static_cast<float>(st.blockFill[2]),
      static_cast<float>(st.blockFill[3]),
      st.rows > 0 && st.cols > 0
          ? static_cast<float>(std::log(static_cast<double>(st.rows) /
                                        static_cast<double>(st.cols)))
          : 0.0f};
  for (float &x : s)
    if (!std::isfinite(x))
      x = 0.0f;
  return s;
}

/// log(1 + count), scaled so that the largest cell is 1.
static std::vector<float> normalizedImage(const std::vector<uint32_t> &counts) {
  std::vector<float> img(counts.size());
  uint32_t top = 0;
  for (uint32_t c : counts)
    top = std::max(top, c);
  if (top == 0)
    return img;
  float scale = 1.0f / std::log1p(static_cast<float>(top));
  for (size_t n = 0; n < counts.size(); ++n)
    img[n] = counts[n] ? std::log1p(static_cast<float>(counts[n])) * scale : 0;
  return img;
}

/// Sums 2x2 cells of a `side` x `side` grid.
static std::vector<uint32_t> pool2(const std::vector<uint32_t> &fine,
                                   int side) {
  int half = side / 2;
  std::vector<uint32_t> coarse(static_cast<size_t>(half) * half, 0);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x)
      coarse[(y / 2) * half + x / 2] += fine[static_cast<size_t>(y) * side + x];
  return coarse;
}

MatrixFeatures sptune::featurize(const CsrMatrix &m) {
  return featurize(m, computeStats(m));
}

MatrixFeatures sptune::featurize(const CsrMatrix &m, const MatrixStats &stats) {
  constexpr int kFine = MatrixFeatures::kImageSizes.back();
  static_assert(MatrixFeatures::kImageSizes[1] * 2 == kFine &&
                    MatrixFeatures::kImageSizes[0] * 4 == kFine,
                "coarse images are poolings of the finest one");
  MatrixFeatures f;
  f.stats = stats;
  f.scalars = scalarFeatures(stats);
  f.rowHist.assign(MatrixFeatures::kHistBins, 0.0f);
  f.colHist.assign(MatrixFeatures::kHistBins, 0.0f);

  std::vector<uint32_t> counts(static_cast<size_t>(kFine) * kFine, 0);
  // A structurally broken matrix (wrong row pointer count) is featurized as
  // an empty one of its shape rather than read out of bounds.
  bool valid = m.rows >= 0 && m.cols >= 0 &&
               m.rowPtr.size() == static_cast<size_t>(m.rows) + 1 &&
               m.rowPtr.back() <= static_cast<int64_t>(m.colIdx.size());
  int64_t rows = valid ? m.rows : 0;
  size_t cols = valid ? static_cast<size_t>(m.cols) : 0;

  // Column -> image column, so the inner loop does no division.
  std::vector<uint8_t> colCell(cols);
  for (size_t c = 0; c < cols; ++c)
    colCell[c] =
        static_cast<uint8_t>((static_cast<uint64_t>(c) * kFine) / cols);
  std::vector<uint32_t> colCount(cols, 0);
  std::array<int64_t, MatrixFeatures::kHistBins> rowBins{};

  for (int64_t r = 0; r < rows; ++r) {
    uint32_t *line =
        &counts[((static_cast<uint64_t>(r) * kFine) / rows) * kFine];
    int64_t begin = m.rowPtr[r], end = m.rowPtr[r + 1];
    for (int64_t p = begin; p < end; ++p) {
      auto c = static_cast<uint32_t>(m.colIdx[p]);
      if (c >= cols)
        continue;
      ++line[colCell[c]];
      ++colCount[c];
    }
    ++rowBins[degreeBin(end - begin)];
  }
  std::array<int64_t, MatrixFeatures::kHistBins> colBins{};
  for (uint32_t n : colCount)
    ++colBins[degreeBin(n)];
  for (int b = 0; b < MatrixFeatures::kHistBins; ++b) {
    f.rowHist[b] = rows ? static_cast<float>(rowBins[b]) / rows : 0.0f;
    f.colHist[b] = cols ? static_cast<float>(colBins[b]) / cols : 0.0f;
  }

  std::vector<uint32_t> mid = pool2(counts, kFine);
  std::vector<uint32_t> coarse = pool2(mid, kFine / 2);
  f.images[0] = normalizedImage(coarse);
  f.images[1] = normalizedImage(mid);
  f.images[2] = normalizedImage(counts);
  return f;
}

/// Where a tensor's features put its three scalars: in place of the fiber
/// matrix's diagonal ones (log_bandwidth, rel_bandwidth, rel_diag_distance:
/// bandwidth and distance from the diagonal mean nothing for a slice x
/// fiber pattern).
static const int kTensorScalarsAt = [] {
  const std::vector<std::string> &names = scalarFeatureNames();
  auto at = std::find(names.begin(), names.end(), "log_bandwidth");
  if (at + 2 >= names.end() || at[1] != "rel_bandwidth" ||
      at[2] != "rel_diag_distance")
    std::abort(); // the scalars were reordered: featurizeTensor must follow
  return static_cast<int>(at - names.begin());
}();

const std::vector<std::string> &sptune::tensorScalarFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = scalarFeatureNames();
    n[kTensorScalarsAt] = "log_tensor_nnz";
    n[kTensorScalarsAt + 1] = "log_tensor_dim2";
    n[kTensorScalarsAt + 2] = "log_typical_fiber_length";
    return n;
  }();
  return names;
}

MatrixFeatures sptune::featurizeTensor(const CooTensor &t) {
  CsrMatrix fibers = fiberMatrix(t);
  MatrixFeatures f = featurize(fibers);
  // Entries per fiber where a matrix has column degrees: the fiber matrix
  // holds each fiber's entry count as its value.
  std::array<int64_t, MatrixFeatures::kHistBins> bins{};
  for (double entries : fibers.values)
    ++bins[degreeBin(static_cast<int64_t>(entries))];
  const double count = static_cast<double>(fibers.values.size());
  for (int b = 0; b < MatrixFeatures::kHistBins; ++b)
    f.colHist[b] = count > 0 ? static_cast<float>(bins[b] / count) : 0.0f;
  TensorStats stats = computeTensorStats(t);
  f.scalars[kTensorScalarsAt] = logp(static_cast<double>(stats.nnz));
  f.scalars[kTensorScalarsAt + 1] = logp(static_cast<double>(stats.dims[2]));
  f.scalars[kTensorScalarsAt + 2] = logp(stats.typicalFiberLength);
  // What the heuristic reads of the tensor (tensorHeuristicStats): its
  // stored entries as nnz; the features above are computed already.
  f.stats.nnz = stats.nnz;
  return f;
}

MatrixFeatures sptune::featurizeOperand(const MeasuredOperand &operand) {
  if (operand.tensor)
    return featurizeTensor(*operand.tensor);
  return featurize(operand.matrix);
}
