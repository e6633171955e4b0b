//===- TensorBench.cpp - The JIT bench of a kernel on a 3-D tensor --------===//

#include "sptune/Target/TensorBench.h"

#include "sptune/Support/Error.h"
#include "sptune/Target/KernelFunction.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace sptune;

/// B stored as the bench assembles it: ordered COO, its coordinates one
/// array of structures.
static const char *kAssembledCoo =
    "#sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : "
    "compressed(nonunique), d1 : singleton(nonunique), d2 : singleton) }>";

KernelDescriptor
sptune::tensorBenchDescriptor(const KernelSpec &spec,
                              const std::array<int64_t, 3> &dims) {
  bool batched = spec.kernel == KernelType::BatchedSpMM;
  std::string et = spec.elementBits == 64 ? "f64" : "f32";
  if (spec.descriptor &&
      spec.descriptor->shapeName() == (batched ? "batched-spmm" : "mttkrp") &&
      std::all_of(
          spec.descriptor->operands.begin(), spec.descriptor->operands.end(),
          [&](const KernelOperand &o) { return o.elementType == et; })) {
    KernelDescriptor d = *spec.descriptor;
    d.scaled = false;
    // The sparse operand's loops take the tensor's sizes, the output's
    // others (the rank, N) spec.free.
    const KernelOperand *sparse = nullptr;
    for (const KernelOperand &o : d.operands)
      if (o.sparse() && !o.output() && o.dims.size() == 3)
        sparse = &o;
    for (unsigned n = 0; sparse && n < 3; ++n)
      d.loops[sparse->dims[n]].size = dims[n];
    for (unsigned loop : d.operands.back().dims)
      if (!sparse || llvm::find(sparse->dims, loop) == sparse->dims.end())
        d.loops[loop].size = spec.free;
    return d;
  }
  using Kind = KernelOperand::Kind;
  KernelDescriptor d;
  auto operand = [&](Kind kind, std::vector<unsigned> loops,
                     std::vector<std::string> levels = {}) {
    KernelOperand o;
    o.kind = kind;
    o.elementType = et;
    o.dims = std::move(loops);
    o.levels = std::move(levels);
    d.operands.push_back(std::move(o));
  };
  if (batched) {
    // C(b, i, j) = sum over k of A(b, i, k) B(b, k, j), A in dense batches
    // of CSR rows (the batched kernel's storage, BatchedSpmmForm.h).
    d.loops = {{"b", false, dims[0]},
               {"i", false, dims[1]},
               {"j", false, spec.free},
               {"k", true, dims[2]}};
    operand(Kind::Sparse, {0, 1, 3}, {"dense", "dense", "compressed"});
    operand(Kind::Dense, {0, 3, 2});
    operand(Kind::Output, {0, 1, 2});
  } else {
    d.loops = {{"i", false, dims[0]},
               {"j", false, spec.free},
               {"k", true, dims[1]},
               {"l", true, dims[2]}};
    operand(Kind::Sparse, {0, 2, 3},
            {"compressed", "compressed", "compressed"});
    operand(Kind::Dense, {2, 1});
    operand(Kind::Dense, {3, 1});
    operand(Kind::Output, {0, 1});
  }
  d.body = KernelDescriptor::Body::MultiplyAccumulate;
  return d;
}

/// B, the descriptor's rank-3 sparse operand, or null.
static const KernelOperand *sparseTensorOf(const KernelDescriptor &d) {
  for (const KernelOperand &o : d.operands)
    if (o.sparse() && !o.output() && o.dims.size() == 3 &&
        o.levels.size() == 3)
      return &o;
  return nullptr;
}

std::string sptune::tensorBenchEncoding(const KernelDescriptor &d) {
  const KernelOperand *b = sparseTensorOf(d);
  if (!b)
    return "";
  std::string text = "#sparse_tensor.encoding<{ map = (d0, d1, d2) -> (";
  for (unsigned n = 0; n < 3; ++n)
    text += (n ? ", d" : "d") + std::to_string(n) + " : " + b->levels[n];
  text += ")";
  if (b->posWidth)
    text += ", posWidth = " + std::to_string(b->posWidth);
  if (b->crdWidth)
    text += ", crdWidth = " + std::to_string(b->crdWidth);
  return text + " }>";
}

