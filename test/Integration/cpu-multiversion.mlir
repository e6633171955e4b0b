// A kernel compiled without its matrix, multi-versioned: the variants, the
// route and the dispatcher are compiled once and run on two matrices that
// route to different variants (even rows, and one long row). Every variant
// and the dispatched call give the reference's numbers on both. The
// heuristic plans (the schedule it gives each training matrix is the one to
// cover), so the rule does not move with the shipped model.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{tune} = sptune-opt %s --sptune-extract-kernels --sptune-autotune="mode=heuristic multiversion=4 training-matrices=%S/Inputs/multiversion-training.txt" --mlir-print-op-on-diagnostic=false
// RUN: %{tune} -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %{tune} 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: %{tune} 2>/dev/null | sptune-opt --sptune-apply-schedule --sptune-lower-cpu 2>&1 >/dev/null | count 0
// RUN: %{tune} 2>/dev/null | sptune-opt --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
//
// REMARK: remark: sptune-autotune: no matrix for this kernel: 2 variants chosen for 7 training matrices (from '{{.*}}multiversion-training.txt'; {{[0-9]+}} schedules pooled), dispatched at run time by the rule: row_cv <= {{[0-9.]+}} ? v0 : v1; variant v0 (5 training matrices) [cpu spmm, {{.*}}omp = balanced{{.*}}] variant v1 (2 training matrices) [cpu spmm, {{.*}}omp = dynamic{{.*}}]; 7 of the 7 training matrices are routed to their best pooled schedule
//
// IR-LABEL: func.func @spmm(
// IR-SAME:    sptune.dispatch = "row_cv <= {{[0-9.]+}} ? v0 : v1"
// IR:         %[[V:.*]] = call @spmm__sptune_route(%arg0)
// IR:         scf.index_switch %[[V]]
// IR:         case 1 {
// IR:           func.call @spmm__sptune_v1(%arg0, %arg1, %arg2)
// IR:         default {
// IR:           func.call @spmm__sptune_v0(%arg0, %arg1, %arg2)
// IR-LABEL: func.func @spmm__sptune_v0(
// IR-SAME:    sptune.variant_of = @spmm
// IR:         linalg.matmul {{.*}}sptune.schedule = #sptune.schedule<cpu spmm
// IR-LABEL: func.func @spmm__sptune_v1(
// The route caches its choice by the positions buffer and the sizes.
// IR:         memref.global "private" @spmm__sptune_route_cache : memref<5xi64> = dense<-1>
// IR-LABEL: func.func @spmm__sptune_route(
// IR:         sparse_tensor.number_of_entries %arg0
// IR:         %[[POS:.*]] = sparse_tensor.positions %arg0 {level = 1 : index}
// IR:         memref.extract_aligned_pointer_as_index %[[POS]]
// IR:         memref.get_global @spmm__sptune_route_cache
// IR:         scf.if
// IR:         scf.for
// IR:         arith.muli
// IR:         arith.maxui
// IR:         memref.store
//
// Even rows route to v0, the long row to v1; every call agrees.
// CHECK:      even: route 0
// CHECK-NEXT: ( ( 3, 3, 3, 3 ), ( 7, 7, 7, 7 ), ( 11, 11, 11, 11 ), ( 15, 15, 15, 15 ), ( 19, 19, 19, 19 ), ( 23, 23, 23, 23 ), ( 27, 27, 27, 27 ), ( 15, 15, 15, 15 ) )
// CHECK-NEXT: ( ( 3, 3, 3, 3 ), ( 7, 7, 7, 7 ), ( 11, 11, 11, 11 ), ( 15, 15, 15, 15 ), ( 19, 19, 19, 19 ), ( 23, 23, 23, 23 ), ( 27, 27, 27, 27 ), ( 15, 15, 15, 15 ) )
// CHECK-NEXT: ( ( 3, 3, 3, 3 ), ( 7, 7, 7, 7 ), ( 11, 11, 11, 11 ), ( 15, 15, 15, 15 ), ( 19, 19, 19, 19 ), ( 23, 23, 23, 23 ), ( 27, 27, 27, 27 ), ( 15, 15, 15, 15 ) )
// CHECK-NEXT: skewed: route 1
// CHECK-NEXT: ( ( 36, 36, 36, 36 ), ( 0, 0, 0, 0 ), ( 3, 3, 3, 3 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 4, 4, 4, 4 ) )
// CHECK-NEXT: ( ( 36, 36, 36, 36 ), ( 0, 0, 0, 0 ), ( 3, 3, 3, 3 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 4, 4, 4, 4 ) )
// CHECK-NEXT: ( ( 36, 36, 36, 36 ), ( 0, 0, 0, 0 ), ( 3, 3, 3, 3 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 0, 0, 0, 0 ), ( 4, 4, 4, 4 ) )

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

