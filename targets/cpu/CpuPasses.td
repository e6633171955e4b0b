//===- CpuPasses.td - Passes of the CPU target -------------*- tablegen -*-===//

#ifndef SPTUNE_TARGETS_CPU_CPUPASSES_TD
#define SPTUNE_TARGETS_CPU_CPUPASSES_TD

include "mlir/Pass/PassBase.td"

def CpuSparsify : Pass<"sptune-cpu-sparsify", "ModuleOp"> {
  let summary = "Sparsify and bufferize with the settings of the schedules";
  let description = [{
    Runs upstream's sparsification-and-bufferization mini-pipeline with the
    parallelization strategy, vector length and 32-bit SIMD indices taken
    from the `#sptune.schedule`s in the module (or from the options, which
    win when set). Those are module-wide settings of the sparsifier: when
    the schedules of a module disagree, the first kernel's settings are used
    and a warning names the others.
  }];
  let options = [
    Option<"parallelization", "parallelization",
           "::mlir::sptune::ParallelizationChoice",
           /*default=*/"::mlir::sptune::ParallelizationChoice::Auto",
           "Sparsifier parallelization strategy",
           "SPTUNE_PARALLELIZATION_VALUES">,
    Option<"vectorLength", "vl", "int", /*default=*/"-1",
           "Vector length (-1 = from the schedules, 0 = off)">,
    Option<"simdIndex32", "simd32", "::mlir::sptune::Simd32Choice",
           /*default=*/"::mlir::sptune::Simd32Choice::Auto",
           "32-bit indices in vector gathers", "SPTUNE_SIMD32_VALUES">,
    Option<"enableRuntimeLibrary", "enable-runtime-library", "bool",
           /*default=*/"false",
           "Lower sparse tensors through the runtime library instead of "
           "direct code generation">,
  ];
}

def CpuOmpSchedule : Pass<"sptune-omp-schedule", "ModuleOp"> {
  let summary = "Set thread count, schedule kind and chunk on OpenMP ops";
  let description = [{
    After convert-scf-to-openmp: for each function carrying a
    `#sptune.schedule`, sets `num_threads` on its `omp.parallel` ops and the
    schedule kind and chunk size on its `omp.wsloop` ops from the schedule
    (options override when set). The function's schedule attribute is
    consumed (removed), so the lowered module does not depend on sptune.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"-1",
           "Threads (-1 = from the schedule, 0 = runtime default)">,
  ];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // SPTUNE_TARGETS_CPU_CPUPASSES_TD
