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

def FuseScales : Pass<"sptune-fuse-scales", "ModuleOp"> {
  let summary = "Fold a scale of a sparse kernel's result into the kernel";
  let description = [{
    An elementwise op that multiplies a sparse kernel's result by invariant
    factors (an attention layer's `scores / sqrt(d)` after its SDDMM, an
    `alpha` after an SpMM) is folded into the kernel's product when that is
    exact: the kernel's sum starts from nothing (a fresh sparse output or a
    dense zero) and the scale is its result's only use. The kernel, now
    "scaled by an invariant", is then tuned as one kernel; the scale's pass
    over the result and its output tensor are gone. Run it before
    `sptune-extract-kernels`. Ops that do not qualify are left as they are.
  }];
  let options = [
    Option<"emitRemarks", "remarks", "bool", /*default=*/"true",
           "Emit a remark on each kernel a scale was folded into">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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
           "Target to schedule for: a registered target (cpu, nvvm, ...)">,
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
    "::mlir::bufferization::BufferizationDialect",
  ];
}

def Lower : Pass<"sptune-lower", "ModuleOp"> {
  let summary = "Lower scheduled kernels with their target's pipeline";
  let description = [{
    Runs, with its default options, the lowering that the target of the
    module's `#sptune.schedule`s registered with the target registry
    (`TargetRegistry::addLowering`, built on an OpPassManager), e.g.
    `sptune-lower-cpu`'s passes for `cpu` (docs/targets.md lists each
    target's). Every schedule of the module (on a
    kernel, or on its function after `sptune-apply-schedule`) must name the
    same target. `target` names it for a module without schedules, and must
    agree with the schedules otherwise. A target's own pipeline takes its
    options (e.g. `sptune-lower-cpu{threads=4}`).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "The target to lower for (default: the schedules' target)">,
  ];
}

def Autotune : Pass<"sptune-autotune", "ModuleOp"> {
  let summary = "Choose each kernel's schedule with the learned cost model";
  let description = [{
    For each op carrying `sptune.kernel` and no `sptune.schedule`: gets the
    kernel's matrix (the `matrix` option, or a `sptune.matrix` string
    attribute — a Matrix Market path or a `gen:` spec — on the function
    argument that feeds the sparse operand), featurizes it, ranks candidate
    schedules from the target's space with the cost model, optionally
    measures the best `measure-top-k` in measurement workers (plus the
    heuristic schedule when the model ranked it lower, unless
    `measure-heuristic=false`) and keeps the fastest, and attaches the winner as `sptune.schedule` with a remark that
    shows the predicted ranking. Without a matrix it falls back to the
    heuristic schedule with a remark saying so.

    Modes (LLVM MLGO's): `release` uses the model shipped with sptune,
    `development` the `model` file (and writes `log`), `heuristic` no model.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target to tune for: a registered target (cpu, nvvm, ...); a "
           "model not trained for it falls back to the heuristic">,
    Option<"mode", "mode", "::sptune::CostModelMode",
           /*default=*/"::sptune::CostModelMode::Release",
           "Cost model mode", [{::llvm::cl::values(
             clEnumValN(::sptune::CostModelMode::Release, "release",
                        "the model shipped with sptune (or `model`)"),
             clEnumValN(::sptune::CostModelMode::Development, "development",
                        "the `model` file, rankings logged to `log`"),
             clEnumValN(::sptune::CostModelMode::Heuristic, "heuristic",
                        "no model: the heuristic schedule first"))}]>,
    Option<"modelPath", "model", "std::string", /*default=*/"\"\"",
           "Model file (development mode; release: override the shipped one)">,
    Option<"logPath", "log", "std::string", /*default=*/"\"\"",
           "Development mode: append the rankings here (JSON lines)">,
    Option<"matrix", "matrix", "std::string", /*default=*/"\"\"",
           "The matrix of every kernel: .mtx path or gen: spec (an "
           "MTTKRP's or a batched SpMM's 3-D tensor: .tns path or gen3: "
           "spec)">,
    Option<"topK", "top-k", "unsigned", /*default=*/"5",
           "Candidates shown in the remark">,
    Option<"measureTopK", "measure-top-k", "unsigned", /*default=*/"0",
           "Measure the best k candidates and keep the fastest (an MTTKRP, a "
           "batched SpMM: the heuristic's and every schedule of its space, on "
           "its tensor)">,
    Option<"measureHeuristic", "measure-heuristic", "bool", /*default=*/"true",
           "When measuring, also measure the heuristic schedule if the model "
           "did not rank it among the best k (a measured choice is then never "
           "slower than the heuristic)">,
    Option<"candidates", "candidates", "unsigned", /*default=*/"1000",
           "Candidates drawn from the schedule space">,
    Option<"seed", "seed", "unsigned", /*default=*/"1",
           "Seed of the candidate sample">,
    Option<"freeSize", "free", "int64_t", /*default=*/"64",
           "Free dense size to assume when the kernel's is dynamic">,
    Option<"database", "database", "std::string", /*default=*/"\"\"",
           "Tuning database (JSONL): a kernel whose matrix, free size, target "
           "and model have a recorded decision (tuned with at least these "
           "candidates and measure-top-k) takes it without ranking or "
           "measuring; new decisions are appended">,
    Option<"multiversion", "multiversion", "unsigned", /*default=*/"0",
           "A kernel without a matrix: emit up to this many variants chosen "
           "for the training matrices and a dispatcher that picks one at run "
           "time from the matrix it is called with (0: the heuristic "
           "schedule; at most 16)">,
    Option<"trainingMatrices", "training-matrices", "std::string",
           /*default=*/"\"\"",
           "multiversion: the training distribution, a directory of .mtx "
           "files or a file of matrix sources a line (default: a built-in "
           "generated set of 48)">,
  ];
  let dependentDialects = ["::mlir::sptune::SptuneDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::sparse_tensor::SparseTensorDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // SPTUNE_TRANSFORMS_PASSES_TD
