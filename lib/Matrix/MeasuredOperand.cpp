//===- MeasuredOperand.cpp - The sparse operand a measurement names -------===//

#include "sptune/Matrix/MeasuredOperand.h"

#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Matrix/TensorSource.h"

#include <cstring>

using namespace sptune;

llvm::Error sptune::loadMeasuredOperand(const std::string &source,
                                        MeasuredOperand &out) {
  out = MeasuredOperand();
  if (isTensorSource(source)) {
    CooTensor t;
    if (llvm::Error e = loadTensor(source, t, out.info))
      return e;
    out.rows = t.dims[0];
    out.cols = t.dims[1];
    out.nnz = t.nnz();
    out.contentHash = tensorContentHash(t);
    out.matrix = fiberMatrix(t);
    out.tensor = std::move(t);
    return llvm::Error::success();
  }
  CooMatrix coo;
  if (llvm::Error e = loadMatrix(source, coo, out.info))
    return e;
  coo.canonicalize();
  out.rows = coo.rows;
  out.cols = coo.cols;
  out.nnz = coo.nnz();
  out.matrix = CsrMatrix::fromCoo(std::move(coo));
  out.contentHash = contentHash(out.matrix);
  return llvm::Error::success();
}

uint64_t sptune::tensorContentHash(const CooTensor &t) {
  // Seeded apart from contentHash's basis: a tensor never shares a key with
  // a matrix of the same numbers.
  uint64_t h = 0x84222325cbf29ce4ull;
  auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  for (int64_t d : t.dims)
    mix(static_cast<uint64_t>(d));
  for (const std::vector<int32_t> &mode : t.coords)
    for (int32_t c : mode)
      mix(static_cast<uint64_t>(static_cast<uint32_t>(c)));
  for (double v : t.values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    mix(bits);
  }
  return h;
}

MatrixStats sptune::tensorHeuristicStats(const CooTensor &t) {
  MatrixStats stats = computeStats(fiberMatrix(t));
  stats.nnz = t.nnz();
  return stats;
}

MatrixStats sptune::heuristicStats(const MeasuredOperand &operand) {
  // A tensor's `matrix` is its fiber matrix already.
  MatrixStats stats = computeStats(operand.matrix);
  if (operand.tensor)
    stats.nnz = operand.tensor->nnz();
  return stats;
}

CsrMatrix sptune::fiberMatrix(const CooTensor &t) {
  CsrMatrix m;
  m.rows = t.dims[0];
  m.cols = t.dims[1];
  m.rowPtr.assign(static_cast<size_t>(m.rows) + 1, 0);
  const std::vector<int32_t> &I = t.coords[0], &J = t.coords[1];
  for (int64_t e = 0; e < t.nnz(); ++e) {
    if (e > 0 && I[e] == I[e - 1] && J[e] == J[e - 1]) {
      m.values.back() += 1.0;
      continue;
    }
    ++m.rowPtr[static_cast<size_t>(I[e]) + 1];
    m.colIdx.push_back(J[e]);
    m.values.push_back(1.0);
  }
  for (int64_t r = 0; r < m.rows; ++r)
    m.rowPtr[r + 1] += m.rowPtr[r];
  return m;
}
