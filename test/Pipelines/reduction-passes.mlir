// sptune-factor-reductions and sptune-jam-reductions on the loops the
// sparsifier emits for SDDMM: a loop over a row's stored entries p, each
// with a dot product over k that the stored value S(p) multiplies.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-factor-reductions=remarks=true --sptune-jam-reductions=remarks=true | FileCheck %s

// The stored value leaves the dot product (loaded before it, multiplying the
// sum once), then four entries run interleaved: a main loop in steps of 4
// with one loop over k carrying four sums, and the original loop over the
// entries left.
// CHECK-LABEL: func.func @sddmm_row
// CHECK-SAME:    (%[[CRD:.*]]: memref<?xindex>, %[[VAL:.*]]: memref<?xf32>, %[[A:.*]]: memref<64xf32>, %[[BT:.*]]: memref<100x64xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:       %[[TRIPS:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK:       %[[POS:.*]] = arith.maxsi %[[TRIPS]], %{{.*}}
// CHECK:       %[[GROUPS:.*]] = arith.divui %[[POS]], %[[C4]] :
// CHECK:       %[[WHOLE:.*]] = arith.muli %[[GROUPS]], %[[C4]]
// CHECK:       %[[SPLIT:.*]] = arith.addi %[[LO]], %[[WHOLE]]
// CHECK:       scf.for %[[P:.*]] = %[[LO]] to %[[SPLIT]] step %[[C4]] {
// CHECK:         %[[K1:.*]] = arith.constant 1 : index
// CHECK:         %[[P1:.*]] = arith.addi %[[P]], %[[K1]]
// CHECK:         %[[K2:.*]] = arith.constant 2 : index
// CHECK:         %[[P2:.*]] = arith.addi %[[P]], %[[K2]]
// CHECK:         %[[K3:.*]] = arith.constant 3 : index
// CHECK:         %[[P3:.*]] = arith.addi %[[P]], %[[K3]]
// CHECK:         %[[J0:.*]] = memref.load %[[CRD]][%[[P]]]
// CHECK:         %[[S0:.*]] = memref.load %[[VAL]][%[[P]]]
// CHECK:         %[[J1:.*]] = memref.load %[[CRD]][%[[P1]]]
// CHECK:         %[[S1:.*]] = memref.load %[[VAL]][%[[P1]]]
// CHECK:         %[[J2:.*]] = memref.load %[[CRD]][%[[P2]]]
// CHECK:         %[[S2:.*]] = memref.load %[[VAL]][%[[P2]]]
// CHECK:         %[[J3:.*]] = memref.load %[[CRD]][%[[P3]]]
// CHECK:         %[[S3:.*]] = memref.load %[[VAL]][%[[P3]]]
// CHECK:         %[[R:.*]]:4 = scf.for %[[K:.*]] = {{.*}} iter_args(%[[A0:[^ ,]*]] = %{{[^,]*}}, %[[A1:[^ ,]*]] = %{{[^,]*}}, %[[A2:[^ ,]*]] = %{{[^,]*}}, %[[A3:[^ ,]*]] = %{{[^,]*}}) -> (f32, f32, f32, f32) {
// CHECK-NOT:       memref.load %[[VAL]]
// CHECK:           memref.load %[[BT]][%[[J0]], %[[K]]]
// CHECK:           %[[M0:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract>
// CHECK:           %[[N0:.*]] = arith.addf %[[A0]], %[[M0]]
// CHECK:           memref.load %[[BT]][%[[J1]], %[[K]]]
// CHECK:           %[[N1:.*]] = arith.addf %[[A1]],
// CHECK:           memref.load %[[BT]][%[[J2]], %[[K]]]
// CHECK:           %[[N2:.*]] = arith.addf %[[A2]],
// CHECK:           memref.load %[[BT]][%[[J3]], %[[K]]]
// CHECK:           %[[N3:.*]] = arith.addf %[[A3]],
// CHECK:           scf.yield %[[N0]], %[[N1]], %[[N2]], %[[N3]]
// CHECK:         %[[T0:.*]] = arith.mulf %[[S0]], %[[R]]#0
// CHECK:         %[[U0:.*]] = arith.addf %{{.*}}, %[[T0]]
// CHECK:         memref.store %[[U0]], %[[VAL]][%[[P]]]
// CHECK:         %[[T1:.*]] = arith.mulf %[[S1]], %[[R]]#1
// CHECK:         %[[U1:.*]] = arith.addf %{{.*}}, %[[T1]]
// CHECK:         memref.store %[[U1]], %[[VAL]][%[[P1]]]
// CHECK:         %[[T2:.*]] = arith.mulf %[[S2]], %[[R]]#2
// CHECK:         %[[U2:.*]] = arith.addf %{{.*}}, %[[T2]]
// CHECK:         memref.store %[[U2]], %[[VAL]][%[[P2]]]
// CHECK:         %[[T3:.*]] = arith.mulf %[[S3]], %[[R]]#3
// CHECK:         %[[U3:.*]] = arith.addf %{{.*}}, %[[T3]]
// CHECK:         memref.store %[[U3]], %[[VAL]][%[[P3]]]
// CHECK:       }
// CHECK:       scf.for %[[Q:.*]] = %[[SPLIT]] to %[[HI]] step %{{.*}} {
// CHECK:         scf.for {{.*}} -> (f32) {
// CHECK-NOT:       memref.load %[[VAL]]
// CHECK:         memref.store %{{.*}}, %[[VAL]][%[[Q]]]
func.func @sddmm_row(%crd: memref<?xindex>, %val: memref<?xf32>, %a: memref<64xf32>,
                     %bt: memref<100x64xf32>, %lo: index, %hi: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{sptune: 4 iterations interleaved around the reduction loop}}
  scf.for %p = %lo to %hi step %c1 {
    %j = memref.load %crd[%p] : memref<?xindex>
    // expected-remark @+1 {{sptune: 1 sum(s) multiplied by their loop-invariant factor once}}
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %av = memref.load %a[%k] : memref<64xf32>
      %bv = memref.load %bt[%j, %k] : memref<100x64xf32>
      %sv = memref.load %val[%p] : memref<?xf32>
      %m1 = arith.mulf %sv, %av fastmath<reassoc,contract> : f32
      %m2 = arith.mulf %m1, %bv fastmath<reassoc,contract> : f32
      %s = arith.addf %acc, %m2 fastmath<reassoc,contract> : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  return
}

