//===- BenchModule.cpp - The IR a JIT measurer compiles -------------------===//

#include "sptune/Target/BenchModule.h"

#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/KernelFunction.h"

#include <algorithm>

using namespace sptune;

const char *sptune::csrEncodingText() {
  return "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : "
         "compressed) }>";
}

/// The user's op `d` with the sizes of the measured problem: the loops of
/// its sparse operand rows and cols, every other loop `free`.
static KernelDescriptor sizedTo(KernelDescriptor d, int64_t rows, int64_t cols,
                                int64_t free) {
  const KernelOperand *sparse = nullptr;
  for (const KernelOperand &o : d.operands)
    if (o.sparse() && o.dims.size() == 2 && !sparse)
      sparse = &o;
  for (unsigned l = 0; l < d.loops.size(); ++l)
    d.loops[l].size = !sparse                ? free
                      : l == sparse->dims[0] ? rows
                      : l == sparse->dims[1] ? cols
                                             : free;
  return d;
}

/// Whether the user's op is measured as written in `sddmm`'s form: the
/// sparse-output form (the CPU's) takes every op but the in-place sampled
/// one, the in-place form (NVVM's) only that one; and every operand has the
/// floating-point type the measurer feeds (an integer op is measured in
/// the canonical float form, as before descriptors).
static bool measuredAsWritten(const KernelSpec &spec, SddmmForm sddmm) {
  const KernelDescriptor &d = *spec.descriptor;
  bool inPlace = d.body == KernelDescriptor::Body::SampledMultiplyAccumulate;
  std::string et = spec.elementBits == 64 ? "f64" : "f32";
  return inPlace == (sddmm == SddmmForm::InPlace) &&
         std::all_of(
             d.operands.begin(), d.operands.end(),
             [&](const KernelOperand &o) { return o.elementType == et; });
}

KernelDescriptor sptune::benchDescriptor(const KernelSpec &spec, int64_t rows,
                                         int64_t cols, SddmmForm sddmm) {
  // SpGEMM is measured as A A: its loop outside A, j, spans the columns.
  bool spgemm = spec.kernel == KernelType::SpGEMM;
  int64_t free = spgemm ? cols : spec.free;
  if (spec.descriptor && measuredAsWritten(spec, sddmm)) {
    KernelDescriptor d = sizedTo(*spec.descriptor, rows, cols, free);
    // Timed without its invariant factor: the bench checks the kernel's
    // values against the plain product's reference (one multiply more per
    // product does not change how schedules rank).
    d.scaled = false;
    return d;
  }
  std::string et = spec.elementBits == 64 ? "f64" : "f32";
  // A kernel type added at run time: its canonical form.
  if (std::optional<KernelDescriptor> added =
          sizedKernelPattern(spec.kernel, rows, cols, spec.free)) {
    for (KernelOperand &o : added->operands) {
      o.elementType = et;
      if (o.sparse())
        o.levels = {"dense", "compressed"};
    }
    return *added;
  }
  using Kind = KernelOperand::Kind;
  KernelDescriptor d;
  auto loop = [&](const char *name, bool reduction, int64_t size) {
    d.loops.push_back({name, reduction, size});
  };
  auto operand = [&](Kind kind, std::vector<unsigned> dims) {
    KernelOperand o;
    o.kind = kind;
    o.elementType = et;
    o.dims = std::move(dims);
    if (o.sparse())
      o.levels = {"dense", "compressed"};
    d.operands.push_back(std::move(o));
  };
  d.body = KernelDescriptor::Body::MultiplyAccumulate;
  switch (spec.kernel) {
  case KernelType::SpMM:
    loop("i", false, rows);
    loop("j", false, spec.free);
    loop("k", true, cols);
    operand(Kind::Sparse, {0, 2});
    operand(Kind::Dense, {2, 1});
    operand(Kind::Output, {0, 1});
    break;
  case KernelType::SpMV:
    loop("i", false, rows);
    loop("j", true, cols);
    operand(Kind::Sparse, {0, 1});
    operand(Kind::Dense, {1});
    operand(Kind::Output, {0});
    break;
  case KernelType::SpGEMM:
    // C(i,j) += A(i,k) * A(k,j) into a fresh C (the matrix twice: square).
    loop("i", false, rows);
    loop("j", false, free);
    loop("k", true, cols);
    operand(Kind::Sparse, {0, 2});
    operand(Kind::Sparse, {2, 1});
    operand(Kind::SparseOutput, {0, 1});
    break;
  case KernelType::SDDMM:
    loop("i", false, rows);
    loop("j", false, cols);
    loop("k", true, spec.free);
    if (sddmm == SddmmForm::SparseOutput)
      operand(Kind::Sparse, {0, 1});
    else
      d.body = KernelDescriptor::Body::SampledMultiplyAccumulate;
    operand(Kind::Dense, {0, 2});
    operand(Kind::Dense, {2, 1});
    operand(Kind::SparseOutput, {0, 1});
    break;
  default: // defined by a form: sizedKernelPattern above
    break;
  }
  return d;
}

