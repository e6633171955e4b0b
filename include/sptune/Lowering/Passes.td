//===- Passes.td - Passes several targets' lowerings share -*- tablegen -*-===//
//
// Part of sptune. MLIR passes that more than one target's lowering pipeline
// runs; each target's pass registration registers them too.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_LOWERING_PASSES_TD
#define SPTUNE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckSparseReads : Pass<"sptune-check-sparse-reads", "ModuleOp"> {
  let summary = "Check the shape of the files sparse_tensor.new reads";
  let description = [{
    Before each `sparse_tensor.new` whose result type has a static size, reads
    the file's header through the sparse runtime (libmlir_c_runner_utils, the
    library the lowered code already needs); when the file's shape differs,
    the program prints the expected one and exits with status 1. The runtime
    checks this with `assert` only, compiled out in release builds: a file
    of another shape was read out of bounds (a segfault, or silently wrong
    data; upstream aborts with std::length_error for some files).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def CheckSparseInHostCode
    : Pass<"sptune-check-sparse-in-host-code", "ModuleOp"> {
  let summary = "Refuse sparse tensors in device code (gpu.module)";
  let description = [{
    The sparsifier lowers sparse tensors in host functions only: a
    `#sparse_tensor` value inside a `gpu.module` (a kernel written in device
    code) ended in an internal "failed to legalize unresolved
    materialization" of storage specifiers. This pass names the op and its
    GPU module instead, and says what to write: the sparse kernel in a host
    `func.func` (the NVVM target outlines it to the GPU).
  }];
}

#endif // SPTUNE_LOWERING_PASSES_TD
