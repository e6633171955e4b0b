//===- BenchInputs.cpp - A bench module's inputs and reference ------------===//

#include "sptune/Target/BenchInputs.h"

#include "sptune/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace sptune;

namespace {
/// The loops of a descriptor around one sparse entry: the two loops the
/// sparse operand's dimensions are (fixed by the entry), and the others,
/// iterated over in full, the last one innermost.
struct LoopNest {
  unsigned rowLoop = 0, colLoop = 0;
  std::vector<unsigned> others;
  std::vector<int64_t> sizes;

  /// Row-major strides of an operand indexed by `dims`, per loop (0 for the
  /// loops it is not indexed by).
  std::vector<int64_t> strides(const std::vector<unsigned> &dims) const {
    std::vector<int64_t> s(sizes.size(), 0);
    int64_t stride = 1;
    for (size_t n = dims.size(); n-- > 0;) {
      s[dims[n]] += stride;
      stride *= sizes[dims[n]];
    }
    return s;
  }
};

const KernelOperand *sparseOperand(const KernelDescriptor &d) {
  for (const KernelOperand &o : d.operands)
    if (o.sparse())
      return &o;
  return nullptr;
}

LoopNest nestOf(const KernelDescriptor &d, const KernelOperand &sparse) {
  LoopNest nest;
  nest.rowLoop = sparse.dims[0];
  nest.colLoop = sparse.dims[1];
  for (const KernelLoop &l : d.loops)
    nest.sizes.push_back(l.size);
  for (unsigned l = 0; l < d.loops.size(); ++l)
    if (l != nest.rowLoop && l != nest.colLoop)
      nest.others.push_back(l);
  return nest;
}
} // namespace

ReferenceResult
sptune::referenceOf(const KernelDescriptor &d, const CsrMatrix &m,
                    const std::vector<std::vector<float>> &dense,
                    int valueBits) {
  // Two sparse inputs: the product of the matrix with itself (A A, how an
  // SpGEMM is measured; prepareBenchInputs checks it is square).
  if (d.numSparseInputs() == 2)
    return referenceSpGEMMChecksum(m, m, valueBits);
  const KernelOperand &sparse = *sparseOperand(d);
  LoopNest nest = nestOf(d, sparse);
  size_t numInputs = d.operands.size() - 1;
  bool hasSparseInput = d.numSparseInputs() > 0;
  // The dense inputs (their data and strides) and the output's strides.
  std::vector<const float *> data;
  std::vector<std::vector<int64_t>> strides;
  for (size_t n = 0, k = 0; n < numInputs; ++n) {
    if (d.operands[n].sparse())
      continue;
    data.push_back(dense[k++].data());
    strides.push_back(nest.strides(d.operands[n].dims));
  }
  const KernelOperand &out = d.operands.back();
  bool sparseOut = out.sparse();
  std::vector<int64_t> outStrides = nest.strides(out.dims);
  int64_t outSize = 1;
  for (unsigned l : out.dims)
    outSize *= nest.sizes[l];

  ReferenceResult r;
  std::vector<double> terms;
  if (!sparseOut) {
    r.values.assign(static_cast<size_t>(outSize), 0.0);
    r.bounds.assign(static_cast<size_t>(outSize), 0.0);
    terms.assign(static_cast<size_t>(outSize), 0.0);
  }
  double sum = 0, bound = 0;
  // The loops besides the entry's, as an odometer; the innermost one runs
  // as a strided loop.
  size_t numOthers = nest.others.size();
  int64_t inner = numOthers ? nest.sizes[nest.others.back()] : 1;
  std::vector<int64_t> innerStride(data.size(), 0);
  int64_t outInnerStride = 0;
  if (numOthers) {
    for (size_t k = 0; k < data.size(); ++k)
      innerStride[k] = strides[k][nest.others.back()];
    outInnerStride = outStrides[nest.others.back()];
  }
  // The loops besides the innermost, as an odometer.
  size_t numOuter = numOthers ? numOthers - 1 : 0;
  bool empty = std::any_of(nest.others.begin(), nest.others.end(),
                           [&](unsigned l) { return nest.sizes[l] == 0; });
  std::vector<int64_t> counter(numOuter, 0);
  auto advance = [&] {
    for (size_t o = numOuter; o-- > 0;) {
      if (++counter[o] < nest.sizes[nest.others[o]])
        return true;
      counter[o] = 0;
    }
    return false;
  };
  std::vector<int64_t> base(data.size());
  for (int64_t i = 0; i < m.rows && !empty; ++i)
    for (int64_t p = m.rowPtr[i]; p < m.rowPtr[i + 1]; ++p) {
      int64_t j = m.colIdx[p];
      double v = hasSparseInput ? valueAt(m.values[p], valueBits) : 1.0;
      double dot = 0, absDot = 0, count = 0;
      do {
        // Offsets of the operands at (i, j, counter).
        int64_t outBase =
            i * outStrides[nest.rowLoop] + j * outStrides[nest.colLoop];
        for (size_t k = 0; k < data.size(); ++k)
          base[k] = i * strides[k][nest.rowLoop] + j * strides[k][nest.colLoop];
        for (size_t o = 0; o < numOuter; ++o) {
          unsigned l = nest.others[o];
          for (size_t k = 0; k < data.size(); ++k)
            base[k] += counter[o] * strides[k][l];
          outBase += counter[o] * outStrides[l];
        }
        for (int64_t t = 0; t < inner; ++t) {
          double product = 1.0;
          for (size_t k = 0; k < data.size(); ++k)
            product *= data[k][base[k] + t * innerStride[k]];
          if (sparseOut) {
            dot += product;
            absDot += std::fabs(product);
            count += 1;
          } else {
            size_t o = static_cast<size_t>(outBase + t * outInnerStride);
            r.values[o] += v * product;
            r.bounds[o] += std::fabs(v * product);
            terms[o] += 1;
          }
        }
      } while (advance());
      if (sparseOut) {
        double w = checksumWeight(i, j);
        sum += v * dot * w;
        bound += std::fabs(v) * absDot * w * (count + 2);
      }
    }
  if (sparseOut) {
    r.values = {sum};
    // The checksum itself is summed in double over nnz terms.
    r.bounds = {bound + 1e-12 * static_cast<double>(m.nnz())};
    return r;
  }
  // A float dot product of L terms errs by about L * 2^-24 of its absolute
  // sum; scale by the length to allow any summation order.
  for (size_t o = 0; o < r.bounds.size(); ++o)
    r.bounds[o] *= terms[o] + 1;
  return r;
}

