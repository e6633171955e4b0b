// RUN: sptune-opt %s --sptune-extract-kernels -verify-diagnostics -o /dev/null
// RUN: sptune-opt %s --sptune-extract-kernels=report=- -o /dev/null 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=REPORT

// Every sparse linalg op is described, recognized or not: its loops,
// operands of any rank with their storage, and the body's meaning
// (KernelDescriptor). Kernels sptune does not tune yet pass through with a
// remark naming the shape they were seen as, and the report lists them.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>
#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#BCSR = #sparse_tensor.encoding<{ map = (b, i, k) -> (b : dense, i : dense, k : compressed) }>

// A sparse x sparse product into DCSR: not one the row-wise SpGEMM kernel
// computes (into CSR it is the kernel type spgemm,
// test/Transforms/spgemm-schedule.mlir).
func.func @spgemm(%a: tensor<8x6xf64, #CSR>, %b: tensor<6x4xf64, #CSR>) -> tensor<8x4xf64, #DCSR> {
  %e = tensor.empty() : tensor<8x4xf64, #DCSR>
  // expected-remark @below {{both inputs are sparse, and this sparse x sparse product is not tuned: its result: it is not stored as CSR ([dense, compressed], rows first); seen as spgemm: loops (i par 8, j par 4, k red 6); A(i, k) sparse f64 [dense, compressed], B(k, j) sparse f64 [dense, compressed] -> C(i, j) sparse f64 [compressed, compressed]; multiply-accumulate}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x6xf64, #CSR>, tensor<6x4xf64, #CSR>)
                     outs(%e : tensor<8x4xf64, #DCSR>) -> tensor<8x4xf64, #DCSR>
  return %0 : tensor<8x4xf64, #DCSR>
}

#mttkrp = {
  indexing_maps = [affine_map<(i, j, k, l) -> (i, k, l)>,
                   affine_map<(i, j, k, l) -> (k, j)>,
                   affine_map<(i, j, k, l) -> (l, j)>,
                   affine_map<(i, j, k, l) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction", "reduction"]
}
func.func @mttkrp(%x: tensor<8x6x5xf32, #CSF>, %b: tensor<6x16xf32>, %c: tensor<5x16xf32>,
                  %o: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{seen as mttkrp: loops (i par 8, j par 16, k red 6, l red 5); A(i, k, l) sparse f32 [compressed, compressed, compressed], B(k, j) f32, C(l, j) f32 -> D(i, j) f32; multiply-accumulate}}
  %0 = linalg.generic #mttkrp
      ins(%x, %b, %c : tensor<8x6x5xf32, #CSF>, tensor<6x16xf32>, tensor<5x16xf32>)
      outs(%o : tensor<8x16xf32>) {
  ^bb0(%xv: f32, %bv: f32, %cv: f32, %ov: f32):
    %p = arith.mulf %xv, %bv : f32
    %q = arith.mulf %p, %cv : f32
    %s = arith.addf %ov, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

#bspmm = {
  indexing_maps = [affine_map<(b, i, j, k) -> (b, i, k)>,
                   affine_map<(b, i, j, k) -> (b, k, j)>,
                   affine_map<(b, i, j, k) -> (b, i, j)>],
  iterator_types = ["parallel", "parallel", "parallel", "reduction"]
}
func.func @batched_spmm(%a: tensor<2x8x6xf32, #BCSR>, %b: tensor<2x6x16xf32>,
                        %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @below {{seen as batched-spmm: loops (i par 2, j par 8, k par 16, l red 6); A(i, j, l) sparse f32 [dense, dense, compressed], B(i, l, k) f32 -> C(i, j, k) f32}}
  %0 = linalg.generic #bspmm
      ins(%a, %b : tensor<2x8x6xf32, #BCSR>, tensor<2x6x16xf32>)
      outs(%c : tensor<2x8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

#ew = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"]
}
// The sparse ⊙ dense product is a kernel sptune tunes (hadamard)...
func.func @sparse_times_dense(%a: tensor<8x16xf32, #CSR>, %b: tensor<8x16xf32>,
                              %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic #ew
      ins(%a, %b : tensor<8x16xf32, #CSR>, tensor<8x16xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// ... but with B read transposed it is another kernel, described only.
#ewT = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (j, i)>,
                   affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"]
}
func.func @sparse_times_dense_t(%a: tensor<8x16xf32, #CSR>, %b: tensor<16x8xf32>,
                                %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-remark @below {{body is not a multiply-accumulate; seen as sparse-elementwise: loops (i par 8, j par 16); A(i, j) sparse f32 [dense, compressed], B(j, i) f32 -> C(i, j) f32; elementwise product}}
  %0 = linalg.generic #ewT
      ins(%a, %b : tensor<8x16xf32, #CSR>, tensor<16x8xf32>)
      outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

func.func @spmm_i4(%a: tensor<8x6xi4, #CSR>, %b: tensor<6x4xi4>,
                     %c: tensor<8x4xi4>) -> tensor<8x4xi4> {
  // expected-remark @below {{element type i4 is not f16, bf16, f32, f64, i8, i16, i32 or i64; seen as spmm: loops (i par 8, j par 4, k red 6); A(i, k) sparse i4 [dense, compressed]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x6xi4, #CSR>, tensor<6x4xi4>)
                     outs(%c : tensor<8x4xi4>) -> tensor<8x4xi4>
  return %0 : tensor<8x4xi4>
}

func.func @spmm_dynamic(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>,
                        %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A scale fused into the product (an attention layer's alpha, a constant
// divisor) is part of the description; the kernel is recognized.
func.func @spmm_scaled(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x?xf32>,
                       %c: tensor<?x?xf32>, %alpha: f32) -> tensor<?x?xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %two = arith.constant 2.0 : f32
    %p = arith.mulf %alpha, %x : f32
    %q = arith.mulf %p, %y : f32
    %r = arith.divf %q, %two : f32
    %s = arith.addf %z, %r : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @hadamard_scaled(%a: tensor<8x16xf32, #CSR>, %b: tensor<8x16xf32>,
                           %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xf32, #CSR>, tensor<8x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %half = arith.constant 0.5 : f32
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %half, %p : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// The recognized kernels carry their descriptor; the others are listed.
// REPORT: "function": "sparse_times_dense"
// REPORT: "kind": "hadamard",
// REPORT-NEXT: "descriptor": "loops (i par 8, j par 16); A(i, j) sparse f32 [dense, compressed], B(i, j) f32 -> C(i, j) f32; elementwise product"
// REPORT: "function": "spmm_dynamic"
// REPORT: "kind": "spmm",
// REPORT-NEXT: "descriptor": "loops (i par ?, j par ?, k red ?); A(i, k) sparse f32 [dense, compressed], B(k, j) f32 -> C(i, j) f32; multiply-accumulate"
// REPORT: "function": "spmm_scaled"
// REPORT: "kind": "spmm",
// REPORT-NEXT: "descriptor": "loops (i par ?, j par ?, k red ?); A(i, k) sparse f32 [dense, compressed], B(k, j) f32 -> C(i, j) f32; multiply-accumulate, scaled by an invariant"
// REPORT: "function": "hadamard_scaled"
// REPORT: "kind": "hadamard",
// REPORT-NEXT: "descriptor": "loops (i par 8, j par 16); A(i, j) sparse f32 [dense, compressed], B(i, j) f32 -> C(i, j) f32; elementwise product, scaled by an invariant"
// REPORT: "unrecognized": [
// REPORT: "function": "spgemm",
// REPORT: "reason": "both inputs are sparse
// REPORT-NEXT: "shape": "spgemm",
// REPORT: "function": "mttkrp",
// REPORT: "shape": "mttkrp",
// REPORT: "function": "batched_spmm",
// REPORT: "shape": "batched-spmm",
// REPORT: "function": "sparse_times_dense_t",
// REPORT: "shape": "sparse-elementwise",
// REPORT: "function": "spmm_i4",
// REPORT: "shape": "spmm",
