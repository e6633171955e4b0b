// The JSON report of sptune-extract-kernels (schema: docs/kernel-report.md).
//
// To stdout, and valid JSON:
// RUN: sptune-opt %s --sptune-extract-kernels=report=- -o /dev/null | FileCheck %s
// RUN: sptune-opt %s --sptune-extract-kernels=report=- -o /dev/null | %python -m json.tool > /dev/null
//
// To a file, the same document:
// RUN: rm -f %t.json
// RUN: sptune-opt %s --sptune-extract-kernels=report=%t.json -o /dev/null
// RUN: cat %t.json | FileCheck %s
//
// No kernel: an empty list, still versioned.
// RUN: echo 'module {}' | sptune-opt --sptune-extract-kernels=report=- -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=EMPTY
// EMPTY:      {
// EMPTY-NEXT:   "version": 1,
// EMPTY-NEXT:   "kernels": [],
// EMPTY-NEXT:   "unrecognized": []
// EMPTY-NEXT: }
// A report that cannot be written is an error and fails the pass.
// RUN: not sptune-opt %s --sptune-extract-kernels=report=%t.missing-dir/r.json -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR
// ERR: error: sptune: cannot write report '{{.*}}.missing-dir/r.json':

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

#trait_SDDMM = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>,
                   affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}

#spmm_kij = {
  indexing_maps = [affine_map<(k, i, j) -> (i, k)>,
                   affine_map<(k, i, j) -> (k, j)>,
                   affine_map<(k, i, j) -> (i, j)>],
  iterator_types = ["reduction", "parallel", "parallel"]
}