template <typename T>
llvm::Error sptune::prepareBenchInputs(const KernelDescriptor &d,
                                       const std::set<unsigned> &transposed,
                                       const CsrMatrix &m, BenchInputs<T> &in) {
  const KernelOperand *sparse = sparseOperand(d);
  if (!sparse || sparse->dims.size() != 2 || d.operands.size() < 2)
    return makeError("bench inputs need a kernel on one rank-2 sparse matrix");
  if (d.numSparseInputs() == 2 && (m.rows != m.cols || d.operands.size() != 3 ||
                                   !d.operands.back().sparse()))
    return makeError("a product of two sparse inputs is measured as A A into "
                     "a sparse result, on a square matrix; this one is " +
                     std::to_string(m.rows) + " x " + std::to_string(m.cols));
  if (d.numSparseInputs() > 2)
    return makeError("bench inputs need a kernel of at most two sparse inputs");
  if (d.loops[sparse->dims[0]].size != m.rows ||
      d.loops[sparse->dims[1]].size != m.cols)
    return makeError("the matrix is " + std::to_string(m.rows) + " x " +
                     std::to_string(m.cols) + ", the kernel's sparse operand " +
                     std::to_string(d.loops[sparse->dims[0]].size) + " x " +
                     std::to_string(d.loops[sparse->dims[1]].size));
  // Every dense operand's size, checked before anything is allocated.
  auto sizeOf = [&](const KernelOperand &o) -> int64_t {
    double size = 1;
    for (unsigned l : o.dims)
      size *= static_cast<double>(d.loops[l].size);
    return size > static_cast<double>(std::numeric_limits<int64_t>::max() / 8)
               ? -1
               : static_cast<int64_t>(size);
  };
  for (const KernelOperand &o : d.operands)
    if (!o.sparse() && sizeOf(o) < 0)
      return makeError("a dense operand of this kernel is too large to hold");

  in.pos.assign(m.rowPtr.begin(), m.rowPtr.end());
  in.crd.assign(m.colIdx.begin(), m.colIdx.end());
  bool sampledInPlace = d.numSparseInputs() == 0;
  in.vals.resize(m.values.size());
  for (size_t p = 0; p < m.values.size(); ++p)
    in.vals[p] = sampledInPlace ? T(0) : static_cast<T>(m.values[p]);
  in.dense.clear();
  in.shapes.clear();

  size_t numInputs = d.operands.size() - 1;
  size_t numDense = 0;
  for (size_t n = 0; n < numInputs; ++n)
    numDense += d.operands[n].sparse() ? 0 : 1;
  std::vector<std::vector<float>> logical;
  for (size_t n = 0; n < numInputs; ++n) {
    const KernelOperand &o = d.operands[n];
    if (o.sparse())
      continue;
    std::vector<int64_t> shape;
    for (unsigned l : o.dims)
      shape.push_back(d.loops[l].size);
    int64_t last = shape.empty() ? 1 : shape.back();
    int64_t rows = last == 0 ? 0 : sizeOf(o) / last;
    logical.push_back(denseInput(rows, last, numDense + logical.size()));
    const std::vector<float> &values = logical.back();
    AlignedVector<T> passed(values.begin(), values.end());
    if (transposed.count(static_cast<unsigned>(n)) && shape.size() == 2) {
      // The same operand, stored as its transpose.
      for (int64_t r = 0; r < shape[0]; ++r)
        for (int64_t c = 0; c < shape[1]; ++c)
          passed[static_cast<size_t>(c * shape[0] + r)] =
              static_cast<T>(values[static_cast<size_t>(r * shape[1] + c)]);
      std::swap(shape[0], shape[1]);
    }
    in.dense.push_back(std::move(passed));
    in.shapes.push_back(std::move(shape));
  }
  const KernelOperand &out = d.operands.back();
  in.sparseOutput = out.sparse();
  if (!in.sparseOutput) {
    std::vector<int64_t> shape;
    for (unsigned l : out.dims)
      shape.push_back(d.loops[l].size);
    in.dense.emplace_back(static_cast<size_t>(sizeOf(out)), T(0));
    in.shapes.push_back(std::move(shape));
  }
  in.reference = referenceOf(d, m, logical, kValueBits<T>);
  return llvm::Error::success();
}

