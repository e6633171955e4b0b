//===- Passes.td - standalone-compiler's own passes --------*- tablegen -*-===//

#ifndef STANDALONE_PASSES_TD
#define STANDALONE_PASSES_TD

include "mlir/Pass/PassBase.td"

def CountSparseKernels : Pass<"standalone-count-sparse-kernels", "::mlir::ModuleOp"> {
  let summary = "Count the sparse kernels sptune recognized and scheduled";
  let description = [{
    Walks the module for operations carrying sptune's `#sptune.kernel`
    attribute (set by `sptune-extract-kernels`) and records, on the module,
    how many there are of each kind and how many already carry a
    `#sptune.schedule` (set by `sptune-autotune`):

    ```mlir
    module attributes {standalone.sparse_kernels = {kernels = 2 : i64,
        scheduled = 2 : i64, spmm = 1 : i64, spmv = 1 : i64}} { ... }
    ```

    With `remarks=true` it also emits a remark per kernel naming its kind and
    its schedule.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per kernel with its kind and schedule">,
  ];
}

#endif // STANDALONE_PASSES_TD
