// Executed SDDMM whose in-kernel B^T (32768 x 64 f32, 8 MiB) is allocated on
// a 2 MiB boundary and advised onto transparent huge pages
// (sptune-huge-page-buffers, part of sptune-lower-cpu on Linux), compared
// with the same product computed densely; with the pass off, and with a
// threshold that also moves the small buffers (S's copy) to 2 MiB
// boundaries.
//
// REQUIRES: system-linux
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
//
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=huge-page-bytes=0 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu=huge-page-bytes=64 | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-apply-schedule --sptune-lower-cpu -o /dev/null --mlir-print-ir-after=sptune-huge-page-buffers 2>&1 | FileCheck %s --check-prefix=IR
// IR: func.call @madvise

// The largest difference from the dense product, then the stored entries.
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: 40

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#sddmm = {
  indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>,
                   affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
#sample = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"]
}

module {
  func.func @sddmm(%s: tensor<4x32768xf32, #CSR>, %a: tensor<4x64xf32>, %b: tensor<64x32768xf32>) -> tensor<4x32768xf32, #CSR> {
    %e = tensor.empty() : tensor<4x32768xf32, #CSR>
    %0 = linalg.generic #sddmm {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 4, j : 32768, k : 64], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, vl = 16>}
      ins(%s, %a, %b : tensor<4x32768xf32, #CSR>, tensor<4x64xf32>, tensor<64x32768xf32>) outs(%e : tensor<4x32768xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<4x32768xf32, #CSR>
    return %0 : tensor<4x32768xf32, #CSR>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : index
    %c70 = arith.constant 70 : index
    %c8000 = arith.constant 8000 : index
    %zero = arith.constant 0.0 : f32
    // S(i, j) = m + 1 at j = 8000 i + 7 m, m = 0..9: ten entries per row.
    %d = tensor.generate {
    ^bb0(%i: index, %j: index):
      %first = arith.muli %i, %c8000 : index
      %off = arith.subi %j, %first : index
      %ge = arith.cmpi sge, %off, %c0 : index
      %lt = arith.cmpi slt, %off, %c70 : index
      %rem = arith.remsi %off, %c7 : index
      %on7 = arith.cmpi eq, %rem, %c0 : index
      %in = arith.andi %ge, %lt : i1
      %hit = arith.andi %in, %on7 : i1
      %m = arith.divsi %off, %c7 : index
      %mi = arith.index_cast %m : index to i32
      %mf = arith.sitofp %mi : i32 to f32
      %one = arith.constant 1.0 : f32
      %v = arith.addf %mf, %one : f32
      %r = arith.select %hit, %v, %zero : f32
      tensor.yield %r : f32
    } : tensor<4x32768xf32>
    %s = sparse_tensor.convert %d : tensor<4x32768xf32> to tensor<4x32768xf32, #CSR>
    // A(i, k) = (i + k) mod 5 - 2, B(k, j) = (k + j) mod 7 - 3.
    %a = tensor.generate {
    ^bb0(%i: index, %k: index):
      %c5 = arith.constant 5 : index
      %lin = arith.addi %i, %k : index
      %m = arith.remui %lin, %c5 : index
      %n = arith.index_cast %m : index to i32
      %f = arith.sitofp %n : i32 to f32
      %two = arith.constant 2.0 : f32
      %v = arith.subf %f, %two : f32
      tensor.yield %v : f32
    } : tensor<4x64xf32>
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %lin = arith.addi %k, %j : index
      %m = arith.remui %lin, %c7 : index
      %n = arith.index_cast %m : index to i32
      %f = arith.sitofp %n : i32 to f32
      %three = arith.constant 3.0 : f32
      %v = arith.subf %f, %three : f32
      tensor.yield %v : f32
    } : tensor<64x32768xf32>
    %x = call @sddmm(%s, %a, %b) : (tensor<4x32768xf32, #CSR>, tensor<4x64xf32>, tensor<64x32768xf32>) -> tensor<4x32768xf32, #CSR>
    %xd = sparse_tensor.convert %x : tensor<4x32768xf32, #CSR> to tensor<4x32768xf32>

    %e0 = tensor.empty() : tensor<4x32768xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x32768xf32>) -> tensor<4x32768xf32>
    %ab = linalg.matmul ins(%a, %b : tensor<4x64xf32>, tensor<64x32768xf32>) outs(%z : tensor<4x32768xf32>) -> tensor<4x32768xf32>
    %e1 = tensor.empty() : tensor<4x32768xf32>
    %want = linalg.generic #sample ins(%d, %ab : tensor<4x32768xf32>, tensor<4x32768xf32>) outs(%e1 : tensor<4x32768xf32>) {
      ^bb0(%sv: f32, %v: f32, %o: f32):
        %m = arith.mulf %sv, %v : f32
        linalg.yield %m : f32
    } -> tensor<4x32768xf32>
    %acc0 = tensor.empty() : tensor<f32>
    %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
    %diff = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
        iterator_types = ["reduction", "reduction"]}
        ins(%xd, %want : tensor<4x32768xf32>, tensor<4x32768xf32>) outs(%acc : tensor<f32>) {
      ^bb0(%u: f32, %w: f32, %mx0: f32):
        %t = arith.subf %u, %w : f32
        %abs = math.absf %t : f32
        %mx = arith.maximumf %abs, %mx0 : f32
        linalg.yield %mx : f32
    } -> tensor<f32>
    %dv = tensor.extract %diff[] : tensor<f32>
    vector.print %dv : f32
    %nnz = sparse_tensor.number_of_entries %x : tensor<4x32768xf32, #CSR>
    vector.print %nnz : index
    bufferization.dealloc_tensor %s : tensor<4x32768xf32, #CSR>
    bufferization.dealloc_tensor %x : tensor<4x32768xf32, #CSR>
    return
  }
}
