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