std::set<unsigned> sptune::benchTransposedInputs(const KernelSpec &spec,
                                                 SddmmForm sddmm) {
  if (spec.kernel != KernelType::SDDMM || !spec.transposedB ||
      sddmm != SddmmForm::SparseOutput)
    return {};
  if (!spec.descriptor || !measuredAsWritten(spec, sddmm))
    return {2};
  // B in the user's op: the rank-2 dense input read as (reduction, column).
  const KernelDescriptor &d = *spec.descriptor;
  for (unsigned n = 0; n + 1 < d.operands.size(); ++n) {
    const KernelOperand &o = d.operands[n];
    if (!o.sparse() && o.dims.size() == 2 && d.loops[o.dims[0]].reduction &&
        !d.loops[o.dims[1]].reduction)
      return {n};
  }
  return {};
}

namespace {
/// The pieces of a bench module's drivers, derived from a descriptor.
struct Drivers {
  const KernelDescriptor &d;
  KernelFunctionOptions options;
  std::string elementType; ///< of the sparse operand's values
  bool converted;          ///< the CSR input is converted to another storage
  bool sparseOutput, inPlace;
  size_t numInputs;

  /// `memref<...>` of operand n as the caller passes it.
  std::string memrefType(unsigned n) const {
    std::string t = kernelOperandType(d, n, options, transposed(n));
    return "memref<" + t.substr(t.find('<') + 1);
  }
  std::string tensorType(unsigned n) const {
    return kernelOperandType(d, n, options, transposed(n));
  }
  bool transposed(unsigned n) const {
    return options.transposedInputs.count(n) != 0;
  }
  /// The dense operands the entry points take: dense inputs, then a dense
  /// output (`withOutput`).
  std::vector<unsigned> denseArguments(bool withOutput) const {
    std::vector<unsigned> args;
    for (unsigned n = 0; n < numInputs; ++n)
      if (!d.operands[n].sparse())
        args.push_back(n);
    if (withOutput && !sparseOutput)
      args.push_back(static_cast<unsigned>(numInputs));
    return args;
  }

