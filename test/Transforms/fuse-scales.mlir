// RUN: sptune-opt %s --sptune-fuse-scales -split-input-file -verify-diagnostics | FileCheck %s
// RUN: sptune-opt %s --sptune-fuse-scales --sptune-extract-kernels=report=- -split-input-file -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=REPORT
//
// sptune-fuse-scales folds an elementwise scale of a sparse kernel's result
// into the kernel's product where that is exact, and leaves every other
// elementwise op alone.

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// An attention layer: SDDMM scores into a fresh sparse tensor, divided by
// sqrt(d) in an op of their own, then aggregated by SpMM. The division
// moves into the SDDMM; its op and output tensor are gone; the SDDMM is
// then a kernel scaled by an invariant.
// CHECK-LABEL: func.func @attention
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x8xf32, #sparse>
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<8x8xf32, #sparse>)
// CHECK:           arith.mulf
// CHECK:           %[[P:.*]] = arith.mulf
// CHECK:           %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:           %[[D:.*]] = arith.divf %[[P]], %[[C]] : f32
// CHECK:           arith.addf %{{.*}}, %[[D]] : f32
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.matmul ins(%[[S]], %{{.*}} :
// REPORT: "function": "attention"
// REPORT: "kind": "sddmm",
// REPORT-NEXT: "descriptor": "{{.*}}; multiply-accumulate, scaled by an invariant"
func.func @attention(%s: tensor<8x8xf32, #CSR>, %a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %h: tensor<8x16xf32>, %out: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x8xf32, #CSR>
  // expected-remark @below {{sptune-fuse-scales: the scale of this kernel's result is folded into its product}}
  %scores = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%s, %a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%e : tensor<8x8xf32, #CSR>) {
  ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
    %p = arith.mulf %av, %bv : f32
    %q = arith.mulf %sv, %p : f32
    %r = arith.addf %xv, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32, #CSR>
  %e2 = tensor.empty() : tensor<8x8xf32, #CSR>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%scores : tensor<8x8xf32, #CSR>) outs(%e2 : tensor<8x8xf32, #CSR>) {
  ^bb0(%x: f32, %o: f32):
    %sqrtd = arith.constant 2.0 : f32
    %y = arith.divf %x, %sqrtd : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32, #CSR>
  %0 = linalg.matmul ins(%scaled, %h : tensor<8x8xf32, #CSR>, tensor<8x16xf32>) outs(%out : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// SpMM into a dense zero, then alpha (a function argument) times the
// result; and an integer SpMM into a zero fill, then times 3.
// CHECK-LABEL: func.func @spmm_alpha
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:           arith.mulf %{{.*}}, %arg2 : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
// CHECK-LABEL: func.func @spmm_i32
// CHECK:           %[[P:.*]] = arith.muli
// CHECK:           %[[T:.*]] = arith.constant 3 : i32
// CHECK:           arith.muli %[[P]], %[[T]] : i32
// CHECK-NOT:     linalg.generic
func.func @spmm_alpha(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %alpha: f32) -> tensor<8x4xf32> {
  %z = arith.constant dense<0.0> : tensor<8x4xf32>
  // expected-remark @below {{folded into its product}}
  %c = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %alpha, %x : f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func @spmm_i32(%a: tensor<8x8xi32, #CSR>, %b: tensor<8x4xi32>) -> tensor<8x4xi32> {
  %zero = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<8x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e0 : tensor<8x4xi32>) -> tensor<8x4xi32>
  // expected-remark @below {{folded into its product}}
  %c = linalg.matmul ins(%a, %b : tensor<8x8xi32, #CSR>, tensor<8x4xi32>) outs(%z : tensor<8x4xi32>) -> tensor<8x4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c : tensor<8x4xi32>) outs(%e0 : tensor<8x4xi32>) {
  ^bb0(%x: i32, %o: i32):
    %three = arith.constant 3 : i32
    %y = arith.muli %x, %three : i32
    linalg.yield %y : i32
  } -> tensor<8x4xi32>
  return %r : tensor<8x4xi32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Left alone: an SpMM that adds to values the caller passed in (alpha
// would scale them too); a kernel whose result has another use; a factor
// computed after the kernel; a scale that adds instead of multiplying; and
// upstream's in-place SDDMM, whose sums start from the stored values.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @left_alone(%a: tensor<8x8xf32, #CSR>, %b: tensor<8x4xf32>, %c0: tensor<8x4xf32>,
                      %t: tensor<1xf32>, %p: tensor<8x4xf32>, %q: tensor<4x8xf32>, %s: tensor<8x8xf32, #CSR>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32, #CSR>) {
  %alpha = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = arith.constant dense<0.0> : tensor<8x4xf32>
  %c1 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%c0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c1 : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %alpha : f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  %c2 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c2 : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %alpha : f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  %c3 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %i0 = arith.constant 0 : index
  %late = tensor.extract %t[%i0] : tensor<1xf32>
  %r3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c3 : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %late : f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  %c4 = linalg.matmul ins(%a, %b : tensor<8x8xf32, #CSR>, tensor<8x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r4 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%c4 : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %alpha : f32
    linalg.yield %y : f32
  } -> tensor<8x4xf32>
  %sd = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%p, %q : tensor<8x4xf32>, tensor<4x8xf32>) outs(%s : tensor<8x8xf32, #CSR>) {
  ^bb0(%av: f32, %bv: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %u = sparse_tensor.unary %x : f32 to f32
      present = {
        ^bb0(%pr: f32):
          %m = arith.mulf %av, %bv : f32
          sparse_tensor.yield %m : f32
      }
      absent = {}
    %y = sparse_tensor.reduce %x, %u, %zero : f32 {
      ^bb0(%l: f32, %r: f32):
        %sum = arith.addf %l, %r : f32
        sparse_tensor.yield %sum : f32
    }
    linalg.yield %y : f32
  } -> tensor<8x8xf32, #CSR>
  %es = tensor.empty() : tensor<8x8xf32, #CSR>
  %r5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
    ins(%sd : tensor<8x8xf32, #CSR>) outs(%es : tensor<8x8xf32, #CSR>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %alpha : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32, #CSR>
  return %r1, %c2, %r3, %r4, %r5 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x8xf32, #CSR>
}