template <typename T>
llvm::Expected<BenchInputs<T> &> BenchInputCache::get(const CsrMatrix &m,
                                                      const KernelSpec &spec) {
  BenchInputs<T> *in;
  std::string *key;
  if constexpr (sizeof(T) == 4) {
    in = &f32;
    key = &f32Key;
  } else {
    in = &f64;
    key = &f64Key;
  }
  std::string wanted = std::to_string(contentHash(m)) + "|" +
                       std::to_string(static_cast<int>(spec.kernel)) + "|" +
                       std::to_string(spec.free) + "|" +
                       std::to_string(spec.elementBits) +
                       (spec.transposedB ? "|bt" : "") +
                       (spec.descriptor ? "|" + spec.descriptor->str() : "");
  if (*key != wanted) {
    key->clear();
    if (llvm::Error e =
            prepareBenchInputs(benchDescriptor(spec, m.rows, m.cols, sddmm),
                               benchTransposedInputs(spec, sddmm), m, *in))
      return std::move(e);
    *key = wanted;
  }
  return *in;
}

// The element types the measurers run.
template llvm::Error sptune::prepareBenchInputs(const KernelDescriptor &,
                                                const std::set<unsigned> &,
                                                const CsrMatrix &,
                                                BenchInputs<float> &);
template llvm::Error sptune::prepareBenchInputs(const KernelDescriptor &,
                                                const std::set<unsigned> &,
                                                const CsrMatrix &,
                                                BenchInputs<double> &);
template llvm::Expected<BenchInputs<float> &>
BenchInputCache::get(const CsrMatrix &, const KernelSpec &);
template llvm::Expected<BenchInputs<double> &>
BenchInputCache::get(const CsrMatrix &, const KernelSpec &);
