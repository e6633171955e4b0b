// IR annotated by sptune-extract-kernels is still ordinary sparse linalg: it
// prints, parses back, lowers with the upstream --sparsifier and computes the
// right numbers.
//
// The kernels are recognized:
// RUN: sptune-opt %s --sptune-extract-kernels | FileCheck %s --check-prefix=ANNOT
//
// Annotated, printed, parsed again, sparsified and run (with and without the
// sparse runtime library):
// RUN: sptune-opt %s --sptune-extract-kernels \
// RUN:   | sptune-opt --sparsifier="enable-runtime-library=true" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN:   | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels \
// RUN:   | sptune-opt --sparsifier="enable-runtime-library=false" \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN:   | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>,  // S (sampling)
                   affine_map<(i, j, k) -> (i, k)>,  // A
                   affine_map<(i, j, k) -> (k, j)>,  // B
                   affine_map<(i, j, k) -> (i, j)>], // X (out)
  iterator_types = ["parallel", "parallel", "reduction"]
}

#spy = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,  // A
                   affine_map<(i, j, k) -> (k, j)>,  // B
                   affine_map<(i, j, k) -> (i, j)>], // S (in/out)
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  // ANNOT-LABEL: func.func @spmm
  // ANNOT: linalg.matmul {sptune.kernel = #sptune.kernel<spmm, loops = [i : 4, j : 3, k : 6]
  func.func @spmm(%a: tensor<4x6xf64, #CSR>, %b: tensor<6x3xf64>,
                  %c: tensor<4x3xf64>) -> tensor<4x3xf64> {
    %0 = linalg.matmul ins(%a, %b : tensor<4x6xf64, #CSR>, tensor<6x3xf64>)
                       outs(%c : tensor<4x3xf64>) -> tensor<4x3xf64>
    return %0 : tensor<4x3xf64>
  }

  // ANNOT-LABEL: func.func @sddmm
  // ANNOT: sptune.kernel = #sptune.kernel<sddmm, loops = [i : 3, j : 4, k : 2], operands = [sparse(i, j), dense(i, k), dense(k, j), out(i, j)]
  func.func @sddmm(%s: tensor<3x4xf64, #CSR>, %a: tensor<3x2xf64>,
                   %b: tensor<2x4xf64>, %x: tensor<3x4xf64>) -> tensor<3x4xf64> {
    %0 = linalg.generic #sddmm
        ins(%s, %a, %b : tensor<3x4xf64, #CSR>, tensor<3x2xf64>, tensor<2x4xf64>)
        outs(%x : tensor<3x4xf64>) {
    ^bb0(%sv: f64, %av: f64, %bv: f64, %xv: f64):
      %p = arith.mulf %av, %bv : f64
      %q = arith.mulf %sv, %p : f64
      %r = arith.addf %xv, %q : f64
      linalg.yield %r : f64
    } -> tensor<3x4xf64>
    return %0 : tensor<3x4xf64>
  }

  // ANNOT-LABEL: func.func @sddmm_spy
  // ANNOT: sptune.kernel = #sptune.kernel<sddmm, loops = [i : 3, j : 4, k : 2], operands = [dense(i, k), dense(k, j), sparse_out(i, j)]
  func.func @sddmm_spy(%s: tensor<3x4xf64, #CSR>, %a: tensor<3x2xf64>,
                       %b: tensor<2x4xf64>) -> tensor<3x4xf64, #CSR> {
    %0 = linalg.generic #spy
        ins(%a, %b : tensor<3x2xf64>, tensor<2x4xf64>)
        outs(%s : tensor<3x4xf64, #CSR>) {
    ^bb0(%av: f64, %bv: f64, %sv: f64):
      %f0 = arith.constant 0.0 : f64
      %u = sparse_tensor.unary %sv : f64 to f64
        present = {
          ^bb0(%p: f64):
            %m = arith.mulf %av, %bv : f64
            sparse_tensor.yield %m : f64
        }
        absent = {}
      %r = sparse_tensor.reduce %sv, %u, %f0 : f64 {
        ^bb0(%p: f64, %q: f64):
          %add = arith.addf %p, %q : f64
          sparse_tensor.yield %add : f64
      }
      linalg.yield %r : f64
    } -> tensor<3x4xf64, #CSR>
    return %0 : tensor<3x4xf64, #CSR>
  }

  // ANNOT-LABEL: func.func @spmv
  // ANNOT: linalg.matvec {sptune.kernel = #sptune.kernel<spmv, loops = [i : 4, k : 6]
  func.func @spmv(%a: tensor<4x6xf64, #CSR>, %x: tensor<6xf64>,
                  %y: tensor<4xf64>) -> tensor<4xf64> {
    %0 = linalg.matvec ins(%a, %x : tensor<4x6xf64, #CSR>, tensor<6xf64>)
                       outs(%y : tensor<4xf64>) -> tensor<4xf64>
    return %0 : tensor<4xf64>
  }

  // ANNOT-LABEL: func.func @main
  // ANNOT-NOT: sptune.kernel
  func.func @main() {
    %c0 = arith.constant 0 : index
    %d0 = arith.constant 0.0 : f64

    //     | 1 0 0 2 0 0 |
    // A = | 0 3 0 0 0 0 |
    //     | 0 0 0 0 0 0 |
    //     | 4 0 0 0 5 6 |
    %ad = arith.constant dense<[[1.0, 0.0, 0.0, 2.0, 0.0, 0.0],
                                [0.0, 3.0, 0.0, 0.0, 0.0, 0.0],
                                [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                                [4.0, 0.0, 0.0, 0.0, 5.0, 6.0]]> : tensor<4x6xf64>
    %a = sparse_tensor.convert %ad : tensor<4x6xf64> to tensor<4x6xf64, #CSR>

    // SpMM, C = A * B with B(k, j) = 3k + j + 1:
    //   row 0 = 1*(1,2,3) + 2*(10,11,12)                 = (21, 24, 27)
    //   row 1 = 3*(4,5,6)                                 = (12, 15, 18)
    //   row 2 = 0
    //   row 3 = 4*(1,2,3) + 5*(13,14,15) + 6*(16,17,18)   = (165, 180, 195)
    %b = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0],
                               [7.0, 8.0, 9.0], [10.0, 11.0, 12.0],
                               [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]> : tensor<6x3xf64>
    %c = arith.constant dense<0.0> : tensor<4x3xf64>
    %0 = call @spmm(%a, %b, %c)
        : (tensor<4x6xf64, #CSR>, tensor<6x3xf64>, tensor<4x3xf64>) -> tensor<4x3xf64>
    // CHECK:      ( ( 21, 24, 27 ), ( 12, 15, 18 ), ( 0, 0, 0 ), ( 165, 180, 195 ) )
    %v0 = vector.transfer_read %0[%c0, %c0], %d0 : tensor<4x3xf64>, vector<4x3xf64>
    vector.print %v0 : vector<4x3xf64>

    // SDDMM, X = S .* (P * Q):
    //           | 1 0 0 2 |       | 1 2 |       | 1 0 1 0 |           | 1 2 1 2 |
    //       S = | 0 0 0 0 |,  P = | 3 4 |,  Q = | 0 1 0 1 |,  P * Q = | 3 4 3 4 |
    //           | 0 3 0 0 |       | 5 6 |                              | 5 6 5 6 |
    // so X = ((1, 0, 0, 4), (0, 0, 0, 0), (0, 18, 0, 0)).
    %sd = arith.constant dense<[[1.0, 0.0, 0.0, 2.0],
                                [0.0, 0.0, 0.0, 0.0],
                                [0.0, 3.0, 0.0, 0.0]]> : tensor<3x4xf64>
    %s = sparse_tensor.convert %sd : tensor<3x4xf64> to tensor<3x4xf64, #CSR>
    %p = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
    %q = arith.constant dense<[[1.0, 0.0, 1.0, 0.0],
                               [0.0, 1.0, 0.0, 1.0]]> : tensor<2x4xf64>
    %x = arith.constant dense<0.0> : tensor<3x4xf64>
    %1 = call @sddmm(%s, %p, %q, %x)
        : (tensor<3x4xf64, #CSR>, tensor<3x2xf64>, tensor<2x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
    // CHECK-NEXT: ( ( 1, 0, 0, 4 ), ( 0, 0, 0, 0 ), ( 0, 18, 0, 0 ) )
    %v1 = vector.transfer_read %1[%c0, %c0], %d0 : tensor<3x4xf64>, vector<3x4xf64>
    vector.print %v1 : vector<3x4xf64>

    // SDDMM in place (spy): S(i,j) += (P * Q)(i,j) where S is stored, so the
    // entries (0,0), (0,3), (2,1) become 1+1, 2+2, 3+6.
    %s2 = sparse_tensor.convert %sd : tensor<3x4xf64> to tensor<3x4xf64, #CSR>
    %2 = call @sddmm_spy(%s2, %p, %q)
        : (tensor<3x4xf64, #CSR>, tensor<3x2xf64>, tensor<2x4xf64>) -> tensor<3x4xf64, #CSR>
    // CHECK-NEXT: ---- Sparse Tensor ----
    // CHECK-NEXT: nse = 3
    // CHECK-NEXT: dim = ( 3, 4 )
    // CHECK-NEXT: lvl = ( 3, 4 )
    // CHECK-NEXT: pos[1] : ( 0, 2, 2, 3 )
    // CHECK-NEXT: crd[1] : ( 0, 3, 1 )
    // CHECK-NEXT: values : ( 2, 4, 9 )
    // CHECK-NEXT: ----
    sparse_tensor.print %2 : tensor<3x4xf64, #CSR>

    // SpMV, y = A * x + y0 with x = (1, ..., 6), y0 = (1, 1, 1, 1):
    //   y = (1*1 + 2*4 + 1, 3*2 + 1, 0 + 1, 4*1 + 5*5 + 6*6 + 1) = (10, 7, 1, 66)
    %xv = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf64>
    %y0 = arith.constant dense<1.0> : tensor<4xf64>
    %3 = call @spmv(%a, %xv, %y0)
        : (tensor<4x6xf64, #CSR>, tensor<6xf64>, tensor<4xf64>) -> tensor<4xf64>
    // CHECK-NEXT: ( 10, 7, 1, 66 )
    %v3 = vector.transfer_read %3[%c0], %d0 : tensor<4xf64>, vector<4xf64>
    vector.print %v3 : vector<4xf64>

    bufferization.dealloc_tensor %a : tensor<4x6xf64, #CSR>
    bufferization.dealloc_tensor %s : tensor<3x4xf64, #CSR>
    bufferization.dealloc_tensor %2 : tensor<3x4xf64, #CSR>
    return
  }
}
