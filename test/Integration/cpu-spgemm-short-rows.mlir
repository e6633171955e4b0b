// Rows of C whose columns lie too far apart for the Gustavson kernel's bit
// set to be read off (more than four words of 64 columns per column), so
// they are sorted: up to 16 columns by the kernel's rank sort in one vector
// (each column placed at the count of the row's columns below it), up to 32
// in two, more by upstream's sort (targets/cpu/GustavsonSpgemm.cpp,
// sortColumns). C = A B with B of 100,000 columns: row 0 takes B's rows 0-2
// (17 columns: two vectors), row 1 rows 0 and 1 (16: one), row 2 row 1 (8,
// B's own order), row 3 rows 0 and 2 (9), row 4 none, row 5 all four (33:
// upstream's sort), row 6 rows 1 and 3 (24: two vectors); with the hash
// accumulator too (its rows sorted with their slots). The products of one
// row come in B's row order, so their columns arrive interleaved, out of
// order. Against upstream's sparsifier, and the values printed below: each
// value follows its column.
//
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%omp_lib
// RUN: sptune-opt %s --sparsifier | %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=1 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu | env OMP_NUM_THREADS=4 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-one-pass-bytes=0 | env OMP_NUM_THREADS=2 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=hash | env OMP_NUM_THREADS=2 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-lower-cpu=gustavson-accumulator=dense | env OMP_NUM_THREADS=3 %{run} | FileCheck %s
// RUN: sptune-opt %s --sptune-cpu-sparsify | FileCheck %s --check-prefix=IR
//
// `auto` builds both workspaces: the hash table's rows first, sorted with
// their slots,
// IR:      %[[HSHORT:.*]] = arith.cmpi ule, %[[HLENGTH:.*]], %c16 : index
// IR-NEXT: scf.if %[[HSHORT]] {
// IR-NEXT:   %[[HMASK:.*]] = vector.create_mask %[[HLENGTH]] : vector<16xi1>
// IR-NEXT:   %[[HCOLUMNS:.*]] = vector.maskedload %[[HSCRATCH:.*]][%c0], %[[HMASK]]
// IR-NEXT:   %[[HSLOTS:.*]] = vector.maskedload %[[HSLOTBUF:.*]][%c0], %[[HMASK]]
// IR:        scf.for %[[HQ:.*]] = %c0 to
// IR:          %[[HRANK:.*]] = arith.index_castui
// IR-NEXT:     memref.store {{.*}}, %[[HSCRATCH]][%[[HRANK]]]
// IR-NEXT:     %[[HSLOT:.*]] = vector.extract %[[HSLOTS]][%[[HQ]]]
// IR-NEXT:     memref.store %[[HSLOT]], %[[HSLOTBUF]][%[[HRANK]]]
// IR:      } else {
// IR-NEXT:   %[[HMID:.*]] = arith.cmpi ule, %[[HLENGTH]], %c32 : index
// IR-NEXT:   scf.if %[[HMID]] {
// IR:          vector.maskedload %[[HSCRATCH]][%c16]
// IR-NEXT:     vector.maskedload %[[HSLOTBUF]][%c16]
// IR:        } else {
// IR:          func.call @_sparse_hybrid_qsort_{{.*}}(%c0, %[[HLENGTH]], %[[HSCRATCH]], %[[HSLOTBUF]],
// (in the one-pass kernel and in the two-pass one),
// IR:      arith.cmpi ule, %{{.*}}, %c32 : index
// IR:      func.call @_sparse_hybrid_qsort_0_index_coo_0_index(
// then the dense workspace's: up to 16 columns in one vector,
// IR:      %[[SHORT:.*]] = arith.cmpi ule, %[[LENGTH:.*]], %c16 : index
// IR-NEXT: scf.if %[[SHORT]] {
// IR-NEXT:   %[[MASK:.*]] = vector.create_mask %[[LENGTH]] : vector<16xi1>
// IR-NEXT:   %[[COLUMNS:.*]] = vector.maskedload %[[SCRATCH:.*]][%c0], %[[MASK]]
// IR-NEXT:   %[[END:.*]] = arith.minui %[[LENGTH]], %c16
// IR-NEXT:   scf.for %[[Q:.*]] = %c0 to %[[END]]
// IR-NEXT:     %[[COLUMN:.*]] = vector.extract %[[COLUMNS]][%[[Q]]]
// IR-NEXT:     %[[ALL:.*]] = vector.broadcast %[[COLUMN]]
// IR-NEXT:     %[[BELOW:.*]] = arith.cmpi ult, %[[COLUMNS]], %[[ALL]] : vector<16xindex>
// IR-NEXT:     %[[BITS:.*]] = vector.bitcast %[[BELOW]] : vector<16xi1> to vector<1xi16>
// IR-NEXT:     %[[WORD:.*]] = vector.extract %[[BITS]][0]
// IR-NEXT:     %[[COUNT:.*]] = math.ctpop %[[WORD]] : i16
// IR-NEXT:     %[[RANK:.*]] = arith.index_castui %[[COUNT]] : i16 to index
// IR-NEXT:     memref.store %[[COLUMN]], %[[SCRATCH]][%[[RANK]]]
// IR-NEXT:   }
// IR-NEXT: } else {
// up to 32 in two, each column's rank counted in both,
// IR-NEXT:   %[[MID:.*]] = arith.cmpi ule, %[[LENGTH]], %c32 : index
// IR-NEXT:   scf.if %[[MID]] {
// IR-NEXT:     %[[LOMASK:.*]] = vector.create_mask %[[LENGTH]] : vector<16xi1>
// IR-NEXT:     %[[LO:.*]] = vector.maskedload %[[SCRATCH]][%c0], %[[LOMASK]]
// IR-NEXT:     %[[ABOVE:.*]] = arith.maxui %[[LENGTH]], %c16
// IR-NEXT:     %[[REST:.*]] = arith.subi %[[ABOVE]], %c16
// IR-NEXT:     %[[HIMASK:.*]] = vector.create_mask %[[REST]] : vector<16xi1>
// IR-NEXT:     %[[HI:.*]] = vector.maskedload %[[SCRATCH]][%c16], %[[HIMASK]]
// IR:          scf.for %{{.*}} = %c0 to
// IR:            %[[ALL1:.*]] = vector.broadcast
// IR-NEXT:       arith.cmpi ult, %[[LO]], %[[ALL1]] : vector<16xindex>
// IR:            arith.cmpi ult, %[[HI]], %[[ALL1]] : vector<16xindex>
// IR:          scf.for %[[Q2:.*]] = %c16 to
// IR-NEXT:       %[[LANE:.*]] = arith.subi %[[Q2]], %c16
// IR-NEXT:       vector.extract %[[HI]][%[[LANE]]]
// longer rows by upstream's sort.
// IR:        } else {
// IR:          func.call @_sparse_hybrid_qsort_{{.*}}(%c0, %[[LENGTH]], %[[SCRATCH]],
//
// CHECK:      ---- Sparse Tensor ----
// CHECK-NEXT: nse = 107
// CHECK-NEXT: dim = ( 7, 100000 )
// CHECK-NEXT: lvl = ( 7, 100000 )
// CHECK-NEXT: pos[1] : ( 0, 17, 33, 41, 50, 50, 83, 107 )
// CHECK-NEXT: crd[1] : ( 0, 5, 1000, 9000, 10000, 20000, 25000, 30000, 40000, 50000, 60000, 70001, 77777, 80000, 85000, 99990, 99999,
// CHECK-SAME:   0, 5, 1000, 9000, 10000, 20000, 25000, 30000, 40000, 50000, 60000, 70001, 80000, 85000, 99990, 99999,
// CHECK-SAME:   0, 1000, 10000, 25000, 40000, 60000, 85000, 99999,
// CHECK-SAME:   5, 9000, 20000, 30000, 50000, 70001, 77777, 80000, 99990,
// CHECK-SAME:   0, 3, 5, 1000, 2000, 7000, 9000, 10000, 12000, 17000, 20000, 22000, 25000, 27000, 30000, 33000, 38000, 40000, 45000, 50000, 55000, 60000, 65000, 70001, 72000, 77777, 80000, 83000, 85000, 91000, 99000, 99990, 99999,
// CHECK-SAME:   0, 3, 1000, 2000, 7000, 10000, 12000, 17000, 22000, 25000, 27000, 33000, 38000, 40000, 45000, 55000, 60000, 65000, 72000, 83000, 85000, 91000, 99000, 99999 )
// CHECK-NEXT: values : ( 21, 1, 22, 2, 23, 3, 24, 4, 25, 5, 26, 6, 100, 7, 27, 8, 28,
// CHECK-SAME:   21, 1, 22, 2, 23, 3, 24, 4, 25, 5, 26, 6, 7, 27, 8, 28,
// CHECK-SAME:   42, 44, 46, 48, 50, 52, 54, 56,
// CHECK-SAME:   3, 6, 9, 12, 15, 18, 400, 21, 24,
// CHECK-SAME:   21, 31, 1, 22, 32, 33, 2, 23, 34, 35, 3, 36, 24, 37, 4, 38, 39, 25, 40, 5, 41, 26, 42, 6, 43, 100, 7, 44, 27, 45, 46, 8, 28,
// CHECK-SAME:   21, 31, 22, 32, 33, 23, 34, 35, 36, 24, 37, 38, 39, 25, 40, 41, 26, 42, 43, 44, 27, 45, 46, 28 )
// CHECK-NEXT: ----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @spgemm(%a: tensor<7x4xf64, #CSR>, %b: tensor<4x100000xf64, #CSR>) -> tensor<7x100000xf64, #CSR> {
  %e = tensor.empty() : tensor<7x100000xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<7x4xf64, #CSR>, tensor<4x100000xf64, #CSR>)
                     outs(%e : tensor<7x100000xf64, #CSR>) -> tensor<7x100000xf64, #CSR>
  return %r : tensor<7x100000xf64, #CSR>
}