llvm::Expected<std::string>
sptune::buildTensorBenchModule(const KernelDescriptor &d) {
  const KernelOperand *b = sparseTensorOf(d);
  std::string shapeName = d.shapeName();
  bool known = (shapeName == "mttkrp" && d.operands.size() == 4) ||
               (shapeName == "batched-spmm" && d.operands.size() == 3);
  if (!known || !b)
    return makeError("a tensor bench measures MTTKRPs and batched SpMMs; "
                     "this kernel is " +
                     (shapeName.empty() ? std::string("of no known shape")
                                        : "a " + shapeName));
  KernelFunctionOptions options;
  options.freshFilledOutput = true;
  std::string kernel;
  if (llvm::Error e = printKernelFunction(d, options).moveInto(kernel))
    return std::move(e);
  const std::string &et = b->elementType;
  auto size = [&](unsigned loop) { return std::to_string(d.loops[loop].size); };
  std::string shape =
      size(b->dims[0]) + "x" + size(b->dims[1]) + "x" + size(b->dims[2]);
  std::string encoding = tensorBenchEncoding(d);
  bool converted = encoding != kAssembledCoo;
  // The dense operands in operand order (C and D, in whichever order the op
  // has them), and A.
  std::vector<unsigned> dense;
  for (unsigned n = 0; n + 1 < d.operands.size(); ++n)
    if (!d.operands[n].sparse())
      dense.push_back(n);
  auto tensorType = [&](unsigned n) {
    return kernelOperandType(d, n, options);
  };
  auto memrefType = [&](unsigned n) {
    std::string t = tensorType(n);
    return "memref<" + t.substr(t.find('<') + 1);
  };
  unsigned out = static_cast<unsigned>(d.operands.size() - 1);
  std::string resultType = tensorType(out);

  auto prologue = [&](const char *name, const std::string &last) {
    std::string text = "  func.func @" + std::string(name) +
                       "(%pos: memref<?xindex>, %crd: memref<?x3xindex>, "
                       "%vals: memref<?x" +
                       et + ">";
    for (unsigned n : dense)
      text += ", %buf" + std::to_string(n) + ": " + memrefType(n);
    text += ", " + last + ") attributes {llvm.emit_c_interface} {\n";
    text += "    %c0 = arith.constant 0 : index\n"
            "    %c1 = arith.constant 1 : index\n"
            "    %tp = bufferization.to_tensor %pos restrict : "
            "memref<?xindex> to tensor<?xindex>\n"
            "    %tc = bufferization.to_tensor %crd restrict : "
            "memref<?x3xindex> to tensor<?x3xindex>\n"
            "    %tv = bufferization.to_tensor %vals restrict : memref<?x" +
            et + "> to tensor<?x" + et +
            ">\n"
            "    %coo = sparse_tensor.assemble (%tp, %tc), %tv : "
            "(tensor<?xindex>, tensor<?x3xindex>), tensor<?x" +
            et + "> to !COO\n";
    text += converted ? "    %s = sparse_tensor.convert %coo : !COO to !S\n"
                      : "    %s = tensor.cast %coo : !COO to !S\n";
    for (unsigned n : dense)
      text += "    %d" + std::to_string(n) + " = bufferization.to_tensor %buf" +
              std::to_string(n) + " restrict : " + memrefType(n) + " to " +
              tensorType(n) + "\n";
    return text;
  };
  std::string args, types;
  for (unsigned n = 0; n < out; ++n) {
    args += (n ? ", " : "") +
            (d.operands[n].sparse() ? std::string("%s") : "%d" + std::to_string(n));
    types += (n ? ", " : "") + tensorType(n);
  }
  std::string call = "func.call @kernel(" + args + ") : (" + types + ") -> " +
                     resultType + "\n";
  std::string freeB =
      converted ? "    bufferization.dealloc_tensor %s : !S\n" : "";

  std::string text = "!COO = tensor<" + shape + "x" + et + ", " +
                     kAssembledCoo + ">\n!S = tensor<" + shape + "x" + et +
                     ", " + encoding +
                     ">\nmodule {\n  func.func private @rtclock() -> f64\n";
  text += kernel;
  text += prologue("sptune_time", "%times: memref<?xf64>");
  text += "    %n = memref.dim %times, %c0 : memref<?xf64>\n"
          "    scf.for %i = %c0 to %n step %c1 {\n"
          "      %t0 = func.call @rtclock() : () -> f64\n"
          "      %a = " +
          call +
          "      %t1 = func.call @rtclock() : () -> f64\n"
          "      %dt = arith.subf %t1, %t0 : f64\n"
          "      memref.store %dt, %times[%i] : memref<?xf64>\n"
          "      bufferization.dealloc_tensor %a : " +
          resultType + "\n    }\n" + freeB + "    return\n  }\n";
  text += prologue("sptune_check", "%out: " + memrefType(out));
  text += "    %a = " + call +
          "    bufferization.materialize_in_destination %a in restrict "
          "writable %out : (" +
          resultType + ", " + memrefType(out) +
          ") -> ()\n    bufferization.dealloc_tensor %a : " + resultType +
          "\n" + freeB + "    return\n  }\n";
  return text + "}\n";
}

