// sptune-promote-accumulators: after sparsification, the vectors a loop
// loads and stores at loop-invariant positions (SpMM's row of C across the
// loop over a row's stored entries) are carried in registers: one load
// before the loop, one store after. Refused loops are left as they are and
// the remark says why; loops with nothing to promote get no remark.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-promote-accumulators=remarks=true --canonicalize | FileCheck %s

// The sparsifier's CSR SpMM, order [i, k, j], vl = 16, N = 64: the vector
// loop over j is unrolled and its four vectors of C(i, :) are carried.
// CHECK-LABEL: func.func @spmm_row
// CHECK:       scf.for %[[I:.*]] =
// CHECK:         %[[C0:.*]] = vector.load %[[C:.*]][%[[I]], %c0{{.*}}] : memref<100x64xf32>, vector<16xf32>
// CHECK:         vector.load %[[C]][%[[I]], %c16{{.*}}]
// CHECK:         vector.load %[[C]][%[[I]], %c32{{.*}}]
// CHECK:         %[[C3:.*]] = vector.load %[[C]][%[[I]], %c48{{.*}}] : memref<100x64xf32>, vector<16xf32>
// CHECK:         %[[R:.*]]:4 = scf.for {{.*}} iter_args(%[[A0:.*]] = %[[C0]], {{.*}}, %[[A3:.*]] = %[[C3]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-NOT:       vector.store
// CHECK-NOT:       vector.load %[[C]]
// CHECK:           %[[S0:.*]] = arith.addf %[[A0]],
// CHECK:           %[[S3:.*]] = arith.addf %[[A3]],
// CHECK:           scf.yield %[[S0]], {{.*}}, %[[S3]] : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
// CHECK:         vector.store %[[R]]#0, %[[C]][%[[I]], %c0{{.*}}]
// CHECK:         vector.store %[[R]]#1, %[[C]][%[[I]], %c16{{.*}}]
// CHECK:         vector.store %[[R]]#2, %[[C]][%[[I]], %c32{{.*}}]
// CHECK:         vector.store %[[R]]#3, %[[C]][%[[I]], %c48{{.*}}]
func.func @spmm_row(%pos: memref<?xindex>, %crd: memref<?xindex>, %val: memref<?xf32>,
                    %b: memref<100x64xf32>, %c: memref<100x64xf32>) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %lo = memref.load %pos[%i] : memref<?xindex>
    %i1 = arith.addi %i, %c1 : index
    %hi = memref.load %pos[%i1] : memref<?xindex>
    // expected-remark @+1 {{sptune: 4 accumulator vector(s) kept in registers across the loop}}
    scf.for %p = %lo to %hi step %c1 {
      %k = memref.load %crd[%p] : memref<?xindex>
      %a = memref.load %val[%p] : memref<?xf32>
      scf.for %j = %c0 to %c64 step %c16 {
        %acc = vector.load %c[%i, %j] : memref<100x64xf32>, vector<16xf32>
        %av = vector.broadcast %a : f32 to vector<16xf32>
        %bv = vector.load %b[%k, %j] : memref<100x64xf32>, vector<16xf32>
        %m = arith.mulf %av, %bv : vector<16xf32>
        %s = arith.addf %acc, %m : vector<16xf32>
        vector.store %s, %c[%i, %j] : memref<100x64xf32>, vector<16xf32>
      }
    }
  }
  return
}

// -----

// Accesses directly in the loop (no inner vector loop), read twice and
// written twice per iteration: the second read sees the first write.
// CHECK-LABEL: func.func @twice
// CHECK:       %[[INIT:.*]] = vector.load %[[C:.*]][%c0{{.*}}, %c0{{.*}}]
// CHECK:       %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<16xf32>)
// CHECK:         %[[X:.*]] = arith.addf %[[A]], %[[B:.*]] : vector<16xf32>
// CHECK:         %[[Y:.*]] = arith.mulf %[[X]], %[[B]] : vector<16xf32>
// CHECK:         scf.yield %[[Y]] : vector<16xf32>
// CHECK:       vector.store %[[R]], %[[C]][%c0{{.*}}, %c0{{.*}}]
func.func @twice(%crd: memref<?xindex>, %b: memref<100x16xf32>, %c: memref<100x16xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{sptune: 1 accumulator vector(s) kept in registers across the loop}}
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    %bv = vector.load %b[%k, %c0] : memref<100x16xf32>, vector<16xf32>
    %x0 = vector.load %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %x1 = arith.addf %x0, %bv : vector<16xf32>
    vector.store %x1, %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %y0 = vector.load %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %y1 = arith.mulf %y0, %bv : vector<16xf32>
    vector.store %y1, %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
  }
  return
}

// -----