// CHECK:      {
// CHECK-NEXT:   "version": 1,
// CHECK-NEXT:   "kernels": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "function": "spmm",
// CHECK-NEXT:       "location": "{{.*}}extract-report.mlir:[[@LINE+54]]:8",
// CHECK-NEXT:       "op": "linalg.matmul",
// CHECK-NEXT:       "kind": "spmm",
// CHECK:            "element_type": "f32",
// CHECK-NEXT:       "loops": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "role": "i",
// CHECK-NEXT:           "size": null
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "role": "j",
// CHECK-NEXT:           "size": 64
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "role": "k",
// CHECK-NEXT:           "size": 32
// CHECK-NEXT:         }
// CHECK-NEXT:       ],
// CHECK-NEXT:       "loop_order": [
// CHECK-NEXT:         "i",
// CHECK-NEXT:         "j",
// CHECK-NEXT:         "k"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "sparse_operand": 0,
// CHECK-NEXT:       "encoding": "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>",
// CHECK-NEXT:       "operands": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 0,
// CHECK-NEXT:           "kind": "sparse",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "i",
// CHECK-NEXT:             "k"
// CHECK-NEXT:           ],
// CHECK-NEXT:           "shape": [
// CHECK-NEXT:             null,
// CHECK-NEXT:             null
// CHECK-NEXT:           ],
// CHECK-NEXT:           "type": "tensor<?x?xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>"
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 1,
// CHECK-NEXT:           "kind": "dense",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "k",
// CHECK-NEXT:             "j"
// CHECK-NEXT:           ],
// CHECK-NEXT:           "shape": [
// CHECK-NEXT:             32,
// CHECK-NEXT:             64
// CHECK-NEXT:           ],
// CHECK-NEXT:           "type": "tensor<32x64xf32>"
// CHECK-NEXT:         },
func.func @spmm(%a: tensor<?x?xf32, #CSR>, %b: tensor<32x64xf32>,
                %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32, #CSR>, tensor<32x64xf32>)
                     outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 2,
// CHECK-NEXT:           "kind": "out",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "i",
// CHECK-NEXT:             "j"
// CHECK-NEXT:           ],
// CHECK-NEXT:           "shape": [
// CHECK-NEXT:             null,
// CHECK-NEXT:             64
// CHECK-NEXT:           ],
// CHECK-NEXT:           "type": "tensor<?x64xf32>"
// CHECK-NEXT:         }
// CHECK-NEXT:       ]
// CHECK-NEXT:     },

// A second kernel in the same function, after a dense op: in program order,
// its loop order is k, i, j and its sparse operand is on the right.
// CHECK-NEXT:     {
// CHECK-NEXT:       "function": "two_kernels",
// CHECK-NEXT:       "location": "{{.*}}extract-report.mlir:[[@LINE+57]]:8",
// CHECK-NEXT:       "op": "linalg.generic",
// CHECK-NEXT:       "kind": "spmm",
// CHECK:            "element_type": "f64",
// CHECK:            "loop_order": [
// CHECK-NEXT:         "k",
// CHECK-NEXT:         "i",
// CHECK-NEXT:         "j"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "sparse_operand": 0,
// CHECK:            "operands": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 0,
// CHECK-NEXT:           "kind": "sparse",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "i",
// CHECK-NEXT:             "k"
// CHECK-NEXT:           ],
// CHECK:              "index": 1,
// CHECK-NEXT:           "kind": "dense",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "k",
// CHECK-NEXT:             "j"
// CHECK-NEXT:           ],
// CHECK-NEXT:           "shape": [
// CHECK-NEXT:             4,
// CHECK-NEXT:             8
// CHECK-NEXT:           ],
// CHECK-NEXT:           "type": "tensor<4x8xf64>"
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "index": 2,
// CHECK-NEXT:           "kind": "out",
// CHECK:                "type": "tensor<8x8xf64>"
// CHECK-NEXT:         }
// CHECK-NEXT:       ]
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "function": "two_kernels",
// CHECK-NEXT:       "location": "{{.*}}extract-report.mlir:[[@LINE+28]]:8",
// CHECK-NEXT:       "op": "linalg.matmul",
// CHECK-NEXT:       "kind": "spmm",
// CHECK:            "loop_order": [
// CHECK-NEXT:         "j",
// CHECK-NEXT:         "i",
// CHECK-NEXT:         "k"
// CHECK-NEXT:       ],
// CHECK-NEXT:       "sparse_operand": 1,
// CHECK:              "kind": "sparse",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "k",
// CHECK-NEXT:             "i"
// CHECK-NEXT:           ],
func.func @two_kernels(%a: tensor<8x4xf64, #CSR>, %b: tensor<4x8xf64>,
                       %c: tensor<8x8xf64>, %d: tensor<8x4xf64>,
                       %t: tensor<4x8xf64, #CSR>)
    -> (tensor<8x8xf64>, tensor<8x8xf64>) {
  %0 = linalg.generic #spmm_kij
      ins(%a, %b : tensor<8x4xf64, #CSR>, tensor<4x8xf64>)
      outs(%c : tensor<8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %z, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x8xf64>
  %1 = linalg.matmul ins(%d, %b : tensor<8x4xf64>, tensor<4x8xf64>)
                     outs(%c : tensor<8x8xf64>) -> tensor<8x8xf64>
  %2 = linalg.matmul ins(%d, %t : tensor<8x4xf64>, tensor<4x8xf64, #CSR>)
                     outs(%1 : tensor<8x8xf64>) -> tensor<8x8xf64>
  return %0, %2 : tensor<8x8xf64>, tensor<8x8xf64>
}

// An SDDMM in the in-place spy form: the sparse operand is the output.
// CHECK:            "function": "sddmm",
// CHECK-NEXT:       "location": "{{.*}}extract-report.mlir:[[@LINE+14]]:13",
// CHECK-NEXT:       "op": "linalg.generic",
// CHECK-NEXT:       "kind": "sddmm",
// CHECK:            "element_type": "f32",
// CHECK:            "sparse_operand": 2,
// CHECK-NEXT:       "encoding": "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>",
// CHECK:              "index": 2,
// CHECK-NEXT:           "kind": "sparse_out",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "i",
// CHECK-NEXT:             "j"
// CHECK-NEXT:           ],
func.func @sddmm(%args: tensor<?x?xf32, #CSR>, %arga: tensor<?x?xf32>,
                 %argb: tensor<?x?xf32>) -> tensor<?x?xf32, #CSR> {
  %result = linalg.generic #trait_SDDMM
    ins(%arga, %argb : tensor<?x?xf32>, tensor<?x?xf32>)
    outs(%args : tensor<?x?xf32, #CSR>) {
      ^bb(%a: f32, %b: f32, %s: f32):
         %f0 = arith.constant 0.0 : f32
         %u = sparse_tensor.unary %s : f32 to f32
           present = {
              ^bb0(%p: f32):
                %mul = arith.mulf %a, %b : f32
                sparse_tensor.yield %mul : f32
           }
           absent = {}
         %r = sparse_tensor.reduce %s, %u, %f0 : f32 {
            ^bb0(%p: f32, %q: f32):
              %add = arith.addf %p, %q : f32
              sparse_tensor.yield %add : f32
          }
         linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
  return %result : tensor<?x?xf32, #CSR>
}

// An SpMV: two loops, rank-1 dense operand and output.
// CHECK:            "function": "spmv",
// CHECK-NEXT:       "location": "{{.*}}extract-report.mlir:[[@LINE+23]]:8",
// CHECK-NEXT:       "op": "linalg.matvec",
// CHECK-NEXT:       "kind": "spmv",
// CHECK:            "element_type": "f64",
// CHECK-NEXT:       "loops": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "role": "i",
// CHECK-NEXT:           "size": 16
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "role": "k",
// CHECK-NEXT:           "size": null
// CHECK-NEXT:         }
// CHECK-NEXT:       ],
// CHECK:              "kind": "dense",
// CHECK-NEXT:           "dims": [
// CHECK-NEXT:             "k"
// CHECK-NEXT:           ],
// CHECK-NEXT:           "shape": [
// CHECK-NEXT:             null
// CHECK-NEXT:           ],
func.func @spmv(%a: tensor<16x?xf64, #CSR>, %x: tensor<?xf64>,
                %y: tensor<16xf64>) -> tensor<16xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<16x?xf64, #CSR>, tensor<?xf64>)
                     outs(%y : tensor<16xf64>) -> tensor<16xf64>
  return %0 : tensor<16xf64>
}
// CHECK:                "type": "tensor<16xf64>"
// CHECK-NEXT:         }
// CHECK-NEXT:       ]
// CHECK-NEXT:     }
// CHECK-NEXT:   ],
// CHECK-NEXT:   "unrecognized": []
// CHECK-NEXT: }
// CHECK-EMPTY:
