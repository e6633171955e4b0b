// Executed SDDMM, X = S .* (A * B) with X sparse sharing S's pattern, whose
// dot products are factored (S(i, j) multiplies each sum once,
// sptune-factor-reductions) and interleaved (several stored entries of a
// row at once, sptune-jam-reductions), on rows of 0 to 11 stored entries:
// rows shorter than the factor run in the remainder loop only, longer ones in
// both. K = 24, known or dynamic. The result is compared with the same product computed
// densely, unscheduled; all values are small integers, exact in f32.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
//
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], parallel = outer, vl = 16/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, threads = 2, omp = balanced, vl = 8/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i : compressed, j : compressed], order = [i, j, k], layout = [a : k, b : k], vl = 4/' %s | %{lower} | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : dense], split = [2, 2], order = [i1, j1, i0, j0, k], layout = [b : k], parallel = outer/' %s | %{lower} | %{run} | FileCheck %s
// Other factors, and none (jam = 1), through the pipeline's option.
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, vl = 8/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=jam=3 | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], vl = 8/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=jam=8 | %{run} | FileCheck %s
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], vl = 8/' %s | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=jam=1 | %{run} | FileCheck %s
// The passes are what the dot products go through.
// RUN: sed 's/SCHEDULE/cpu sddmm, order = [i, j, k], layout = [b : k], parallel = outer, vl = 8/' %s | sptune-opt --sptune-apply-schedule --linalg-generalize-named-ops --sptune-cpu-sparsify --cse --canonicalize --sptune-factor-reductions=remarks=true --sptune-jam-reductions=remarks=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: sptune: 1 sum(s) multiplied by their loop-invariant factor once
// REMARK: remark: sptune: 4 iterations interleaved around the reduction loop
// REMARK: remark: sptune: 1 sum(s) multiplied by their loop-invariant factor once
// REMARK: remark: sptune: 4 iterations interleaved around the reduction loop