func.func @main() {
  %da = arith.constant dense<[[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0],
                              [3.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0],
                              [0.0, 1.0, 0.0, 1.0]]> : tensor<7x4xf64>
  // B's row 0: 8 columns, values 1-8; row 1: 8 others, values 21-28; row 2:
  // one more column, 100.
  %cb = arith.constant sparse<[[0, 5], [0, 9000], [0, 20000], [0, 30000], [0, 50000], [0, 70001], [0, 80000], [0, 99990],
                               [1, 0], [1, 1000], [1, 10000], [1, 25000], [1, 40000], [1, 60000], [1, 85000], [1, 99999],
                               [2, 77777],
                               [3, 3], [3, 2000], [3, 7000], [3, 12000], [3, 17000], [3, 22000], [3, 27000], [3, 33000],
                               [3, 38000], [3, 45000], [3, 55000], [3, 65000], [3, 72000], [3, 83000], [3, 91000], [3, 99000]],
                              [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0,
                               21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0,
                               100.0,
                               31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0,
                               39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0]> : tensor<4x100000xf64>
  %a = sparse_tensor.convert %da : tensor<7x4xf64> to tensor<7x4xf64, #CSR>
  %b = sparse_tensor.convert %cb : tensor<4x100000xf64> to tensor<4x100000xf64, #CSR>
  %c = call @spgemm(%a, %b) : (tensor<7x4xf64, #CSR>, tensor<4x100000xf64, #CSR>) -> tensor<7x100000xf64, #CSR>
  sparse_tensor.print %c : tensor<7x100000xf64, #CSR>
  bufferization.dealloc_tensor %a : tensor<7x4xf64, #CSR>
  bufferization.dealloc_tensor %b : tensor<4x100000xf64, #CSR>
  bufferization.dealloc_tensor %c : tensor<7x100000xf64, #CSR>
  return
}