// -----

// Without `reassoc` the sum keeps its order: not factored. The entries are
// still interleaved (each sum is computed as before, in its own chain).
// CHECK-LABEL: func.func @no_reassoc
// CHECK:       scf.for
// CHECK:         scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
func.func @no_reassoc(%crd: memref<?xindex>, %val: memref<?xf32>, %a: memref<64xf32>,
                      %bt: memref<100x64xf32>, %lo: index, %hi: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{sptune: 4 iterations interleaved around the reduction loop}}
  scf.for %p = %lo to %hi step %c1 {
    %j = memref.load %crd[%p] : memref<?xindex>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %av = memref.load %a[%k] : memref<64xf32>
      %bv = memref.load %bt[%j, %k] : memref<100x64xf32>
      %sv = memref.load %val[%p] : memref<?xf32>
      %m1 = arith.mulf %sv, %av : f32
      %m2 = arith.mulf %m1, %bv : f32
      %s = arith.addf %acc, %m2 : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  return
}

// -----

// An invariant value (a scale defined outside) and the load: both factored,
// the product of the varying factors stays. A loop that writes memory keeps
// its loads where they are (only the value defined outside is factored).
// CHECK-LABEL: func.func @scaled
// CHECK-SAME:    %[[SCALE:[^:]*]]: f32)
// CHECK:       %[[SV:.*]] = memref.load
// CHECK:       %[[F:.*]] = arith.mulf %[[SCALE]], %[[SV]]
// CHECK:       %[[R:.*]] = scf.for
// CHECK-NOT:     %[[SCALE]]
// CHECK-NOT:     memref.load %{{.*}} : memref<?xf32>
// CHECK:         arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    scf.yield
// CHECK:       arith.mulf %[[F]], %[[R]]
// CHECK-LABEL: func.func @writes
// CHECK:       %[[R2:.*]] = scf.for
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK:         memref.store
// CHECK:       arith.mulf %{{.*}}, %[[R2]]
func.func @scaled(%val: memref<?xf32>, %a: memref<64xf32>, %b: memref<64xf32>,
                  %p: index, %scale: f32) -> f32 attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{sptune: 1 sum(s) multiplied by their loop-invariant factor once}}
  %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %av = memref.load %a[%k] : memref<64xf32>
    %bv = memref.load %b[%k] : memref<64xf32>
    %sv = memref.load %val[%p] : memref<?xf32>
    %m0 = arith.mulf %scale, %sv fastmath<reassoc> : f32
    %m1 = arith.mulf %m0, %av fastmath<reassoc> : f32
    %m2 = arith.mulf %bv, %m1 fastmath<reassoc> : f32
    %s = arith.addf %m2, %acc fastmath<reassoc> : f32
    scf.yield %s : f32
  }
  return %sum : f32
}
func.func @writes(%val: memref<?xf32>, %a: memref<64xf32>, %out: memref<64xf32>,
                  %p: index, %scale: f32) -> f32 attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{sptune: 1 sum(s) multiplied by their loop-invariant factor once}}
  %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %av = memref.load %a[%k] : memref<64xf32>
    %sv = memref.load %val[%p] : memref<?xf32>
    memref.store %av, %out[%k] : memref<64xf32>
    %m0 = arith.mulf %sv, %av fastmath<reassoc> : f32
    %m1 = arith.mulf %scale, %m0 fastmath<reassoc> : f32
    %s = arith.addf %acc, %m1 fastmath<reassoc> : f32
    scf.yield %s : f32
  }
  return %sum : f32
}

