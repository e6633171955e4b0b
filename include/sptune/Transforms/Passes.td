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

def DefaultSchedule : Pass<"sptune-default-schedule", "ModuleOp"> {
  let summary = "Attach the heuristic schedule to kernels that have none";
  let description = [{
    For each op carrying `sptune.kernel` but no `sptune.schedule`, attaches
    sptune's heuristic schedule (no model; Scorch-style: loop orders that
    avoid asymptotic cliffs, outer dense loop parallel, dense inner
    dimension vectorized). Useful before any model exists and the baseline
    the model must beat.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target to schedule for: cpu or nvvm">,
  ];
  let dependentDialects = ["::mlir::sptune::SptuneDialect"];
}

def ApplySchedule : Pass<"sptune-apply-schedule", "ModuleOp"> {
  let summary = "Rewrite scheduled kernels into their format and loop order";
  let description = [{
    For each op carrying both `sptune.kernel` and `sptune.schedule`:
    converts the sparse operand to the scheduled encoding (with
    `sparse_tensor.convert`, or by retyping the function argument when
    `retype-args` is set and the argument has no other use), generalizes the
    op, maps it into level space (upstream sparse-reinterpret-map) and
    interchanges its loops into the scheduled order, marked `sorted` so the
    sparsifier keeps it, and strip-mines the free dense loop by the
    schedule's tile. Ops without a schedule are untouched. The schedule moves
    to the rewritten op and to its function (for the lowering).
  }];
  let options = [
    Option<"retypeArgs", "retype-args", "bool", /*default=*/"false",
           "Change the type of a function argument holding the sparse "
           "operand instead of converting it">,
  ];
  let dependentDialects = [
    "::mlir::sptune::SptuneDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
  ];
}

#endif // SPTUNE_TRANSFORMS_PASSES_TD
