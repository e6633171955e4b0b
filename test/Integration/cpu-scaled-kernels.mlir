// Kernels whose product has an invariant factor, a scale fused into the
// body (issue 33's "SDDMM with a fused scale"): SpMM's alpha (a function
// argument), an attention layer's SDDMM divided by sqrt(d) (a constant: a
// divisor must be a non-zero constant, upstream's sparsifier does not
// divide by a value that may be zero; sparse result), the in-place sampled form scaled by a constant
// inside its present region, SpMV scaled by a constant, and the sparse ⊙
// dense product scaled by an argument. Each is recognized (the descriptor
// says "scaled by an invariant"), tuned like its unscaled form, and
// computes what upstream's sparsifier computes on the program as written:
// with the heuristic's and the learned (measured) schedules and with
// hand-written schedules that change the storage, the layout and the
// vectorization. An attention layer (SDDMM, then its scores scaled in an
// op of their own, then SpMM) computes the same with the scale folded into
// the SDDMM by sptune-fuse-scales. Targets whose programs multiply the
// operands only (SPADE)
// or never ran scaled products (NVVM) leave them unscheduled, saying why.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule | FileCheck %s --check-prefix=SCHED
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=8,nnz=3,seed=1 free=8 measure-top-k=1" --sptune-apply-schedule --sptune-lower-cpu 2> %t.release | %{run} | FileCheck %s
// RUN: FileCheck %s --check-prefix=RELEASE < %t.release
// The attention layer's scale folded into its SDDMM (sptune-fuse-scales),
// then the heuristic's and the learned schedules.
// RUN: sptune-opt %s --sptune-fuse-scales 2>&1 >/dev/null | FileCheck %s --check-prefix=FUSE
// RUN: sptune-opt %s --sptune-fuse-scales --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-fuse-scales --sptune-extract-kernels --sptune-autotune="matrix=gen:uniform:rows=8,nnz=3,seed=1 free=8 measure-top-k=1" --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run} | FileCheck %s
// RUN: for s in "levels = [i : dense, k : compressed], order = [i, k, j], parallel = outer, vl = 4" \
// RUN:          "levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : dense], split = [2, 2], order = [i1, k1, i0, k0, j]" \
// RUN:          "levels = [k : dense, i : compressed], order = [k, i, j]" \
// RUN:          "layout = [b : j, c : j], parallel = outer"; do \
// RUN:   sed -e "s/outs(%%c : tensor<8x8xf64>) {  \/\/ alpha/outs(%%c : tensor<8x8xf64>) attrs = {sptune.schedule = #sptune.schedule<cpu spmm, $s>} {/" %s \
// RUN:     | sptune-opt --sptune-extract-kernels --sptune-default-schedule --sptune-apply-schedule --sptune-lower-cpu 2>/dev/null | %{run}; \
// RUN: done | FileCheck %s --check-prefix=HAND
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule=target=spade --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=SPADE
// RUN: sptune-opt %s --sptune-extract-kernels --sptune-default-schedule=target=nvvm --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=NVVM
//
// SCHED-COUNT-2: sptune.schedule = #sptune.schedule<cpu spmm,
// SCHED:         sptune.schedule = #sptune.schedule<cpu sddmm,
// SCHED:         sptune.schedule = #sptune.schedule<cpu sddmm,
// SCHED:         sptune.schedule = #sptune.schedule<cpu spmv,
// SCHED:         sptune.schedule = #sptune.schedule<cpu hadamard,
//
// RELEASE-COUNT-6: remark: sptune-autotune (release, {{.*}}measured{{.*}}; timed without its invariant factor (the fused scale)
//
// FUSE: remark: sptune-fuse-scales: the scale of this kernel's result is folded into its product
// FUSE-NOT: sptune-fuse-scales
//
// SPADE-COUNT-4: remark: sptune-default-schedule: left unscheduled: SPADE's processing elements multiply the operands' values only; the kernel's invariant factor (a fused scale) has no place in its program
// NVVM-COUNT-6: remark: sptune-default-schedule: left unscheduled: the nvvm target's cuSPARSE path and measurer compute plain products; a product with an invariant factor (a fused scale) was never run on a GPU here
//
// S has 1, 3 and 2 at (0, 0), (2, 5) and (7, 7); A(i, k) = i + 1 and
// B(k, j) = j + 1, so (A B)(i, j) = 8 (i + 1) (j + 1).
// SpMM, alpha = 0.5: row i of S B times 0.5; row 0: 0.5 (j + 1), row 2:
// 1.5 (j + 1), row 7: j + 1.
// CHECK:      ( ( 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1, 2, 3, 4, 5, 6, 7, 8 ) )
// The same SpMM with the scale written before the sparse value.
// CHECK-NEXT: ( ( 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1, 2, 3, 4, 5, 6, 7, 8 ) )
// SDDMM / sqrt(d), d = 4: S(i, j) 8 (i + 1) (j + 1) / 2.
// CHECK-NEXT: ( 4, 216, 512 )
// The in-place sampled form times 0.25: S(i, j) + 8 (i + 1) (j + 1) / 4
// at S's entries (S's values are the sums' start, not factors).
// CHECK-NEXT: ( 3, 39, 130 )
// SpMV times 3, x(k) = k + 1: 3, 54 and 48 in rows 0, 2 and 7.
// CHECK-NEXT: ( 3, 0, 54, 0, 0, 0, 0, 48 )
// S ⊙ A times 0.5: 0.5, 4.5 and 8 at S's entries.
// CHECK-NEXT: ( ( 0.5, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 4.5, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 8 ) )
// An attention layer: SDDMM scores (8, 432, 1024), times 0.25 in an op of
// their own (2, 108, 256), aggregated by SpMM over H(k, j) = j + 1.
// CHECK-NEXT: ( ( 2, 4, 6, 8, 10, 12, 14, 16 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 108, 216, 324, 432, 540, 648, 756, 864 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 256, 512, 768, 1024, 1280, 1536, 1792, 2048 ) )
// HAND-COUNT-4: ( ( 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 0, 0, 0, 0, 0, 0, 0, 0 ), ( 1, 2, 3, 4, 5, 6, 7, 8 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#mm = { indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"] }
#sddmm = { indexing_maps = [affine_map<(i,j,k) -> (i,j)>, affine_map<(i,j,k) -> (i,k)>, affine_map<(i,j,k) -> (k,j)>, affine_map<(i,j,k) -> (i,j)>],
  iterator_types = ["parallel", "parallel", "reduction"] }