// -----

// Two sums carried: interleaved, each copy's pair in its own place. The
// loop over k has a dynamic trip count: the factored load is made only when
// it runs, and the result is the start when it does not.
// CHECK-LABEL: func.func @two_sums
// CHECK-SAME:    (%[[VAL:[^:]*]]: memref<?xf32>
// CHECK:       scf.for %[[P:.*]] = {{.*}} step %c4
// CHECK:         %[[P1:.*]] = arith.addi %[[P]], %c1
// CHECK:         %[[RUNS0:.*]] = arith.cmpi slt, %c0, %[[N:[^ ]*]] : index
// CHECK:         %[[SV0:.*]] = scf.if %[[RUNS0]] -> (f32) {
// CHECK:           memref.load %[[VAL]][%[[P]]]
// CHECK:         %[[SV1:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:           memref.load %[[VAL]][%[[P1]]]
// CHECK:         %[[R:.*]]:8 = scf.for {{.*}} to %[[N]] {{.*}} iter_args(%[[X0:[^ ,]*]] = %{{[^,]*}}, %[[Y0:[^ ,]*]] = %{{[^,]*}}, %[[X1:[^ ,]*]] = %{{[^,]*}}, %[[Y1:[^ ,]*]] = %{{[^,]*}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NOT:       memref.load %[[VAL]]
// CHECK:           %[[NX0:.*]] = arith.addf %[[X0]]
// CHECK:           %[[NY0:.*]] = arith.addf %[[Y0]]
// CHECK:           %[[NX1:.*]] = arith.addf %[[X1]]
// CHECK:           %[[NY1:.*]] = arith.addf %[[Y1]]
// CHECK:           scf.yield %[[NX0]], %[[NY0]], %[[NX1]], %[[NY1]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32
// CHECK:         %[[F0:.*]] = arith.mulf %[[SV0]], %[[R]]#0
// CHECK:         %[[T0:.*]] = arith.addf %{{.*}}, %[[F0]]
// CHECK:         %[[G0:.*]] = arith.select %{{.*}}, %[[T0]], %{{.*}} : f32
// CHECK:         %[[D0:.*]] = arith.subf %[[G0]], %[[R]]#1
// CHECK:         memref.store %[[D0]], %{{.*}}[%[[P]]]
// CHECK:         %[[F1:.*]] = arith.mulf %[[SV1]], %[[R]]#2
// CHECK:         %[[D1:.*]] = arith.subf %{{.*}}, %[[R]]#3
// CHECK:         memref.store %[[D1]], %{{.*}}[%[[P1]]]
// CHECK:         arith.subf %{{.*}}, %[[R]]#5
// CHECK:         arith.subf %{{.*}}, %[[R]]#7
func.func @two_sums(%val: memref<?xf32>, %out: memref<?xf32>, %a: memref<?xf32>,
                    %lo: index, %hi: index, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{sptune: 4 iterations interleaved around the reduction loop}}
  scf.for %p = %lo to %hi step %c1 {
    // expected-remark @+1 {{sptune: 1 sum(s) multiplied by their loop-invariant factor once}}
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%x = %zero, %y = %zero) -> (f32, f32) {
      %av = memref.load %a[%k] : memref<?xf32>
      %sv = memref.load %val[%p] : memref<?xf32>
      %m = arith.mulf %sv, %av fastmath<reassoc> : f32
      %nx = arith.addf %x, %m fastmath<reassoc> : f32
      %ny = arith.addf %y, %av fastmath<reassoc> : f32
      scf.yield %nx, %ny : f32, f32
    }
    %d = arith.subf %r#0, %r#1 : f32
    memref.store %d, %out[%p] : memref<?xf32>
  }
  return
}

