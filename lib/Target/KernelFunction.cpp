//===- KernelFunction.cpp - A kernel descriptor written as linalg ---------===//

#include "sptune/Target/KernelFunction.h"

#include "sptune/Support/Error.h"

#include <optional>
#include <vector>

using namespace sptune;

bool sptune::kernelTakesOutput(const KernelDescriptor &d,
                               const KernelFunctionOptions &options) {
  if (d.operands.empty() ||
      (options.freshFilledOutput && !d.operands.back().sparse()))
    return false;
  return !d.operands.back().sparse() ||
         d.body == KernelDescriptor::Body::SampledMultiplyAccumulate;
}

std::string sptune::kernelOperandType(const KernelDescriptor &d, unsigned n,
                                      const KernelFunctionOptions &options,
                                      bool transposed) {
  const KernelOperand &o = d.operands[n];
  if (o.sparse())
    return options.sparseType;
  std::vector<unsigned> dims = o.dims;
  if (transposed && dims.size() == 2)
    std::swap(dims[0], dims[1]);
  std::string type = "tensor<";
  for (unsigned loop : dims)
    type += std::to_string(d.loops[loop].size) + "x";
  return type + o.elementType + ">";
}

/// Why `d` cannot be printed; empty when it can.
static std::string whyNotPrintable(const KernelDescriptor &d,
                                   const KernelFunctionOptions &options) {
  if (d.operands.size() < 2)
    return "a kernel needs at least one input and an output";
  if (d.body == KernelDescriptor::Body::Other)
    return "the body is not one sptune can write";
  for (const KernelLoop &loop : d.loops)
    if (loop.size < 0)
      return "loop " + loop.name + " has a dynamic size";
  // Every sparse operand has one type: the same sizes (an SpGEMM A A of a
  // square matrix: A(i, k), A(k, j) and C(i, j) all n x n).
  std::optional<std::vector<int64_t>> sparseShape;
  for (size_t n = 0; n < d.operands.size(); ++n) {
    const KernelOperand &o = d.operands[n];
    std::vector<int64_t> shape;
    for (unsigned loop : o.dims) {
      if (loop >= d.loops.size())
        return "operand #" + std::to_string(n) + " indexes a loop it lacks";
      shape.push_back(d.loops[loop].size);
    }
    if (!o.sparse())
      continue;
    if (sparseShape && *sparseShape != shape)
      return "sparse operands of different shapes cannot share one type";
    sparseShape = std::move(shape);
  }
  if (d.body == KernelDescriptor::Body::SampledMultiplyAccumulate &&
      (!d.operands.back().sparse() || d.numSparseInputs() != 0))
    return "the sampled form updates a sparse output from dense inputs";
  for (unsigned n : options.transposedInputs)
    if (n + 1 >= d.operands.size() || d.operands[n].sparse() ||
        d.operands[n].dims.size() != 2)
      return "operand #" + std::to_string(n) +
             " is not a rank-2 dense input to transpose";
  return "";
}

/// `affine_map<(i, j, k) -> (i, k)>` of operand `o`.
static std::string indexingMap(const KernelDescriptor &d,
                               const KernelOperand &o) {
  std::string map = "affine_map<(";
  for (size_t l = 0; l < d.loops.size(); ++l)
    map += (l ? ", " : "") + d.loops[l].name;
  map += ") -> (";
  for (size_t n = 0; n < o.dims.size(); ++n)
    map += (n ? ", " : "") + d.loops[o.dims[n]].name;
  return map + ")>";
}

namespace {
/// Writes the generic's body one SSA value at a time.
class BodyWriter {
public:
  BodyWriter(std::string elementType, std::string prefix)
      : prefix(std::move(prefix)), type(std::move(elementType)),
        isFloat(!type.empty() && (type[0] == 'f' || type[0] == 'b')) {}

  std::string mul(const std::string &x, const std::string &y) {
    return emit(isFloat ? "arith.mulf" : "arith.muli", x, y);
  }
  std::string add(const std::string &x, const std::string &y) {
    return emit(isFloat ? "arith.addf" : "arith.addi", x, y);
  }
  std::string zero() {
    std::string v = "%zero";
    text += "      " + v + " = arith.constant " + (isFloat ? "0.0" : "0") +
            " : " + type + "\n";
    return v;
  }
  /// The product of `factors` in order: ((f0 * f1) * f2) ...
  std::string product(const std::vector<std::string> &factors) {
    std::string p = factors.front();
    for (size_t n = 1; n < factors.size(); ++n)
      p = mul(p, factors[n]);
    return p;
  }

  const std::string prefix;
  const std::string type;
  const bool isFloat;
  std::string text;

private:
  std::string emit(const char *op, const std::string &x, const std::string &y) {
    std::string v = "%" + prefix + std::to_string(next++);
    text +=
        "      " + v + " = " + op + " " + x + ", " + y + " : " + type + "\n";
    return v;
  }
  int next = 0;
};
} // namespace