  /// An entry point's signature and the code that gives its arguments as
  /// tensors: %s (the sparse operand in the kernel's storage), %d<n>.
  std::string prologue(const char *name, bool withOutput,
                       const std::string &last) const {
    std::string text = "  func.func @" + std::string(name) +
                       "(%pos: memref<?xindex>, %crd: memref<?xindex>, "
                       "%vals: memref<?x" +
                       elementType + ">";
    for (unsigned n : denseArguments(withOutput))
      text += ", %buf" + std::to_string(n) + ": " + memrefType(n);
    text += ", " + last + ")\n      attributes {llvm.emit_c_interface} {\n";
    text += "    %c0 = arith.constant 0 : index\n"
            "    %c1 = arith.constant 1 : index\n"
            "    %tp = bufferization.to_tensor %pos restrict : "
            "memref<?xindex> to tensor<?xindex>\n"
            "    %tc = bufferization.to_tensor %crd restrict : "
            "memref<?xindex> to tensor<?xindex>\n"
            "    %tv = bufferization.to_tensor %vals restrict : memref<?x" +
            elementType + "> to tensor<?x" + elementType +
            ">\n"
            "    %csr = sparse_tensor.assemble (%tp, %tc), %tv : "
            "(tensor<?xindex>, tensor<?xindex>), tensor<?x" +
            elementType + "> to !CSR\n";
    text += converted ? "    %s = sparse_tensor.convert %csr : !CSR to !S\n"
                      : "    %s = tensor.cast %csr : !CSR to !S\n";
    for (unsigned n : denseArguments(withOutput)) {
      bool isOutput = n == numInputs;
      text += "    %d" + std::to_string(n) + " = bufferization.to_tensor %buf" +
              std::to_string(n) + " restrict" + (isOutput ? " writable" : "") +
              " : " + memrefType(n) + " to " + tensorType(n) + "\n";
    }
    return text;
  }

  /// `func.call @kernel(...)` with `output` as the output argument.
  std::string call(const std::string &result, const std::string &output) const {
    std::string args, types;
    for (unsigned n = 0; n < numInputs; ++n) {
      args +=
          (n ? ", " : "") + (d.operands[n].sparse() ? std::string("%s")
                                                    : "%d" + std::to_string(n));
      types += (n ? ", " : "") + tensorType(n);
    }
    std::string resultType = tensorType(static_cast<unsigned>(numInputs));
    if (kernelTakesOutput(d)) {
      args += ", " + output;
      types += ", " + resultType;
    }
    return result + " = func.call @" + options.name + "(" + args + ") : (" +
           types + ") -> " + resultType + "\n";
  }

  std::string freeConverted() const {
    return converted ? "    bufferization.dealloc_tensor %s : !S\n" : "";
  }

  std::string timeDriver() const {
    std::string text = prologue("sptune_time", true, "%times: memref<?xf64>");
    std::string resultType = tensorType(static_cast<unsigned>(numInputs));
    std::string outTensor = "%d" + std::to_string(numInputs);
    text += "    %n = memref.dim %times, %c0 : memref<?xf64>\n";
    std::string timed = "      %t0 = func.call @rtclock() : () -> f64\n";
    std::string stop = "      %t1 = func.call @rtclock() : () -> f64\n"
                       "      %dt = arith.subf %t1, %t0 : f64\n"
                       "      memref.store %dt, %times[%i] : memref<?xf64>\n";
    if (!sparseOutput) {
      // A dense output accumulates through the calls, in place.
      text += "    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = " +
              outTensor + ") -> (" + resultType + ") {\n" + timed + "      " +
              call("%y", "%acc") + stop + "      scf.yield %y : " + resultType +
              "\n    }\n";
      text += "    bufferization.materialize_in_destination %r in restrict "
              "writable %buf" +
              std::to_string(numInputs) + " : (" + resultType + ", " +
              memrefType(static_cast<unsigned>(numInputs)) + ") -> ()\n";
      text += freeConverted();
    } else if (inPlace) {
      // The result of one call is the next call's sparse operand.
      text += "    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) "
              "-> (!S) {\n" +
              timed + "      " + call("%y", "%acc") + stop +
              "      scf.yield %y : !S\n    }\n";
      if (converted)
        text += "    bufferization.dealloc_tensor %r : !S\n";
    } else {
      // Every call's fresh sparse result is freed.
      text += "    scf.for %i = %c0 to %n step %c1 {\n" + timed + "      " +
              call("%y", "") + stop +
              "      bufferization.dealloc_tensor %y : !S\n    }\n";
      text += freeConverted();
    }
    return text + "    return\n  }\n";
  }

