// How sptune's MTTKRP kernel sums a slice over CSF (targets/cpu/
// FactoredMttkrp.h), made visible by overflow: C = 1e200, D = 1e-200 and
// values of +-1e200. Factored, a fiber's sum of B D (+-1 each) is formed
// before C multiplies it; entry-wise, B C (+-inf) comes first. `auto`
// estimates the entry-weighted fiber length from sampled entries: a slice
// of one fiber of 12 entries is summed factored (a finite row), fibers of
// one entry entry-wise (inf), as the forced forms show.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-FACTORED,SHORT-ENTRY
// RUN: sptune-opt %s --sptune-lower-cpu=mttkrp-form=factored | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-FACTORED,SHORT-FACTORED
// RUN: sptune-opt %s --sptune-lower-cpu=mttkrp-form=entry-wise | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-ENTRY,SHORT-ENTRY
//
// Scheduled (the kernel type `mttkrp`): the heuristic leaves the form to
// the kernel's rule; a schedule's `form` forces it; the lowering's option,
// given explicitly, wins over the schedule.
// DEFINE: %{schedule} = sptune-opt %s --sptune-extract-kernels --sptune-default-schedule
// DEFINE: %{lower} = sptune-opt --sptune-apply-schedule --sptune-lower-cpu
// RUN: %{schedule} | %{lower} | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-FACTORED,SHORT-ENTRY
// RUN: %{schedule} | sed -e 's/simd32 = false>/simd32 = false, form = factored>/' | %{lower} | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-FACTORED,SHORT-FACTORED
// RUN: %{schedule} | sed -e 's/parallel = outer, threads = 0, omp = static, chunk = 0, vl = 0, simd32 = false>/parallel = outer, threads = 3, form = entry_wise>/' | %{lower} | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-ENTRY,SHORT-ENTRY
// RUN: %{schedule} | sed -e 's/simd32 = false>/simd32 = false, form = factored>/' | sptune-opt --sptune-apply-schedule --sptune-lower-cpu=mttkrp-form=entry-wise | env OMP_NUM_THREADS=2 %{run} | FileCheck %s --check-prefixes=LONG-ENTRY,SHORT-ENTRY
//
// The long fiber: factored, sum_l B D is +-1 each, cancelling to (almost)
// nothing before C; entry-wise, B C overflows to +-inf and inf - inf is NaN.
// LONG-FACTORED: ( ( {{[0-9.e+]+}}, {{[0-9.e+]+}} ), ( 0, 0 ) )
// LONG-ENTRY:    ( ( {{-?nan}}, {{-?nan}} ), ( 0, 0 ) )
// Fibers of one entry: factored, (B D) C = 1e200 per entry; entry-wise,
// (B C) D = inf.
// SHORT-FACTORED-NEXT: ( ( 2e+200, 2e+200 ), ( 1e+200, 1e+200 ) )
// SHORT-ENTRY-NEXT:    ( ( inf, inf ), ( inf, inf ) )
// The same with dense slices (the fibers searched from the first slice's).
// LONG-FACTORED-NEXT: ( ( {{[0-9.e+]+}}, {{[0-9.e+]+}} ), ( 0, 0 ) )
// LONG-ENTRY-NEXT:    ( ( {{-?nan}}, {{-?nan}} ), ( 0, 0 ) )
// SHORT-FACTORED-NEXT: ( ( 2e+200, 2e+200 ), ( 1e+200, 1e+200 ) )
// SHORT-ENTRY-NEXT:    ( ( inf, inf ), ( inf, inf ) )

#CSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : compressed, k : compressed, l : compressed) }>
#DCSF = #sparse_tensor.encoding<{ map = (i, k, l) -> (i : dense, k : compressed, l : compressed) }>
#B = affine_map<(i, j, k, l) -> (i, k, l)>
#C = affine_map<(i, j, k, l) -> (k, j)>
#D = affine_map<(i, j, k, l) -> (l, j)>
#A = affine_map<(i, j, k, l) -> (i, j)>
module {
  func.func @mt(%b: tensor<2x12x12xf64, #CSF>, %c: tensor<12x2xf64>, %d: tensor<12x2xf64>) -> tensor<2x2xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x2xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<2x12x12xf64, #CSF>, tensor<12x2xf64>, tensor<12x2xf64>) outs(%a : tensor<2x2xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<2x2xf64>
    return %r : tensor<2x2xf64>
  }
  func.func @mtd(%b: tensor<2x12x12xf64, #DCSF>, %c: tensor<12x2xf64>, %d: tensor<12x2xf64>) -> tensor<2x2xf64> {
    %zero = arith.constant 0.0 : f64
    %e = tensor.empty() : tensor<2x2xf64>
    %a = linalg.fill ins(%zero : f64) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
    %r = linalg.generic {indexing_maps = [#B, #C, #D, #A], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%b, %c, %d : tensor<2x12x12xf64, #DCSF>, tensor<12x2xf64>, tensor<12x2xf64>) outs(%a : tensor<2x2xf64>) {
    ^bb0(%x: f64, %y: f64, %z: f64, %o: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.mulf %p, %z : f64
      %s = arith.addf %o, %q : f64
      linalg.yield %s : f64
    } -> tensor<2x2xf64>
    return %r : tensor<2x2xf64>
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f64
    %c = arith.constant dense<1.0e200> : tensor<12x2xf64>
    %d = arith.constant dense<1.0e-200> : tensor<12x2xf64>
    // Long: slice 0 is one fiber (k = 0) of 12 entries +-1e200.
    %long = arith.constant sparse<[[0,0,0],[0,0,1],[0,0,2],[0,0,3],[0,0,4],[0,0,5],[0,0,6],[0,0,7],[0,0,8],[0,0,9],[0,0,10],[0,0,11]],
      [1.0e200,-1.0e200,1.0e200,-1.0e200,1.0e200,-1.0e200,1.0e200,-1.0e200,1.0e200,-1.0e200,1.0e200,-1.0e200]> : tensor<2x12x12xf64>
    %bl = sparse_tensor.convert %long : tensor<2x12x12xf64> to tensor<2x12x12xf64, #CSF>
    %al = call @mt(%bl, %c, %d) : (tensor<2x12x12xf64, #CSF>, tensor<12x2xf64>, tensor<12x2xf64>) -> tensor<2x2xf64>
    %vl = vector.transfer_read %al[%c0, %c0], %z : tensor<2x2xf64>, vector<2x2xf64>
    vector.print %vl : vector<2x2xf64>
    // Short: fibers of one entry each.
    %short = arith.constant sparse<[[0,0,0],[0,1,1],[1,2,2]], [1.0e200, 1.0e200, 1.0e200]> : tensor<2x12x12xf64>
    %bs = sparse_tensor.convert %short : tensor<2x12x12xf64> to tensor<2x12x12xf64, #CSF>
    %as = call @mt(%bs, %c, %d) : (tensor<2x12x12xf64, #CSF>, tensor<12x2xf64>, tensor<12x2xf64>) -> tensor<2x2xf64>
    %vs = vector.transfer_read %as[%c0, %c0], %z : tensor<2x2xf64>, vector<2x2xf64>
    vector.print %vs : vector<2x2xf64>
    %dl = sparse_tensor.convert %long : tensor<2x12x12xf64> to tensor<2x12x12xf64, #DCSF>
    %adl = call @mtd(%dl, %c, %d) : (tensor<2x12x12xf64, #DCSF>, tensor<12x2xf64>, tensor<12x2xf64>) -> tensor<2x2xf64>
    %vdl = vector.transfer_read %adl[%c0, %c0], %z : tensor<2x2xf64>, vector<2x2xf64>
    vector.print %vdl : vector<2x2xf64>
    %ds = sparse_tensor.convert %short : tensor<2x12x12xf64> to tensor<2x12x12xf64, #DCSF>
    %ads = call @mtd(%ds, %c, %d) : (tensor<2x12x12xf64, #DCSF>, tensor<12x2xf64>, tensor<12x2xf64>) -> tensor<2x2xf64>
    %vds = vector.transfer_read %ads[%c0, %c0], %z : tensor<2x2xf64>, vector<2x2xf64>
    vector.print %vds : vector<2x2xf64>
    return
  }
}