llvm::Expected<std::string>
sptune::printKernelFunction(const KernelDescriptor &d,
                            const KernelFunctionOptions &options) {
  if (std::string why = whyNotPrintable(d, options); !why.empty())
    return makeError("cannot write the kernel as linalg: " + why);
  using Body = KernelDescriptor::Body;
  size_t numInputs = d.operands.size() - 1;
  const KernelOperand &out = d.operands.back();
  bool takesOutput = kernelTakesOutput(d, options);
  std::string resultType = kernelOperandType(d, numInputs, options);

  std::string text = "  func.func @" + options.name + "(";
  for (size_t n = 0; n < numInputs; ++n)
    text += (n ? ", " : "") + ("%in" + std::to_string(n)) + ": " +
            kernelOperandType(d, n, options,
                              options.transposedInputs.count(n) != 0);
  if (takesOutput)
    text += ", %out: " + resultType;
  text += ") -> " + resultType + " {\n";

  // The generic's operands: transposed inputs turned back first.
  std::vector<std::string> ins;
  for (unsigned n = 0; n < numInputs; ++n) {
    std::string value = "%in" + std::to_string(n);
    if (options.transposedInputs.count(n)) {
      std::string type = kernelOperandType(d, n, options);
      std::string empty = "%empty" + std::to_string(n);
      std::string turned = "%turned" + std::to_string(n);
      text += "    " + empty + " = tensor.empty() : " + type + "\n";
      text += "    " + turned + " = linalg.transpose ins(" + value + " : " +
              kernelOperandType(d, n, options, true) + ") outs(" + empty +
              " : " + type + ") permutation = [1, 0]\n";
      value = turned;
    }
    ins.push_back(value);
  }
  std::string init = "%out";
  if (!takesOutput) {
    init = "%fresh";
    bool filled = options.freshFilledOutput && !out.sparse();
    text += std::string("    ") + (filled ? "%empty" : "%fresh") +
            " = tensor.empty() : " + resultType + "\n";
    if (filled)
      text += "    %zero = arith.constant " +
              std::string(out.elementType[0] == 'i' ? "0" : "0.0") + " : " +
              out.elementType +
              "\n    %fresh = linalg.fill ins(%zero : " + out.elementType +
              ") outs(%empty : " + resultType + ") -> " + resultType + "\n";
  }
  // The sampled form reads only the dense inputs; the sparse output is the
  // generic's init.
  bool sampled = d.body == Body::SampledMultiplyAccumulate;

  text += "    %result = linalg.generic {\n        indexing_maps = [";
  for (size_t n = 0; n < d.operands.size(); ++n)
    text += (n ? ", " : "") + indexingMap(d, d.operands[n]);
  text += "],\n        iterator_types = [";
  for (size_t l = 0; l < d.loops.size(); ++l)
    text += (l ? ", \"" : "\"") +
            std::string(d.loops[l].reduction ? "reduction" : "parallel") + "\"";
  text += "]}\n        ins(";
  for (size_t n = 0; n < numInputs; ++n)
    text += (n ? ", " : "") + ins[n];
  text += " : ";
  for (size_t n = 0; n < numInputs; ++n)
    text += (n ? ", " : "") + kernelOperandType(d, n, options);
  text += ") outs(" + init + " : " + resultType + ") {\n    ^bb0(";
  for (size_t n = 0; n < numInputs; ++n)
    text += "%v" + std::to_string(n) + ": " + d.operands[n].elementType + ", ";
  text += "%vout: " + out.elementType + "):\n";

  BodyWriter body(out.elementType, "t");
  std::string result;
  if (sampled) {
    std::vector<std::string> factors;
    for (size_t n = 0; n < numInputs; ++n)
      factors.push_back("%v" + std::to_string(n));
    std::string zero = body.zero();
    BodyWriter present(out.elementType, "p");
    std::string p = present.product(factors);
    body.text += "      %sampled = sparse_tensor.unary %vout : " + body.type +
                 " to " + body.type + "\n        present = {\n" +
                 "          ^bb0(%present: " + body.type + "):\n" +
                 present.text + "            sparse_tensor.yield " + p + " : " +
                 body.type + "\n        }\n        absent = {}\n";
    body.text += "      %sum = sparse_tensor.reduce %vout, %sampled, " + zero +
                 " : " + body.type + " {\n        ^bb0(%x: " + body.type +
                 ", %y: " + body.type + "):\n";
    BodyWriter reduce(out.elementType, "r");
    std::string s = reduce.add("%x", "%y");
    body.text += reduce.text + "          sparse_tensor.yield " + s + " : " +
                 body.type + "\n      }\n";
    result = "%sum";
  } else {
    // Dense factors first, then the sparse ones: the sparsifier sees the
    // sparse value multiply one invariant product (S * (A B)), as in
    // upstream's SDDMM, rather than a chain it cannot hoist.
    std::vector<std::string> dense, sparse;
    for (size_t n = 0; n < numInputs; ++n)
      (d.operands[n].sparse() ? sparse : dense)
          .push_back("%v" + std::to_string(n));
    std::string p;
    if (!dense.empty())
      p = body.product(dense);
    for (const std::string &s : sparse)
      p = p.empty() ? s : body.mul(s, p);
    result = d.body == Body::ElementwiseProduct ? p : body.add("%vout", p);
  }
  text += body.text + "      linalg.yield " + result + " : " + out.elementType +
          "\n    } -> " + resultType + "\n";
  text += "    return %result : " + resultType + "\n  }\n";
  return text;
}