  /// Whether the sparse result is a product of two sparse inputs (SpGEMM),
  /// whose entries the kernel places itself: the check also counts them and
  /// those that follow the previous one in row-major order, so that a
  /// duplicate or out-of-order entry, which the weighted sum cannot see, is
  /// a wrong result (referenceSpGEMMChecksum's three values).
  bool countsEntries() const {
    size_t sparseInputs = 0;
    for (size_t n = 0; n < numInputs; ++n)
      sparseInputs += d.operands[n].sparse() ? 1 : 0;
    return sparseInputs > 1;
  }

  /// One call and the weighted checksum of its rank-2 sparse result (the
  /// weights are checksumWeight of Reference.h); with countsEntries, the
  /// entries and the entries in order too.
  std::string checkDriver() const {
    bool counted = countsEntries();
    std::string text = prologue("sptune_check", false,
                                std::string("%sum: memref<") +
                                    (counted ? "3" : "1") + "xf64>");
    text += "    " + call("%x", "%s");
    // An in-place result in other storage than the CSR input is summed as
    // a user's program sees it: converted back and restricted to the
    // sample's entries (blocks store zeros, which the in-place product
    // fills; sptune-apply-schedule's keepEntriesOf drops them the same way).
    std::string summed = "%x", summedType = "!S";
    if (inPlace && converted) {
      std::string keep = R"(    %xc = sparse_tensor.convert %x : !S to !CSR
    %empty = tensor.empty() : !CSR
    %kept = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%csr, %xc : !CSR, !CSR) outs(%empty : !CSR) attrs = {sptune.storage_copy} {
      ^bb0(%p: ELT, %v: ELT, %o: ELT):
        %e = sparse_tensor.binary %p, %v : ELT, ELT to ELT
          overlap = {
            ^bb0(%l: ELT, %r: ELT):
              sparse_tensor.yield %r : ELT
          }
          left = {}
          right = {}
        linalg.yield %e : ELT
    } -> !CSR
)";
      for (size_t at = keep.find("ELT"); at != std::string::npos;
           at = keep.find("ELT", at + elementType.size()))
        keep.replace(at, 3, elementType);
      text += keep;
      summed = "%kept";
      summedType = "!CSR";
    }
    bool f64 = elementType == "f64";
    // Counted: (sum, entries, entries in order, previous row, previous
    // column), the previous ones -1 before the first entry.
    std::string carried = counted ? "f64, i64, i64, i64, i64" : "f64";
    text += "    %zero = arith.constant 0.0 : f64\n";
    if (counted)
      text += "    %none = arith.constant 0 : i64\n"
              "    %before = arith.constant -1 : i64\n";
    text += std::string("    %total") + (counted ? ":5" : "") +
            " = sparse_tensor.foreach in " + summed +
            (counted ? " init(%zero, %none, %none, %before, %before) : "
                     : " init(%zero) : ") +
            summedType + ", " + carried + " -> " + carried +
            " do {\n"
            "      ^bb0(%i: index, %j: index, %v: " +
            elementType + ", %acc: f64" +
            (counted ? ", %n: i64, %inorder: i64, %pi: i64, %pj: i64" : "") +
            "):\n";
    if (!f64)
      text += "        %vd = arith.extf %v : " + elementType + " to f64\n";
    text += R"(        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %m1 = arith.constant 7919 : i64
        %m2 = arith.constant 104729 : i64
        %m3 = arith.constant 1024 : i64
        %one = arith.constant 1 : i64
        %h1 = arith.muli %ii, %m1 : i64
        %h2 = arith.muli %jj, %m2 : i64
        %h3 = arith.addi %h1, %h2 : i64
        %h4 = arith.remui %h3, %m3 : i64
        %h5 = arith.addi %h4, %one : i64
        %hf = arith.uitofp %h5 : i64 to f64
        %den = arith.constant 1024.0 : f64
        %w = arith.divf %hf, %den : f64
)";
    text += std::string("        %vw = arith.mulf ") + (f64 ? "%v" : "%vd") +
            ", %w : f64\n"
            "        %next = arith.addf %acc, %vw : f64\n";
    if (!counted) {
      text += "        sparse_tensor.yield %next : f64\n    }\n"
              "    memref.store %total, %sum[%c0] : memref<1xf64>\n";
    } else {
      text += R"(        %n1 = arith.addi %n, %one : i64
        %rowAfter = arith.cmpi sgt, %ii, %pi : i64
        %sameRow = arith.cmpi eq, %ii, %pi : i64
        %colAfter = arith.cmpi sgt, %jj, %pj : i64
        %after = arith.andi %sameRow, %colAfter : i1
        %ordered = arith.ori %rowAfter, %after : i1
        %step = arith.extui %ordered : i1 to i64
        %inorder1 = arith.addi %inorder, %step : i64
        sparse_tensor.yield %next, %n1, %inorder1, %ii, %jj : f64, i64, i64, i64, i64
    }
    %c2 = arith.constant 2 : index
    %entries = arith.uitofp %total#1 : i64 to f64
    %entriesInOrder = arith.uitofp %total#2 : i64 to f64
    memref.store %total#0, %sum[%c0] : memref<3xf64>
    memref.store %entries, %sum[%c1] : memref<3xf64>
    memref.store %entriesInOrder, %sum[%c2] : memref<3xf64>
)";
    }
    // In place, the result is %s itself when no conversion happened, else
    // the converted tensor's storage: free it only then.
    if (!inPlace)
      text += "    bufferization.dealloc_tensor %x : !S\n" + freeConverted();
    else if (converted)
      text += "    bufferization.dealloc_tensor %kept : !CSR\n"
              "    bufferization.dealloc_tensor %xc : !CSR\n"
              "    bufferization.dealloc_tensor %x : !S\n";
    return text + "    return\n  }\n";
  }
};
} // namespace

