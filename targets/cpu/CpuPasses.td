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
    win when set). Those are module-wide settings of the sparsifier; each
    function gets its own here: scheduled kernels of one function that ask
    for different settings (or share it with a sparse kernel sptune did not
    schedule) are first moved into
    functions of their own (`<function>__sptune_kernel<N>`), and a module
    whose functions ask for different settings is sparsified once per
    setting, each function taken from the copy made with its own.

    A sparse kernel without a schedule (products sptune does not tune, ...) gets
    the CPU target's rule (cpu/UnscheduledKernels.h): its outermost loop
    parallel where whichever loop the sparsifier puts there is a parallel
    loop indexing the dense output, and 8 vector lanes where a parallel loop
    indexes no sparse operand; `parallelize-unscheduled=false` keeps
    upstream's defaults.

    Sparse x sparse products of CSR matrices into a fresh CSR result are
    computed by sptune's parallel two-phase Gustavson kernel
    (cpu/GustavsonSpgemm.h) unless `gustavson-spgemm=false`, a row's sums
    in a dense workspace over C's columns or a hash table
    (`gustavson-accumulator`), each product's kernel built as its schedule
    says (its `parallel`, `threads`, `accumulator` and `passes`); an option
    given explicitly (`gustavson-accumulator` other than auto,
    `parallelization`, `threads` of 0 or more) wins over the schedules,
    and `gustavson-one-pass-bytes` is the budget of `passes = auto`. A
    scheduled product the kernel cannot compute, or that
    `gustavson-spgemm=false` or the runtime library would leave to
    upstream, is an error.

    A scheduled SDDMM whose result feeds only a scheduled SpMM (an
    attention layer: scores, then their weighted sum of H's rows) is
    computed with it in one loop over the rows, each score consumed as it
    is made (cpu/SampledAggregation.h says when), unless
    `fuse-sddmm-spmm=false`.

    An MTTKRP over CSF or COO is computed by sptune's kernel
    (cpu/FactoredMttkrp.h says when): per fiber, the sum of its entries
    times the rows of the last factor, multiplied once by the row of the
    other, or per entry (`mttkrp-form`), A's row in vector registers across
    the slice, slices in parallel. One without a schedule falls back to the
    sparsifier with `factored-mttkrp=false` or
    `parallelize-unscheduled=false` (upstream's defaults); a scheduled one
    (the kernel type `mttkrp`, whose knobs are the kernel's) is the
    kernel's, and `factored-mttkrp=false` or the runtime library make it an
    error. So is a batched
    SpMM over dense batches of CSR rows or COO (cpu/BatchedRowsSpmm.h): its
    rows as one CSR matrix, in blocks of equal work, in parallel. One
    without a schedule falls back to the sparsifier with
    `batched-rows-spmm=false` or `parallelize-unscheduled=false`; a
    scheduled one (the kernel type `batched_spmm`: its `parallel` and
    `threads`) is the kernel's, and `batched-rows-spmm=false` or the
    runtime library make it an error. Neither kernel is used with the
    runtime library.

    A kernel whose schedule has `reorder = rcm` gets its row order computed
    here, from the matrix named by the `sptune.matrix` attribute of its
    sparse argument or by the `matrix` option, embedded as a private
    constant `memref.global` (cpu/RowOrder.h), and a function of its own;
    sptune-cpu-visit-rows-in-order applies it after sparsification.
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
    Option<"gustavsonSpgemm", "gustavson-spgemm", "bool", /*default=*/"true",
           "Compute CSR x CSR -> CSR products with sptune's parallel "
           "Gustavson kernel (false: upstream's sparsifier, one thread; "
           "not with the runtime library)">,
    Option<"fuseSddmmSpmm", "fuse-sddmm-spmm", "bool", /*default=*/"true",
           "Compute a scheduled SDDMM and the scheduled SpMM that alone "
           "consumes its result in one loop over the rows, the scores never "
           "stored (cpu/SampledAggregation.h; false: two kernels)">,
    Option<"factoredMttkrp", "factored-mttkrp", "bool", /*default=*/"true",
           "Compute an MTTKRP over CSF or COO with sptune's kernel (a "
           "scheduled one always: false makes it an error), A's row kept in registers, each fiber's sum "
           "formed once or each entry added (mttkrp-form; "
           "cpu/FactoredMttkrp.h; false: the sparsifier's loop nest, with the "
           "rule for kernels without a schedule)">,
    Option<"batchedRowsSpmm", "batched-rows-spmm", "bool", /*default=*/"true",
           "Compute a batched SpMM over dense batches of CSR rows or COO "
           "with sptune's kernel (a scheduled one always: false makes it an "
           "error), the batches' rows as one CSR matrix, all in parallel, "
           "each row's sums in registers (cpu/BatchedRowsSpmm.h; false: the "
           "sparsifier's loop nest, with the rule for kernels without a "
           "schedule)">,
    Option<"gustavsonOnePassBytes", "gustavson-one-pass-bytes", "int64_t",
           /*default=*/"1073741824",
           "The Gustavson kernel computes a product in one pass when its "
           "staging buffers (a coordinate and a value per product) take at "
           "most this many bytes, else in two (0: always two)">,
    Option<"gustavsonAccumulator", "gustavson-accumulator",
           "::mlir::sptune::GustavsonAccumulator",
           /*default=*/"::mlir::sptune::GustavsonAccumulator::Auto",
           "Where the Gustavson kernel keeps a row's sums",
           "SPTUNE_GUSTAVSON_ACCUMULATOR_VALUES">,
    Option<"mttkrpForm", "mttkrp-form", "::mlir::sptune::MttkrpForm",
           /*default=*/"::mlir::sptune::MttkrpForm::Auto",
           "How sptune's MTTKRP kernel sums a slice: per fiber (factored) "
           "or per entry (entry-wise; auto: entry-wise over COO and over "
           "CSF whose typical entry's fiber has fewer than 8 entries, "
           "cpu/FactoredMttkrp.h)",
           "SPTUNE_MTTKRP_FORM_VALUES">,
    Option<"threads", "threads", "int", /*default=*/"-1",
           "The OpenMP threads the Gustavson, MTTKRP and batched SpMM "
           "kernels cut their rows or slices for, as "
           "sptune-omp-schedule's option (-1: from the schedules, the "
           "runtime's default team without one; 0: the runtime's default "
           "team)">,
    Option<"parallelizeUnscheduled", "parallelize-unscheduled", "bool",
           /*default=*/"true",
           "Sparse kernels without a schedule get the CPU target's rule: a "
           "parallel outer loop where it cannot race, 8 vector lanes where "
           "a parallel loop indexes no sparse operand (false: upstream's "
           "defaults, one thread, scalar)">,
    Option<"matrix", "matrix", "std::string", /*default=*/"\"\"",
           "The matrix (.mtx path or gen: spec) the row orders of "
           "reorder = rcm schedules are computed from, for kernels whose "
           "sparse argument has no 'sptune.matrix' attribute">,
  ];
}

def CpuOmpSchedule : Pass<"sptune-omp-schedule", "ModuleOp"> {
  let summary = "Set thread count, schedule kind and chunk on OpenMP ops";
  let description = [{
    After convert-scf-to-openmp: for each function carrying a
    `#sptune.schedule`, sets `num_threads` on its `omp.parallel` ops and the
    schedule kind and chunk size on its `omp.wsloop` ops from the schedule
    (options override when set); for one carrying `sptune.omp_threads` (the
    Gustavson kernel of a scheduled SpGEMM, an MTTKRP or batched SpMM
    kernel),
    `num_threads` from it. The
    function's attributes are consumed (removed), so the lowered module does
    not depend on sptune.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"-1",
           "Threads (-1 = from the schedule, 0 = runtime default)">,
  ];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::arith::ArithDialect"];
}

def CpuPromoteAccumulators : Pass<"sptune-promote-accumulators",
                                  "::mlir::func::FuncOp"> {
  let summary = "Keep the vectors a loop accumulates into in registers";
  let description = [{
    After sparsification, in functions carrying a `#sptune.schedule`: for
    each `scf.for` that loads and stores vectors of one buffer at positions
    invariant in the loop (SpMM's row of C across the loop over a row's
    stored entries, with the free loop innermost and vectorized), unrolls the
    fixed-trip vector loop over the free dimension and carries those vectors
    through the loop: one load before it, one store after it. LLVM cannot do
    this itself, since it cannot prove that C and B do not overlap; here the
    buffers are the kernel's distinct operands. Loops where it is not legal
    (another write, another view of the buffer, overlapping positions) are
    left as they are; `remarks` says why.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each loop promoted or refused">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def CpuFactorReductions : Pass<"sptune-factor-reductions",
                               "::mlir::func::FuncOp"> {
  let summary = "Multiply a loop's sum by its loop-invariant factors once";
  let description = [{
    After sparsification, in functions carrying a `#sptune.schedule`: for
    each `scf.for` carrying a scalar floating-point sum `acc + x * y * ...`
    in which some factors do not change in the loop (values defined outside
    it, or loads at positions defined outside it in a loop that writes no
    memory), sums the product of the other factors from zero and multiplies
    the sum by the invariant factors after the loop. The sparsifier's SDDMM
    (`sum_k (S(p) * A(i, k)) * B(k, j)`) becomes a plain dot product times
    S(p): one fused multiply-add per term instead of two multiplies and an
    add. Only sums and products marked `reassoc` are rewritten; in a loop
    that may not run, the moved loads and the result are guarded by whether
    it does. The operations the rewrite leaves unused are erased.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each loop whose sums were factored">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def CpuJamReductions : Pass<"sptune-jam-reductions", "::mlir::func::FuncOp"> {
  let summary = "Interleave several iterations around a reduction loop";
  let description = [{
    After sparsification, in functions carrying a `#sptune.schedule`: each
    `scf.for` with step 1 whose body holds one loop that carries values (a
    reduction, e.g. SDDMM's dot product over k inside the loop over a row's
    stored entries) is unrolled by `factor` and its copies jammed into one
    reduction loop carrying `factor` independent sums; the iterations left
    over (fewer than `factor`) run in the original loop. Legal when the
    iterations touch disjoint memory: their writes are scalar stores indexed
    by the induction variable, to buffers read only at those elements; the
    reduction loop's bounds do not depend on the loop and it writes nothing.
    Loops where it is not legal are left as they are; `remarks` says why.
  }];
  let options = [
    Option<"factor", "factor", "unsigned",
           /*default=*/"::mlir::sptune::kDefaultReductionJam",
           "Iterations interleaved (1 = off)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each loop interleaved or refused">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def CpuHugePageBuffers : Pass<"sptune-huge-page-buffers", "ModuleOp"> {
  let summary = "Put the large buffers a kernel allocates on huge pages";
  let description = [{
    After sparsification and bufferization, in functions carrying a
    `#sptune.schedule`, outside the parallel loops of the SpGEMM kernels
    sptune writes (`sptune.gustavson_kernel`), and anywhere for allocations
    marked `sptune.huge_page_buffer` (the outputs of sptune's MTTKRP and
    batched SpMM kernels): each `memref.alloc` of at least `min-bytes` bytes
    (checked at run time for dynamic sizes) is aligned to 2 MiB and followed
    by `madvise(MADV_HUGEPAGE)` on the 2 MiB pages the buffer covers
    entirely, `madvise` declared in the module. A kernel that allocates per call
    (SDDMM's copy of S and its B^T, SpGEMM's C, MTTKRP's A) then faults its buffers in 2 MiB at a
    time instead of 4 KiB, where the OS has transparent huge pages
    (`always` or `madvise`); elsewhere the call changes nothing. Linux only:
    the CPU pipeline adds it when sptune is built for Linux.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t",
           /*default=*/"::mlir::sptune::kDefaultHugePageMinBytes",
           "Smallest buffer advised, in bytes">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def CpuContractFma : Pass<"sptune-contract-fma", "::mlir::func::FuncOp"> {
  let summary = "Let multiply-adds of scheduled kernels fuse";
  let description = [{
    In functions carrying a `#sptune.schedule`, marks each `arith.addf` /
    `arith.subf` fed by a single-use `arith.mulf`, and that multiply, with
    the `contract` fast-math flag, so LLVM emits a fused multiply-add: what
    clang's default -ffp-contract=on gives the C++ baselines. No other
    fast-math freedom is given.
  }];
}

def CpuBalanceRows : Pass<"sptune-balance-rows", "ModuleOp"> {
  let summary = "Cut parallel row loops into blocks of equal stored entries";
  let description = [{
    In functions whose `#sptune.schedule` has `omp = balanced`, rewrites each
    outermost `scf.parallel` over the rows of compressed storage into one
    over as many blocks as threads (the `threads` option, else the
    schedule's `threads`, else `omp_get_max_threads()` at run time), each an
    `scf.for` over the rows whose first stored entry falls in the block's
    equal share of the entries, found by binary search in the positions
    array. Fails when a function has parallel loops and none can be cut (the
    schedule would silently run with the static schedule). Runs after
    sparsification, before the conversion to OpenMP.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"-1",
           "Blocks per loop, as sptune-omp-schedule's threads (-1 = the "
           "schedules' threads; 0 = the runtime's team size)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def CpuVisitRowsInOrder : Pass<"sptune-cpu-visit-rows-in-order", "ModuleOp"> {
  let summary = "Visit a kernel's rows in its embedded row order";
  let description = [{
    In each function whose `sptune.row_order` attribute names a constant
    `memref.global` of i32 (put there by sptune-cpu-sparsify for a
    `reorder = rcm` schedule), rewrites each outermost loop the sparsifier
    emitted over the rows of compressed storage (an `scf.parallel` or an
    `scf.for` without carried values, from 0 by 1) so that its iteration n
    works on row `order[n]`: every use of the row inside the loop reads the
    order instead. The results land in their own rows, so any operand gets
    the right answer; one whose row count is not the order's length is
    visited in storage order. Fails when such a function has no loop it can
    rewrite (the schedule would silently run in storage order). Runs after
    sparsification, before the conversion to OpenMP.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // SPTUNE_TARGETS_CPU_CPUPASSES_TD