#spy = { indexing_maps = [affine_map<(i,j,k) -> (i,k)>, affine_map<(i,j,k) -> (k,j)>, affine_map<(i,j,k) -> (i,j)>],
  iterator_types = ["parallel", "parallel", "reduction"] }
#mv = { indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
  iterator_types = ["parallel", "reduction"] }
#ew = { indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"] }
module {
  func.func @spmm_alpha(%s: tensor<8x8xf64, #CSR>, %b: tensor<8x8xf64>, %c: tensor<8x8xf64>, %alpha: f64) -> tensor<8x8xf64> {
    %r = linalg.generic #mm ins(%s, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) {  // alpha
      ^bb0(%sv: f64, %bv: f64, %x: f64):
        %p = arith.mulf %sv, %bv : f64
        %q = arith.mulf %p, %alpha : f64
        %y = arith.addf %x, %q : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    return %r : tensor<8x8xf64>
  }
  func.func @spmm_alpha_first(%s: tensor<8x8xf64, #CSR>, %b: tensor<8x8xf64>, %c: tensor<8x8xf64>, %alpha: f64) -> tensor<8x8xf64> {
    %r = linalg.generic #mm ins(%s, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) {
      ^bb0(%sv: f64, %bv: f64, %x: f64):
        %p = arith.mulf %alpha, %sv : f64
        %q = arith.mulf %p, %bv : f64
        %y = arith.addf %q, %x : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64>
    return %r : tensor<8x8xf64>
  }
  func.func @sddmm_sqrt_d(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>) -> tensor<8x8xf64, #CSR> {
    %sqrtd = arith.constant 2.0 : f64
    %e = tensor.empty() : tensor<8x8xf64, #CSR>
    %r = linalg.generic #sddmm ins(%s, %a, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>) outs(%e : tensor<8x8xf64, #CSR>) {
      ^bb0(%sv: f64, %av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %q = arith.mulf %sv, %p : f64
        %t = arith.divf %q, %sqrtd : f64
        %y = arith.addf %x, %t : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #CSR>
    return %r : tensor<8x8xf64, #CSR>
  }
  func.func @sddmm_in_place(%a: tensor<8x8xf64>, %b: tensor<8x8xf64>, %s: tensor<8x8xf64, #CSR>) -> tensor<8x8xf64, #CSR> {
    %r = linalg.generic #spy ins(%a, %b : tensor<8x8xf64>, tensor<8x8xf64>) outs(%s : tensor<8x8xf64, #CSR>) {
      ^bb0(%av: f64, %bv: f64, %x: f64):
        %zero = arith.constant 0.0 : f64
        %u = sparse_tensor.unary %x : f64 to f64
          present = {
            ^bb0(%present: f64):
              %quarter = arith.constant 0.25 : f64
              %p = arith.mulf %av, %bv : f64
              %q = arith.mulf %p, %quarter : f64
              sparse_tensor.yield %q : f64
          }
          absent = {}
        %y = sparse_tensor.reduce %x, %u, %zero : f64 {
          ^bb0(%l: f64, %m: f64):
            %sum = arith.addf %l, %m : f64
            sparse_tensor.yield %sum : f64
        }
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #CSR>
    return %r : tensor<8x8xf64, #CSR>
  }
  func.func @spmv_three(%s: tensor<8x8xf64, #CSR>, %x: tensor<8xf64>, %y: tensor<8xf64>) -> tensor<8xf64> {
    %r = linalg.generic #mv ins(%s, %x : tensor<8x8xf64, #CSR>, tensor<8xf64>) outs(%y : tensor<8xf64>) {
      ^bb0(%sv: f64, %xv: f64, %o: f64):
        %three = arith.constant 3.0 : f64
        %p = arith.mulf %sv, %xv : f64
        %q = arith.mulf %three, %p : f64
        %t = arith.addf %o, %q : f64
        linalg.yield %t : f64
    } -> tensor<8xf64>
    return %r : tensor<8xf64>
  }
  func.func @hadamard_half(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>, %alpha: f64) -> tensor<8x8xf64> {
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %r = linalg.generic #ew ins(%s, %a : tensor<8x8xf64, #CSR>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) {
      ^bb0(%sv: f64, %av: f64, %x: f64):
        %p = arith.mulf %sv, %av : f64
        %q = arith.mulf %p, %alpha : f64
        linalg.yield %q : f64
    } -> tensor<8x8xf64>
    return %r : tensor<8x8xf64>
  }
  func.func @attention(%s: tensor<8x8xf64, #CSR>, %a: tensor<8x8xf64>, %b: tensor<8x8xf64>, %h: tensor<8x8xf64>, %scale: f64) -> tensor<8x8xf64> {
    %e = tensor.empty() : tensor<8x8xf64, #CSR>
    %scores = linalg.generic #sddmm ins(%s, %a, %b : tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>) outs(%e : tensor<8x8xf64, #CSR>) {
      ^bb0(%sv: f64, %av: f64, %bv: f64, %x: f64):
        %p = arith.mulf %av, %bv : f64
        %q = arith.mulf %sv, %p : f64
        %y = arith.addf %x, %q : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #CSR>
    %e2 = tensor.empty() : tensor<8x8xf64, #CSR>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%scores : tensor<8x8xf64, #CSR>) outs(%e2 : tensor<8x8xf64, #CSR>) {
      ^bb0(%x: f64, %o: f64):
        %y = arith.mulf %x, %scale : f64
        linalg.yield %y : f64
    } -> tensor<8x8xf64, #CSR>
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %r = linalg.matmul ins(%scaled, %h : tensor<8x8xf64, #CSR>, tensor<8x8xf64>) outs(%z : tensor<8x8xf64>) -> tensor<8x8xf64>
    bufferization.dealloc_tensor %scaled : tensor<8x8xf64, #CSR>
    return %r : tensor<8x8xf64>
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %f0 = arith.constant 0.0 : f64
    %half = arith.constant 0.5 : f64
    %d = arith.constant sparse<[[0, 0], [2, 5], [7, 7]], [1.0, 3.0, 2.0]> : tensor<8x8xf64>
    %s = sparse_tensor.convert %d : tensor<8x8xf64> to tensor<8x8xf64, #CSR>
    %s2 = sparse_tensor.convert %d : tensor<8x8xf64> to tensor<8x8xf64, #CSR>
    %a = tensor.generate {
    ^bb0(%i: index, %k: index):
      %i1 = arith.index_cast %i : index to i64
      %v = arith.uitofp %i1 : i64 to f64
      %one = arith.constant 1.0 : f64
      %w = arith.addf %v, %one : f64
      tensor.yield %w : f64
    } : tensor<8x8xf64>
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %j1 = arith.index_cast %j : index to i64
      %v = arith.uitofp %j1 : i64 to f64
      %one = arith.constant 1.0 : f64
      %w = arith.addf %v, %one : f64
      tensor.yield %w : f64
    } : tensor<8x8xf64>
    %x = tensor.generate {
    ^bb0(%k: index):
      %k1 = arith.index_cast %k : index to i64
      %v = arith.uitofp %k1 : i64 to f64
      %one = arith.constant 1.0 : f64
      %w = arith.addf %v, %one : f64
      tensor.yield %w : f64
    } : tensor<8xf64>
    %zm = arith.constant dense<0.0> : tensor<8x8xf64>
    %zv = arith.constant dense<0.0> : tensor<8xf64>
    %0 = call @spmm_alpha(%s, %b, %zm, %half) : (tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>, f64) -> tensor<8x8xf64>
    %1 = call @spmm_alpha_first(%s, %b, %zm, %half) : (tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>, f64) -> tensor<8x8xf64>
    %2 = call @sddmm_sqrt_d(%s, %a, %b) : (tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>) -> tensor<8x8xf64, #CSR>
    %3 = call @sddmm_in_place(%a, %b, %s2) : (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64, #CSR>) -> tensor<8x8xf64, #CSR>
    %4 = call @spmv_three(%s, %x, %zv) : (tensor<8x8xf64, #CSR>, tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
    %5 = call @hadamard_half(%s, %a, %half) : (tensor<8x8xf64, #CSR>, tensor<8x8xf64>, f64) -> tensor<8x8xf64>
    %quarter = arith.constant 0.25 : f64
    %6 = call @attention(%s, %a, %b, %b, %quarter) : (tensor<8x8xf64, #CSR>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, f64) -> tensor<8x8xf64>
    %v0 = vector.transfer_read %0[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v0 : vector<8x8xf64>
    %v1 = vector.transfer_read %1[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v1 : vector<8x8xf64>
    %m2 = sparse_tensor.values %2 : tensor<8x8xf64, #CSR> to memref<?xf64>
    %v2 = vector.transfer_read %m2[%c0], %f0 : memref<?xf64>, vector<3xf64>
    vector.print %v2 : vector<3xf64>
    %m3 = sparse_tensor.values %3 : tensor<8x8xf64, #CSR> to memref<?xf64>
    %v3 = vector.transfer_read %m3[%c0], %f0 : memref<?xf64>, vector<3xf64>
    vector.print %v3 : vector<3xf64>
    %v4 = vector.transfer_read %4[%c0], %f0 : tensor<8xf64>, vector<8xf64>
    vector.print %v4 : vector<8xf64>
    %v5 = vector.transfer_read %5[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v5 : vector<8x8xf64>
    %v6 = vector.transfer_read %6[%c0, %c0], %f0 : tensor<8x8xf64>, vector<8x8xf64>
    vector.print %v6 : vector<8x8xf64>
    bufferization.dealloc_tensor %s : tensor<8x8xf64, #CSR>
    bufferization.dealloc_tensor %2 : tensor<8x8xf64, #CSR>
    bufferization.dealloc_tensor %3 : tensor<8x8xf64, #CSR>
    return
  }
}
