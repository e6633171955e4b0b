//===- Passes.td - sptune passes ---------------------------*- tablegen -*-===//

#ifndef SPTUNE_TRANSFORMS_PASSES_TD
#define SPTUNE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExtractKernels : Pass<"sptune-extract-kernels", "ModuleOp"> {
  let summary = "Recognize sparse SpMM / SDDMM / SpMV kernels and annotate them";
  let description = [{
    Finds `linalg` operations with `#sparse_tensor` operands that compute an
    SpMM, an SDDMM or an SpMV, and attaches a `#sptune.kernel` attribute
    (under the name `sptune.kernel`) describing the kernel. Sparse ops that
    are not recognized get a remark saying why; dense ops are left alone.

    With `report=<file>` (or `report=-` for stdout) it also writes a JSON
    report of the kernels (schema: docs/kernel-report.md).
  }];
  let options = [
    Option<"reportFile", "report", "std::string", /*default=*/"\"\"",
           "Write a JSON report of the kernels to this file ('-' = stdout)">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"true",
           "Emit a remark for each sparse op that is not recognized">,
  ];
  let dependentDialects = ["::mlir::sptune::SptuneDialect"];
}

#endif // SPTUNE_TRANSFORMS_PASSES_TD