llvm::Expected<std::string>
sptune::buildBenchModule(const KernelDescriptor &d, const std::string &encoding,
                         const std::set<unsigned> &transposedInputs) {
  const KernelOperand *sparse = nullptr;
  for (const KernelOperand &o : d.operands)
    if (o.sparse()) {
      sparse = &o;
      break;
    }
  if (!sparse || sparse->dims.size() != 2)
    return makeError("a bench module measures kernels on one sparse matrix; "
                     "this kernel has no rank-2 sparse operand");
  KernelFunctionOptions options;
  options.transposedInputs = transposedInputs;
  std::string kernel;
  if (llvm::Error e = printKernelFunction(d, options).moveInto(kernel))
    return std::move(e);

  Drivers drivers{d,
                  options,
                  sparse->elementType,
                  encoding != csrEncodingText(),
                  d.operands.back().sparse(),
                  d.body == KernelDescriptor::Body::SampledMultiplyAccumulate,
                  d.operands.size() - 1};
  std::string shape = std::to_string(d.loops[sparse->dims[0]].size) + "x" +
                      std::to_string(d.loops[sparse->dims[1]].size) + "x" +
                      sparse->elementType;
  std::string text = "!CSR = tensor<" + shape + ", " + csrEncodingText() +
                     ">\n!S = tensor<" + shape + ", " + encoding +
                     ">\nmodule {\n  func.func private @rtclock() -> f64\n";
  text += kernel + drivers.timeDriver();
  if (drivers.sparseOutput)
    text += drivers.checkDriver();
  return text + "}\n";
}

llvm::Expected<std::string>
sptune::buildBenchModule(const KernelSpec &spec, int64_t rows, int64_t cols,
                         const std::string &encoding, SddmmForm sddmm) {
  return buildBenchModule(benchDescriptor(spec, rows, cols, sddmm), encoding,
                          benchTransposedInputs(spec, sddmm));
}