// The largest difference from the dense product, then the stored entries.
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: 61
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: 61

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
  func.func @sddmm(%s: tensor<12x12xf32, #CSR>, %a: tensor<12x24xf32>, %b: tensor<24x12xf32>) -> tensor<12x12xf32, #CSR> {
    %e = tensor.empty() : tensor<12x12xf32, #CSR>
    %0 = linalg.generic #sddmm {sptune.kernel = #sptune.kernel<sddmm, loops = [i : 12, j : 12, k : 24], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%s, %a, %b : tensor<12x12xf32, #CSR>, tensor<12x24xf32>, tensor<24x12xf32>) outs(%e : tensor<12x12xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<12x12xf32, #CSR>
    return %0 : tensor<12x12xf32, #CSR>
  }

  // The same with every size dynamic: K is unknown, so the loop over k may
  // not run, and the factored product is guarded by whether it does.
  func.func @sddmm_dyn(%s: tensor<?x?xf32, #CSR>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32, #CSR> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %s, %c0 : tensor<?x?xf32, #CSR>
    %n = tensor.dim %s, %c1 : tensor<?x?xf32, #CSR>
    %e = tensor.empty(%m, %n) : tensor<?x?xf32, #CSR>
    %0 = linalg.generic #sddmm {sptune.kernel = #sptune.kernel<sddmm, loops = [i : ?, j : ?, k : ?], operands = [sparse(i, j), dense(i, k), dense(k, j), sparse_out(i, j)], type = f32, encoding = #CSR>, sptune.schedule = #sptune.schedule<SCHEDULE>}
      ins(%s, %a, %b : tensor<?x?xf32, #CSR>, tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32, #CSR>) {
    ^bb0(%sv: f32, %av: f32, %bv: f32, %xv: f32):
      %p = arith.mulf %av, %bv : f32
      %q = arith.mulf %sv, %p : f32
      %r = arith.addf %xv, %q : f32
      linalg.yield %r : f32
    } -> tensor<?x?xf32, #CSR>
    return %0 : tensor<?x?xf32, #CSR>
  }

  func.func @main() {
    // Rows 0 to 10 hold 0 to 9 and 11 stored entries, row 11 five.
    %d = arith.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, -4.0, 0.0, 0.0], [0.0, 0.0, -2.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, -2.0, 3.0, 0.0], [-2.0, 0.0, 0.0, -1.0, 2.0, 0.0, 0.0, 1.0, 0.0, -3.0, 0.0, 0.0], [0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, -2.0, -3.0, -4.0, -1.0, -2.0], [-4.0, 0.0, 2.0, -3.0, 0.0, 1.0, -2.0, 0.0, 0.0, 0.0, 2.0, 3.0], [-1.0, 2.0, 3.0, 0.0, 1.0, 0.0, -3.0, 0.0, 1.0, -2.0, 3.0, 0.0], [0.0, -3.0, 0.0, -1.0, -2.0, -3.0, -4.0, -1.0, -2.0, -3.0, -4.0, 0.0], [-3.0, 4.0, 1.0, -2.0, 3.0, 4.0, -1.0, 2.0, 3.0, 0.0, 1.0, 2.0], [0.0, 0.0, 0.0, -3.0, 0.0, 1.0, -2.0, 0.0, 4.0, -1.0, 0.0, 0.0]]> : tensor<12x12xf32>
    %s = sparse_tensor.convert %d : tensor<12x12xf32> to tensor<12x12xf32, #CSR>
    // A(i, k) = (i * 24 + k) mod 5 - 2, B(k, j) = (k * 12 + j) mod 7 - 3.
    %a = tensor.generate {
    ^bb0(%i: index, %k: index):
      %c24 = arith.constant 24 : index
      %c5 = arith.constant 5 : index
      %row = arith.muli %i, %c24 : index
      %lin = arith.addi %row, %k : index
      %m = arith.remui %lin, %c5 : index
      %n = arith.index_cast %m : index to i32
      %f = arith.sitofp %n : i32 to f32
      %two = arith.constant 2.0 : f32
      %v = arith.subf %f, %two : f32
      tensor.yield %v : f32
    } : tensor<12x24xf32>
    %b = tensor.generate {
    ^bb0(%k: index, %j: index):
      %c12 = arith.constant 12 : index
      %c7 = arith.constant 7 : index
      %row = arith.muli %k, %c12 : index
      %lin = arith.addi %row, %j : index
      %m = arith.remui %lin, %c7 : index
      %n = arith.index_cast %m : index to i32
      %f = arith.sitofp %n : i32 to f32
      %three = arith.constant 3.0 : f32
      %v = arith.subf %f, %three : f32
      tensor.yield %v : f32
    } : tensor<24x12xf32>
    %x = call @sddmm(%s, %a, %b) : (tensor<12x12xf32, #CSR>, tensor<12x24xf32>, tensor<24x12xf32>) -> tensor<12x12xf32, #CSR>
    %xd = sparse_tensor.convert %x : tensor<12x12xf32, #CSR> to tensor<12x12xf32>

    // The dense reference: S .* (A * B).
    %zero = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<12x12xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<12x12xf32>) -> tensor<12x12xf32>
    %ab = linalg.matmul ins(%a, %b : tensor<12x24xf32>, tensor<24x12xf32>) outs(%z : tensor<12x12xf32>) -> tensor<12x12xf32>
    %e1 = tensor.empty() : tensor<12x12xf32>
    %want = linalg.generic #sample ins(%d, %ab : tensor<12x12xf32>, tensor<12x12xf32>) outs(%e1 : tensor<12x12xf32>) {
      ^bb0(%sv: f32, %v: f32, %o: f32):
        %m = arith.mulf %sv, %v : f32
        linalg.yield %m : f32
    } -> tensor<12x12xf32>

    // max |X - want|
    %acc0 = tensor.empty() : tensor<f32>
    %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
    %diff = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
        iterator_types = ["reduction", "reduction"]}
        ins(%xd, %want : tensor<12x12xf32>, tensor<12x12xf32>) outs(%acc : tensor<f32>) {
      ^bb0(%u: f32, %w: f32, %m: f32):
        %t = arith.subf %u, %w : f32
        %abs = math.absf %t : f32
        %mx = arith.maximumf %abs, %m : f32
        linalg.yield %mx : f32
    } -> tensor<f32>
    %dv = tensor.extract %diff[] : tensor<f32>
    vector.print %dv : f32
    %nnz = sparse_tensor.number_of_entries %x : tensor<12x12xf32, #CSR>
    vector.print %nnz : index

    // Dynamic sizes: the same result.
    %sdyn = sparse_tensor.convert %d : tensor<12x12xf32> to tensor<?x?xf32, #CSR>
    %adyn = tensor.cast %a : tensor<12x24xf32> to tensor<?x?xf32>
    %bdyn = tensor.cast %b : tensor<24x12xf32> to tensor<?x?xf32>
    %y = call @sddmm_dyn(%sdyn, %adyn, %bdyn) : (tensor<?x?xf32, #CSR>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32, #CSR>
    %yd0 = sparse_tensor.convert %y : tensor<?x?xf32, #CSR> to tensor<?x?xf32>
    %yd = tensor.cast %yd0 : tensor<?x?xf32> to tensor<12x12xf32>
    %acc1 = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<f32>) -> tensor<f32>
    %diff1 = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
        iterator_types = ["reduction", "reduction"]}
        ins(%yd, %want : tensor<12x12xf32>, tensor<12x12xf32>) outs(%acc1 : tensor<f32>) {
      ^bb0(%u: f32, %w: f32, %m: f32):
        %t = arith.subf %u, %w : f32
        %abs = math.absf %t : f32
        %mx = arith.maximumf %abs, %m : f32
        linalg.yield %mx : f32
    } -> tensor<f32>
    %dv1 = tensor.extract %diff1[] : tensor<f32>
    vector.print %dv1 : f32
    %nnz1 = sparse_tensor.number_of_entries %y : tensor<?x?xf32, #CSR>
    vector.print %nnz1 : index
    bufferization.dealloc_tensor %sdyn : tensor<?x?xf32, #CSR>
    bufferization.dealloc_tensor %y : tensor<?x?xf32, #CSR>
    bufferization.dealloc_tensor %s : tensor<12x12xf32, #CSR>
    bufferization.dealloc_tensor %x : tensor<12x12xf32, #CSR>
    return
  }
}