template <typename T>
void sptune::prepareTensorBenchInputs(const CooTensor &b, KernelType kernel,
                                      int64_t free, TensorBenchInputs<T> &in) {
  int bits = sizeof(T) == 8 ? 64 : 32;
  bool batched = kernel == KernelType::BatchedSpMM;
  int64_t nnz = b.nnz();
  in.pos = {0, nnz};
  in.crd.resize(static_cast<size_t>(3 * nnz));
  in.vals.resize(static_cast<size_t>(nnz));
  for (int64_t p = 0; p < nnz; ++p) {
    for (unsigned m = 0; m < 3; ++m)
      in.crd[static_cast<size_t>(3 * p + m)] = b.coords[m][p];
    in.vals[p] = static_cast<T>(b.values[p]);
  }
  auto dense = [&](int64_t rows, uint64_t seed, AlignedVector<T> &out) {
    std::vector<float> v = denseInput(rows, free, seed);
    out.assign(v.begin(), v.end());
  };
  // Seeds as BenchInputs gives the dense inputs of a kernel of two.
  in.dense.clear();
  in.dense.resize(batched ? 1 : 2);
  if (batched) {
    dense(b.dims[0] * b.dims[2], 3, in.dense[0]); // B(b, k, :) at b K + k
  } else {
    dense(b.dims[1], 3, in.dense[0]);
    dense(b.dims[2], 4, in.dense[1]);
  }
  // The output's rows: A(i, :) of an MTTKRP, C(b, i, :) of a batched SpMM
  // (at b I + i).
  int64_t rows = batched ? b.dims[0] * b.dims[1] : b.dims[0];
  in.out.assign(static_cast<size_t>(rows * free), T(0));
  ReferenceResult &r = in.reference;
  r.values.assign(static_cast<size_t>(rows * free), 0.0);
  r.bounds.assign(r.values.size(), 0.0);
  std::vector<double> terms(static_cast<size_t>(rows), 1.0);
  for (int64_t p = 0; p < nnz; ++p) {
    int64_t i = b.coords[0][p], k = b.coords[1][p], l = b.coords[2][p];
    double v = valueAt(b.values[p], bits);
    int64_t row = batched ? i * b.dims[1] + k : i;
    terms[row] += 1;
    for (int64_t j = 0; j < free; ++j) {
      double t = batched ? v * static_cast<double>(
                                   in.dense[0][(i * b.dims[2] + l) * free + j])
                         : v * static_cast<double>(in.dense[0][k * free + j]) *
                               static_cast<double>(in.dense[1][l * free + j]);
      r.values[row * free + j] += t;
      r.bounds[row * free + j] += std::fabs(t);
    }
  }
  // As referenceSpMM: any summation order of a row's terms.
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t j = 0; j < free; ++j)
      r.bounds[row * free + j] *= terms[row];
}

template void
sptune::prepareTensorBenchInputs<float>(const CooTensor &, KernelType, int64_t,
                                        TensorBenchInputs<float> &);
template void
sptune::prepareTensorBenchInputs<double>(const CooTensor &, KernelType, int64_t,
                                         TensorBenchInputs<double> &);
