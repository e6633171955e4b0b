// sptune-contract-fma: in scheduled kernels, a multiply feeding only an add
// (or subtract) may fuse with it (the `contract` flag, clang's default
// -ffp-contract=on for `c += a * b`); nothing else is relaxed, and
// unscheduled functions keep upstream's flags.
//
// RUN: sptune-opt %s -split-input-file --sptune-contract-fma | FileCheck %s
// The flags reach LLVM, where the multiply-add becomes one instruction.
// RUN: sptune-opt %s -split-input-file --sptune-contract-fma --convert-arith-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @scheduled
// CHECK:       %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK:       arith.addf %{{.*}}, %[[M]] fastmath<contract> : vector<16xf32>
// CHECK:       %[[M2:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
// CHECK:       arith.subf %[[M2]], %{{.*}} fastmath<contract> : f32
// LLVM-LABEL:  func.func @scheduled
// LLVM:        llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
// LLVM:        llvm.fadd {{.*}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
func.func @scheduled(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>, %x: f32, %y: f32) -> (vector<16xf32>, f32)
    attributes {sptune.schedule = #sptune.schedule<cpu spmm>} {
  %m = arith.mulf %a, %b : vector<16xf32>
  %s = arith.addf %c, %m : vector<16xf32>
  %m2 = arith.mulf %x, %y fastmath<nnan> : f32
  %d = arith.subf %m2, %x : f32
  return %s, %d : vector<16xf32>, f32
}

// -----

// A product also used elsewhere is computed once, rounded: not fused.
// CHECK-LABEL: func.func @shared_product
// CHECK-NOT:   contract
func.func @shared_product(%a: f32, %b: f32, %c: f32) -> (f32, f32)
    attributes {sptune.schedule = #sptune.schedule<cpu spmv>} {
  %m = arith.mulf %a, %b : f32
  %s = arith.addf %c, %m : f32
  return %s, %m : f32, f32
}

// -----

// CHECK-LABEL: func.func @unscheduled
// CHECK-NOT:   contract
func.func @unscheduled(%a: f32, %b: f32, %c: f32) -> f32 {
  %m = arith.mulf %a, %b : f32
  %s = arith.addf %c, %m : f32
  return %s : f32
}

// -----

// A scalar running sum carried around a loop (SpMV's row loop): the adds
// are the critical path, a fused multiply-add is slower than the add, so
// it is left alone. A vector accumulator carried the same way (SpMM's row
// of C) fuses.
// CHECK-LABEL: func.func @loop_carried
// CHECK:       scf.for
// CHECK:       arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:       scf.for
// CHECK:       arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT:  arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// A sum into a value that is not carried (a store) still fuses.
// CHECK:       scf.for
// CHECK:       arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NEXT:  arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func @loop_carried(%a: memref<?xf32>, %x: memref<?xf32>, %v: vector<16xf32>, %n: index) -> (f32, vector<16xf32>)
    attributes {sptune.schedule = #sptune.schedule<cpu spmv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %ak = memref.load %a[%k] : memref<?xf32>
    %xk = memref.load %x[%k] : memref<?xf32>
    %p = arith.mulf %ak, %xk : f32
    %s = arith.addf %acc, %p : f32
    scf.yield %s : f32
  }
  %vsum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (vector<16xf32>) {
    %p = arith.mulf %v, %v : vector<16xf32>
    %s = arith.addf %acc, %p : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  scf.for %k = %c0 to %n step %c1 {
    %ak = memref.load %a[%k] : memref<?xf32>
    %xk = memref.load %x[%k] : memref<?xf32>
    %p = arith.mulf %ak, %xk : f32
    %s = arith.addf %xk, %p : f32
    memref.store %s, %x[%k] : memref<?xf32>
  }
  return %sum, %vsum : f32, vector<16xf32>
}
