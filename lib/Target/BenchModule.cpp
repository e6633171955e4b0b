//===- BenchModule.cpp - The IR a JIT measurer compiles -------------------===//

#include "sptune/Target/BenchModule.h"

#include <vector>

using namespace sptune;

const char *sptune::csrEncodingText() {
  return "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : "
         "compressed) }>";
}

namespace {
/// Replaces $NAME tokens in an IR template, in the order they were set.
class Template {
public:
  Template &set(const std::string &key, const std::string &value) {
    keys.push_back("$" + key);
    values.push_back(value);
    return *this;
  }
  std::string render(std::string text) const {
    for (size_t n = 0; n < keys.size(); ++n) {
      size_t pos = 0;
      while ((pos = text.find(keys[n], pos)) != std::string::npos) {
        text.replace(pos, keys[n].size(), values[n]);
        pos += values[n].size();
      }
    }
    return text;
  }

private:
  std::vector<std::string> keys, values;
};

/// Assembles the CSR input and gives it the kernel's storage as %s.
const char *kAssemble = R"(
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tp = bufferization.to_tensor %pos restrict : memref<?xindex> to tensor<?xindex>
    %tc = bufferization.to_tensor %crd restrict : memref<?xindex> to tensor<?xindex>
    %tv = bufferization.to_tensor %vals restrict : memref<?x$ET> to tensor<?x$ET>
    %csr = sparse_tensor.assemble (%tp, %tc), %tv : (tensor<?xindex>, tensor<?xindex>), tensor<?x$ET> to !CSR
$CONVERT)";

/// The header of every bench module.
const char *kHeader = R"(!CSR = tensor<$Mx$Kx$ET, $CSRENC>
!S = tensor<$Mx$Kx$ET, $ENC>
module {
  func.func private @rtclock() -> f64
)";

const char *kSpMM = R"(
  func.func @kernel(%a: !S, %b: tensor<$Kx$Nx$ET>, %c: tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET> {
    %0 = linalg.matmul ins(%a, %b : !S, tensor<$Kx$Nx$ET>) outs(%c : tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET>
    return %0 : tensor<$Mx$Nx$ET>
  }
  func.func @sptune_time(%pos: memref<?xindex>, %crd: memref<?xindex>, %vals: memref<?x$ET>,
                         %b: memref<$Kx$Nx$ET>, %c: memref<$Mx$Nx$ET>, %times: memref<?xf64>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %tb = bufferization.to_tensor %b restrict : memref<$Kx$Nx$ET> to tensor<$Kx$Nx$ET>
    %tcc = bufferization.to_tensor %c restrict writable : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %n = memref.dim %times, %c0 : memref<?xf64>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %tcc) -> (tensor<$Mx$Nx$ET>) {
      %t0 = func.call @rtclock() : () -> f64
      %y = func.call @kernel(%s, %tb, %acc) : (!S, tensor<$Kx$Nx$ET>, tensor<$Mx$Nx$ET>) -> tensor<$Mx$Nx$ET>
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      memref.store %dt, %times[%i] : memref<?xf64>
      scf.yield %y : tensor<$Mx$Nx$ET>
    }
    bufferization.materialize_in_destination %r in restrict writable %c : (tensor<$Mx$Nx$ET>, memref<$Mx$Nx$ET>) -> ()
$FREE    return
  }
)";

const char *kSpMV = R"(
  func.func @kernel(%a: !S, %x: tensor<$Kx$ET>, %y: tensor<$Mx$ET>) -> tensor<$Mx$ET> {
    %0 = linalg.matvec ins(%a, %x : !S, tensor<$Kx$ET>) outs(%y : tensor<$Mx$ET>) -> tensor<$Mx$ET>
    return %0 : tensor<$Mx$ET>
  }
  func.func @sptune_time(%pos: memref<?xindex>, %crd: memref<?xindex>, %vals: memref<?x$ET>,
                         %x: memref<$Kx$ET>, %y: memref<$Mx$ET>, %times: memref<?xf64>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %tx = bufferization.to_tensor %x restrict : memref<$Kx$ET> to tensor<$Kx$ET>
    %ty = bufferization.to_tensor %y restrict writable : memref<$Mx$ET> to tensor<$Mx$ET>
    %n = memref.dim %times, %c0 : memref<?xf64>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %ty) -> (tensor<$Mx$ET>) {
      %t0 = func.call @rtclock() : () -> f64
      %z = func.call @kernel(%s, %tx, %acc) : (!S, tensor<$Kx$ET>, tensor<$Mx$ET>) -> tensor<$Mx$ET>
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      memref.store %dt, %times[%i] : memref<?xf64>
      scf.yield %z : tensor<$Mx$ET>
    }
    bufferization.materialize_in_destination %r in restrict writable %y : (tensor<$Mx$ET>, memref<$Mx$ET>) -> ()
