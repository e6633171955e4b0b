// RUN: sptune-opt %s --sptune-balance-rows -split-input-file -verify-diagnostics
//
// A schedule that asks for balanced rows in a function whose loops cannot be
// cut is an error, not OpenMP's static schedule in silence.

// expected-error @+1 {{sptune: omp = balanced cannot cut the rows of @no_positions: the loop reads no positions array at its row and the next}}
func.func @no_positions(%y: memref<?xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmv, parallel = outer, omp = balanced>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %z, %y[%i] : memref<?xf32>
    scf.reduce
  } {"Emitted from" = "linalg.generic"}
  return
}

// -----

// A loop that reads offsets at its row and the next, but that the sparsifier
// did not emit, is not cut: nothing says its offsets never decrease.
// expected-error @+1 {{sptune: omp = balanced cannot cut the rows of @user_loop: the loop is not one the sparsifier emitted}}
func.func @user_loop(%offsets: memref<?xindex>, %y: memref<?xindex>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmv, parallel = outer, omp = balanced>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %a = memref.load %offsets[%i] : memref<?xindex>
    %j = arith.addi %i, %c1 : index
    %b = memref.load %offsets[%j] : memref<?xindex>
    %d = arith.subi %b, %a : index
    memref.store %d, %y[%i] : memref<?xindex>
    scf.reduce
  }
  return
}

// -----

// A function without parallel loops (its kernels were moved to functions of
// their own, or run sequentially) has nothing to cut; other schedules are
// left alone.
func.func @no_loop() attributes {sptune.schedule = #sptune.schedule<cpu spmv, parallel = outer, omp = balanced>} {
  return
}
func.func @static(%y: memref<?xf32>, %n: index) attributes {sptune.schedule = #sptune.schedule<cpu spmv, parallel = outer>} {
  return
}