// -----

// Refusals, each with its reason; the loops are left as they are.
func.func @refused(%crd: memref<?xindex>, %val: memref<?xf32>, %other: memref<?xf32>,
                   %bt: memref<100x64xf32>, %pos: memref<?xindex>, %lo: index, %hi: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // A store not indexed by the loop's variable (every iteration writes one
  // element).
  // expected-remark @+1 {{sptune: iterations not interleaved: the loop writes memory other than by scalar stores indexed by its induction variable into a buffer defined outside it}}
  scf.for %p = %lo to %hi step %c1 {
    %j = memref.load %crd[%p] : memref<?xindex>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %bv = memref.load %bt[%j, %k] : memref<100x64xf32>
      %s = arith.addf %acc, %bv : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%lo] : memref<?xf32>
  }
  // A view made in the loop, moving with it: its element %p is one element
  // of the buffer for every iteration.
  // expected-remark @+1 {{sptune: iterations not interleaved: the loop writes memory other than by scalar stores indexed by its induction variable into a buffer defined outside it}}
  scf.for %p = %lo to %hi step %c1 {
    %v = memref.subview %val[%p] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.addf %acc, %zero : f32
      scf.yield %s : f32
    }
    memref.store %sum, %v[%c0] : memref<1xf32, strided<[1], offset: ?>>
  }
  // One buffer written twice.
  // expected-remark @+1 {{sptune: iterations not interleaved: the loop writes one buffer twice}}
  scf.for %p = %lo to %hi step %c1 {
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.addf %acc, %zero : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
    memref.store %sum, %other[%p] : memref<?xf32>
    memref.store %zero, %val[%p] : memref<?xf32>
  }
  // A read of the written buffer at another position (the next entry).
  // expected-remark @+1 {{sptune: iterations not interleaved: the loop reads a buffer it writes at other positions}}
  scf.for %p = %lo to %hi step %c1 {
    %q = arith.addi %p, %c1 : index
    %prev = memref.load %val[%q] : memref<?xf32>
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %prev) -> (f32) {
      %s = arith.addf %acc, %prev : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  // The reduction's bounds depend on the loop (SpMV's row loop).
  // expected-remark @+1 {{sptune: iterations not interleaved: the reduction loop's bounds change with the loop}}
  scf.for %i = %lo to %hi step %c1 {
    %rlo = memref.load %pos[%i] : memref<?xindex>
    %i1 = arith.addi %i, %c1 : index
    %rhi = memref.load %pos[%i1] : memref<?xindex>
    %sum = scf.for %p = %rlo to %rhi step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %other[%p] : memref<?xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%i] : memref<?xf32>
  }
  // A step other than 1.
  // expected-remark @+1 {{sptune: iterations not interleaved: the loop's step is not 1}}
  scf.for %p = %lo to %hi step %c2 {
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.addf %acc, %zero : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  // The reduction loop writes memory.
  // expected-remark @+1 {{sptune: iterations not interleaved: the reduction loop writes memory}}
  scf.for %p = %lo to %hi step %c1 {
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      memref.store %acc, %other[%k] : memref<?xf32>
      %s = arith.addf %acc, %zero : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  return
}

// -----

// Functions without a schedule are not touched.
// CHECK-LABEL: func.func @unscheduled
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NOT:   scf.for {{.*}} -> (f32, f32
func.func @unscheduled(%val: memref<?xf32>, %a: memref<64xf32>, %lo: index, %hi: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %p = %lo to %hi step %c1 {
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %av = memref.load %a[%k] : memref<64xf32>
      %sv = memref.load %val[%p] : memref<?xf32>
      %m = arith.mulf %sv, %av fastmath<reassoc> : f32
      %s = arith.addf %acc, %m fastmath<reassoc> : f32
      scf.yield %s : f32
    }
    memref.store %sum, %val[%p] : memref<?xf32>
  }
  return
}