// A loop that also writes elsewhere is left alone.
// CHECK-LABEL: func.func @other_write
// CHECK-NOT:   iter_args
func.func @other_write(%crd: memref<?xindex>, %b: memref<100x16xf32>, %c: memref<100x16xf32>,
                       %log: memref<?xindex>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{sptune: accumulators not promoted: 'memref.store' writes memory in the loop}}
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    memref.store %k, %log[%p] : memref<?xindex>
    %acc = vector.load %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %bv = vector.load %b[%k, %c0] : memref<100x16xf32>, vector<16xf32>
    %s = arith.addf %acc, %bv : vector<16xf32>
    vector.store %s, %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
  }
  return
}

// -----

// Reading the promoted buffer through another view: it could see the
// stores the promotion delays.
// CHECK-LABEL: func.func @other_view
// CHECK-NOT:   iter_args
func.func @other_view(%crd: memref<?xindex>, %c: memref<100x16xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %view = memref.subview %c[0, 0] [100, 16] [1, 1] : memref<100x16xf32> to memref<100x16xf32, strided<[16, 1]>>
  // expected-remark @+1 {{sptune: accumulators not promoted: the loop reads another view of a promoted buffer}}
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    %acc = vector.load %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %bv = vector.load %view[%k, %c0] : memref<100x16xf32, strided<[16, 1]>>, vector<16xf32>
    %s = arith.addf %acc, %bv : vector<16xf32>
    vector.store %s, %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
  }
  return
}

// -----

// Stores through two views of one buffer: their positions cannot be
// compared, so nothing is promoted.
// CHECK-LABEL: func.func @two_views
// CHECK-NOT:   iter_args
func.func @two_views(%crd: memref<?xindex>, %b: memref<100x16xf32>, %c: memref<100x16xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %view = memref.subview %c[1, 0] [99, 16] [1, 1] : memref<100x16xf32> to memref<99x16xf32, strided<[16, 1], offset: 16>>
  // expected-remark @+1 {{sptune: accumulators not promoted: the loop stores through two views of one buffer}}
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    %bv = vector.load %b[%k, %c0] : memref<100x16xf32>, vector<16xf32>
    %x = vector.load %c[%c1, %c0] : memref<100x16xf32>, vector<16xf32>
    %s = arith.addf %x, %bv : vector<16xf32>
    vector.store %s, %c[%c1, %c0] : memref<100x16xf32>, vector<16xf32>
    %y = vector.load %view[%c0, %c0] : memref<99x16xf32, strided<[16, 1], offset: 16>>, vector<16xf32>
    %t = arith.addf %y, %bv : vector<16xf32>
    vector.store %t, %view[%c0, %c0] : memref<99x16xf32, strided<[16, 1], offset: 16>>, vector<16xf32>
  }
  return
}

// -----

// Positions 8 apart with 16 lanes overlap: not promoted.
// CHECK-LABEL: func.func @overlapping
// CHECK-NOT:   iter_args
func.func @overlapping(%crd: memref<?xindex>, %b: memref<100x32xf32>, %c: memref<100x32xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-remark @+1 {{sptune: accumulators not promoted: two promoted positions may overlap}}
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    %bv = vector.load %b[%k, %c0] : memref<100x32xf32>, vector<16xf32>
    %x = vector.load %c[%c0, %c0] : memref<100x32xf32>, vector<16xf32>
    %s = arith.addf %x, %bv : vector<16xf32>
    vector.store %s, %c[%c0, %c0] : memref<100x32xf32>, vector<16xf32>
    %y = vector.load %c[%c0, %c8] : memref<100x32xf32>, vector<16xf32>
    %t = arith.addf %y, %bv : vector<16xf32>
    vector.store %t, %c[%c0, %c8] : memref<100x32xf32>, vector<16xf32>
  }
  return
}

// -----

// A store whose position moves with the loop (SDDMM's output entry p) has
// nothing to promote: no remark, no change.
// CHECK-LABEL: func.func @moving_position
// CHECK-NOT:   iter_args
func.func @moving_position(%b: memref<100x16xf32>, %x: memref<100x16xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %p = %c0 to %n step %c1 {
    %bv = vector.load %b[%p, %c0] : memref<100x16xf32>, vector<16xf32>
    vector.store %bv, %x[%p, %c0] : memref<100x16xf32>, vector<16xf32>
  }
  return
}

// -----

// A function sptune did not schedule keeps upstream's code.
// CHECK-LABEL: func.func @unscheduled
// CHECK-NOT:   iter_args
func.func @unscheduled(%crd: memref<?xindex>, %b: memref<100x16xf32>, %c: memref<100x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %p = %c0 to %n step %c1 {
    %k = memref.load %crd[%p] : memref<?xindex>
    %acc = vector.load %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
    %bv = vector.load %b[%k, %c0] : memref<100x16xf32>, vector<16xf32>
    %s = arith.addf %acc, %bv : vector<16xf32>
    vector.store %s, %c[%c0, %c0] : memref<100x16xf32>, vector<16xf32>
  }
  return
}