module {
  func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<?x4xf32>) outs(%c : tensor<?x4xf32>) -> tensor<?x4xf32>
    return %0 : tensor<?x4xf32>
  }

  // What the pass defines; declared here to be called directly.
  func.func private @spmm__sptune_route(tensor<?x?xf32, #CSR>) -> index
  func.func private @spmm__sptune_v0(tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  func.func private @spmm__sptune_v1(tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>

  func.func @check(%d: tensor<8x8xf32>) {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %a = sparse_tensor.convert %d : tensor<8x8xf32> to tensor<?x?xf32, #CSR>
    %b0 = arith.constant dense<1.0> : tensor<8x4xf32>
    %b = tensor.cast %b0 : tensor<8x4xf32> to tensor<?x4xf32>
    %route = call @spmm__sptune_route(%a) : (tensor<?x?xf32, #CSR>) -> index
    vector.print %route : index
    %e0 = tensor.empty() : tensor<8x4xf32>
    %e1 = tensor.empty() : tensor<8x4xf32>
    %e2 = tensor.empty() : tensor<8x4xf32>
    %c0f = linalg.fill ins(%z : f32) outs(%e0 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %c1f = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %c2f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %o0 = tensor.cast %c0f : tensor<8x4xf32> to tensor<?x4xf32>
    %o1 = tensor.cast %c1f : tensor<8x4xf32> to tensor<?x4xf32>
    %o2 = tensor.cast %c2f : tensor<8x4xf32> to tensor<?x4xf32>
    %r0 = call @spmm(%a, %b, %o0) : (tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %r1 = call @spmm__sptune_v0(%a, %b, %o1) : (tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %r2 = call @spmm__sptune_v1(%a, %b, %o2) : (tensor<?x?xf32, #CSR>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %v0 = vector.transfer_read %r0[%c0, %c0], %z : tensor<?x4xf32>, vector<8x4xf32>
    %v1 = vector.transfer_read %r1[%c0, %c0], %z : tensor<?x4xf32>, vector<8x4xf32>
    %v2 = vector.transfer_read %r2[%c0, %c0], %z : tensor<?x4xf32>, vector<8x4xf32>
    vector.print %v0 : vector<8x4xf32>
    vector.print %v1 : vector<8x4xf32>
    vector.print %v2 : vector<8x4xf32>
    bufferization.dealloc_tensor %a : tensor<?x?xf32, #CSR>
    return
  }

  func.func @main() {
    // Two entries a row.
    %even = arith.constant dense<[
      [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 5.0, 6.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 7.0, 8.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 9.0, 10.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 11.0, 12.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 13.0, 14.0],
      [7.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.0]]> : tensor<8x8xf32>
    // One full row, two short ones, five empty.
    %skewed = arith.constant dense<[
      [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0]]> : tensor<8x8xf32>
    vector.print str "even: route "
    call @check(%even) : (tensor<8x8xf32>) -> ()
    vector.print str "skewed: route "
    call @check(%skewed) : (tensor<8x8xf32>) -> ()
    return
  }
}