$FREE    return
  }
)";

// SDDMM: S is $M x $K (rows x cols); the dense inner size is $N.

/// X = S .* (A B) into a fresh sparse X; every call's X is freed.
const char *kSddmmSparseOutput = R"(
  func.func @kernel(%s: !S, %a: tensor<$Mx$Nx$ET>, %bin: tensor<$BSHAPEx$ET>) -> !S {
    %e = tensor.empty() : !S
$BPREP    %0 = linalg.generic {
        indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                         affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
        iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %a, %b : !S, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) outs(%e : !S) {
    ^bb0(%sv: $ET, %av: $ET, %bv: $ET, %xv: $ET):
      %p = arith.mulf %av, %bv : $ET
      %q = arith.mulf %sv, %p : $ET
      %r = arith.addf %xv, %q : $ET
      linalg.yield %r : $ET
    } -> !S
    return %0 : !S
  }
  func.func @sptune_time(%pos: memref<?xindex>, %crd: memref<?xindex>, %vals: memref<?x$ET>,
                         %a: memref<$Mx$Nx$ET>, %b: memref<$BSHAPEx$ET>, %times: memref<?xf64>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %ta = bufferization.to_tensor %a restrict : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %tb = bufferization.to_tensor %b restrict : memref<$BSHAPEx$ET> to tensor<$BSHAPEx$ET>
    %n = memref.dim %times, %c0 : memref<?xf64>
    scf.for %i = %c0 to %n step %c1 {
      %t0 = func.call @rtclock() : () -> f64
      %x = func.call @kernel(%s, %ta, %tb) : (!S, tensor<$Mx$Nx$ET>, tensor<$BSHAPEx$ET>) -> !S
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      memref.store %dt, %times[%i] : memref<?xf64>
      bufferization.dealloc_tensor %x : !S
    }
$FREE    return
  }
)";

/// S = S + spy(S) * (A B) in place; the result of one call is the next
/// call's S.
const char *kSddmmInPlace = R"(
  func.func @kernel(%s: !S, %a: tensor<$Mx$Nx$ET>, %b: tensor<$Nx$Kx$ET>) -> !S {
    %0 = linalg.generic {
        indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                         affine_map<(i, j, k) -> (i, j)>],
        iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) outs(%s : !S) {
    ^bb0(%av: $ET, %bv: $ET, %sv: $ET):
      %zero = arith.constant 0.0 : $ET
      %u = sparse_tensor.unary %sv : $ET to $ET
        present = {
          ^bb0(%p: $ET):
            %m = arith.mulf %av, %bv : $ET
            sparse_tensor.yield %m : $ET
        }
        absent = {}
      %r = sparse_tensor.reduce %sv, %u, %zero : $ET {
        ^bb0(%x: $ET, %y: $ET):
          %add = arith.addf %x, %y : $ET
          sparse_tensor.yield %add : $ET
      }
      linalg.yield %r : $ET
    } -> !S
    return %0 : !S
  }
  func.func @sptune_time(%pos: memref<?xindex>, %crd: memref<?xindex>, %vals: memref<?x$ET>,
                         %a: memref<$Mx$Nx$ET>, %b: memref<$Nx$Kx$ET>, %times: memref<?xf64>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %ta = bufferization.to_tensor %a restrict : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %tb = bufferization.to_tensor %b restrict : memref<$Nx$Kx$ET> to tensor<$Nx$Kx$ET>
    %n = memref.dim %times, %c0 : memref<?xf64>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (!S) {
      %t0 = func.call @rtclock() : () -> f64
      %x = func.call @kernel(%acc, %ta, %tb) : (!S, tensor<$Mx$Nx$ET>, tensor<$Nx$Kx$ET>) -> !S
      %t1 = func.call @rtclock() : () -> f64
      %dt = arith.subf %t1, %t0 : f64
      memref.store %dt, %times[%i] : memref<?xf64>
      scf.yield %x : !S
    }
$DROPR    return
  }
)";

/// One call of @kernel and the weighted checksum of its sparse result (the
/// weights are checksumWeight of Reference.h).
const char *kSddmmCheck = R"(
  func.func @sptune_check(%pos: memref<?xindex>, %crd: memref<?xindex>, %vals: memref<?x$ET>,
                          %a: memref<$Mx$Nx$ET>, %b: memref<$BCHECKx$ET>, %sum: memref<1xf64>)
      attributes {llvm.emit_c_interface} {$ASSEMBLE
    %ta = bufferization.to_tensor %a restrict : memref<$Mx$Nx$ET> to tensor<$Mx$Nx$ET>
    %tb = bufferization.to_tensor %b restrict : memref<$BCHECKx$ET> to tensor<$BCHECKx$ET>
    %x = func.call @kernel(%s, %ta, %tb) : (!S, tensor<$Mx$Nx$ET>, tensor<$BCHECKx$ET>) -> !S
    %zero = arith.constant 0.0 : f64
    %total = sparse_tensor.foreach in %x init(%zero) : !S, f64 -> f64 do {
      ^bb0(%i: index, %j: index, %v: $ET, %acc: f64):
$EXTOP        %ii = arith.index_cast %i : index to i64
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
        %vw = arith.mulf $VD, %w : f64
        %next = arith.addf %acc, %vw : f64
        sparse_tensor.yield %next : f64
    }
    memref.store %total, %sum[%c0] : memref<1xf64>
$CHECKEND    return
  }
)";
} // namespace

std::string sptune::buildBenchModule(const KernelSpec &spec, int64_t rows,
                                     int64_t cols, const std::string &encoding,
                                     SddmmForm sddmm) {
  std::string et = spec.elementBits == 64 ? "f64" : "f32";
  bool same = encoding == csrEncodingText();
  std::string freeS = same ? "" : "    bufferization.dealloc_tensor %s : !S\n";
  // In place, the result is %s itself when no conversion happened, else the
  // converted tensor's storage: free it only then.
  std::string checkEnd =
      sddmm == SddmmForm::SparseOutput
          ? "    bufferization.dealloc_tensor %x : !S\n" + freeS
          : (same ? "" : "    bufferization.dealloc_tensor %x : !S\n");
  // SDDMM's B: as the kernel reads it (K x cols), or supplied as B^T and
  // transposed by the kernel itself.
  bool bt = spec.kernel == KernelType::SDDMM && spec.transposedB &&
            sddmm == SddmmForm::SparseOutput;
  Template t;
  // Tokens that contain other tokens first, in the order they nest.
  t.set("BPREP", bt ? "    %bempty = tensor.empty() : tensor<$Nx$Kx$ET>\n"
                      "    %b = linalg.transpose ins(%bin : tensor<$Kx$Nx$ET>) "
                      "outs(%bempty : tensor<$Nx$Kx$ET>) permutation = [1, 0]\n"
                    : "    %b = tensor.cast %bin : tensor<$Nx$Kx$ET> to "
                      "tensor<$Nx$Kx$ET>\n")
      .set("BSHAPE", bt ? "$Kx$N" : "$Nx$K")
      .set("BCHECK", bt ? "$Kx$N" : "$Nx$K");
  // ASSEMBLE first: the snippet uses the tokens set after it.
  t.set("ASSEMBLE", kAssemble)
      .set("M", std::to_string(rows))
      .set("K", std::to_string(cols))
      .set("N", std::to_string(spec.free))
      .set("ET", et)
      .set("ENC", encoding)
      .set("CSRENC", csrEncodingText())
      .set("CONVERT",
           same ? "    %s = tensor.cast %csr : !CSR to !S\n"
                : "    %s = sparse_tensor.convert %csr : !CSR to !S\n")
      .set("FREE", freeS)
      .set("DROPR", same ? "" : "    bufferization.dealloc_tensor %r : !S\n")
      .set("CHECKEND", checkEnd)
      .set("VD", et == "f64" ? "%v" : "%vd")
      .set("EXTOP",
           et == "f64" ? "" : "        %vd = arith.extf %v : f32 to f64\n");

  std::string body;
  switch (spec.kernel) {
  case KernelType::SpMM:
    body = kSpMM;
    break;
  case KernelType::SpMV:
    body = kSpMV;
    break;
  case KernelType::SDDMM:
    body = std::string(sddmm == SddmmForm::SparseOutput ? kSddmmSparseOutput
                                                        : kSddmmInPlace) +
           kSddmmCheck;
    break;
  }
  return t.render(std::string(kHeader) + body + "}\n");
}
