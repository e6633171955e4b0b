//===- CpuPasses.h - Passes and pipeline of the CPU target ------*- C++ -*-===//

#ifndef SPTUNE_TARGETS_CPU_CPUPASSES_H
#define SPTUNE_TARGETS_CPU_CPUPASSES_H

#include "cpu/FactoredMttkrp.h"
#include "cpu/GustavsonSpgemm.h"
#include "cpu/HugePageBuffers.h"
#include "cpu/ReductionJam.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "sptune/Support/ListingEnumParser.h"

namespace mlir {
namespace sptune {

/// `parallelization` of sptune-cpu-sparsify and sptune-lower-cpu: from the
/// schedules (auto) or one of the sparsifier's strategies.
enum class ParallelizationChoice {
  Auto,
  None,
  DenseOuterLoop,
  AnyStorageOuterLoop
};
#define SPTUNE_PARALLELIZATION_VALUES                                          \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::sptune::ParallelizationChoice::Auto, "auto",          \
                 "from the schedules"),                                        \
      clEnumValN(::mlir::sptune::ParallelizationChoice::None, "none",          \
                 "sequential"),                                                \
      clEnumValN(::mlir::sptune::ParallelizationChoice::DenseOuterLoop,        \
                 "dense-outer-loop", "outer loop over a dense level"),         \
      clEnumValN(::mlir::sptune::ParallelizationChoice::AnyStorageOuterLoop,   \
                 "any-storage-outer-loop", "outer loop over any level"))

/// `simd32`: 32-bit indices in vector gathers, from the schedules or forced.
enum class Simd32Choice { Auto, On, Off };
#define SPTUNE_SIMD32_VALUES                                                   \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::sptune::Simd32Choice::Auto, "auto",                   \
                 "from the schedules"),                                        \
      clEnumValN(::mlir::sptune::Simd32Choice::On, "true", "32-bit indices"),  \
      clEnumValN(::mlir::sptune::Simd32Choice::Off, "false",                   \
                 "64-bit indices"))

/// A function's OpenMP team size (i32 > 0) for a function that carries no
/// schedule: sptune-omp-schedule sets it as `num_threads` on the function's
/// `omp.parallel` ops unless its `threads` option is set, and removes it.
/// The Gustavson kernel of a scheduled SpGEMM and the MTTKRP kernel carry
/// it (their schedule's or the lowering's threads), not a schedule, which
/// the loop passes for the sparsifier's kernels would read.
constexpr const char *kOmpThreadsAttrName = "sptune.omp_threads";

} // namespace sptune
} // namespace mlir

SPTUNE_LISTING_ENUM_PARSER(::mlir::sptune::ParallelizationChoice)
SPTUNE_LISTING_ENUM_PARSER(::mlir::sptune::Simd32Choice)
SPTUNE_LISTING_ENUM_PARSER(::mlir::sptune::GustavsonAccumulator)
SPTUNE_LISTING_ENUM_PARSER(::mlir::sptune::MttkrpForm)

namespace mlir {
namespace sptune {

#define GEN_PASS_DECL
#include "cpu/CpuPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "cpu/CpuPasses.h.inc"

/// Options of the `sptune-lower-cpu` pipeline. "auto"/-1 take the value from
/// the #sptune.schedule attributes.
struct CpuLoweringOptions : public PassPipelineOptions<CpuLoweringOptions> {
  PassOptions::Option<ParallelizationChoice> parallelization{
      *this, "parallelization",
      llvm::cl::desc("Sparsifier parallelization strategy"),
      llvm::cl::init(ParallelizationChoice::Auto),
      SPTUNE_PARALLELIZATION_VALUES};
  PassOptions::Option<int> vectorLength{
      *this, "vl", llvm::cl::desc("Vector length (-1 = from the schedules)"),
      llvm::cl::init(-1)};
  PassOptions::Option<Simd32Choice> simdIndex32{
      *this, "simd32", llvm::cl::desc("32-bit indices in vector gathers"),
      llvm::cl::init(Simd32Choice::Auto), SPTUNE_SIMD32_VALUES};
  PassOptions::Option<int> threads{
      *this, "threads",
      llvm::cl::desc("OpenMP threads (-1 = from the schedules, 0 = default)"),
      llvm::cl::init(-1)};
  PassOptions::Option<unsigned> reductionJam{
      *this, "jam",
      llvm::cl::desc("Iterations interleaved around a reduction loop "
                     "(sptune-jam-reductions; 1 = off)"),
      llvm::cl::init(kDefaultReductionJam)};
  PassOptions::Option<int64_t> hugePageMinBytes{
      *this, "huge-page-bytes",
      llvm::cl::desc("Buffers a kernel allocates of at least this many "
                     "bytes go on transparent huge pages "
                     "(sptune-huge-page-buffers; 0 = off; Linux only)"),
      llvm::cl::init(kDefaultHugePageMinBytes)};
  PassOptions::Option<bool> enableRuntimeLibrary{
      *this, "enable-runtime-library",
      llvm::cl::desc("Use the sparse runtime library instead of codegen"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> gustavsonSpgemm{
      *this, "gustavson-spgemm",
      llvm::cl::desc("CSR x CSR -> CSR products by sptune's parallel "
                     "Gustavson kernel (false: upstream's, one thread)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseSddmmSpmm{
      *this, "fuse-sddmm-spmm",
      llvm::cl::desc("An SDDMM and the SpMM that alone consumes its result "
                     "in one loop over the rows (false: two kernels)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> factoredMttkrp{
      *this, "factored-mttkrp",
      llvm::cl::desc("MTTKRP over CSF or COO by sptune's kernel (false: "
                     "the sparsifier's loop nest for one without a "
                     "schedule, an error for a scheduled one)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> batchedRowsSpmm{
      *this, "batched-rows-spmm",
      llvm::cl::desc("Batched SpMM over dense batches of CSR rows or COO "
                     "by sptune's kernel, all rows in parallel (false: the "
                     "sparsifier's loop nest for one without a schedule, an "
                     "error for a scheduled one)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> parallelizeUnscheduled{
      *this, "parallelize-unscheduled",
      llvm::cl::desc("Sparse kernels without a schedule get the CPU "
                     "target's rule (a parallel outer loop where it cannot "
                     "race, vectors over a dense parallel loop); false: "
                     "upstream's defaults"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> matrix{
      *this, "matrix",
      llvm::cl::desc("The matrix (.mtx path or gen: spec) the row orders of "
                     "reorder = rcm schedules are computed from, for kernels "
                     "whose sparse argument has no 'sptune.matrix' "
                     "attribute"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> gustavsonOnePassBytes{
      *this, "gustavson-one-pass-bytes",
      llvm::cl::desc("Staging bytes up to which the Gustavson kernel runs in "
                     "one pass, else two (0: always two)"),
      llvm::cl::init(int64_t(1) << 30)};
  PassOptions::Option<GustavsonAccumulator> gustavsonAccumulator{
      *this, "gustavson-accumulator",
      llvm::cl::desc("Where the Gustavson kernel keeps a row's sums"),
      llvm::cl::init(GustavsonAccumulator::Auto),
      SPTUNE_GUSTAVSON_ACCUMULATOR_VALUES};
  PassOptions::Option<MttkrpForm> mttkrpForm{
      *this, "mttkrp-form",
      llvm::cl::desc("How sptune's MTTKRP kernel sums a slice"),
      llvm::cl::init(MttkrpForm::Auto), SPTUNE_MTTKRP_FORM_VALUES};
};

/// Adds the CPU lowering (scheduled sparse kernels to the LLVM dialect with
/// OpenMP) to `pm`, which must run on builtin.module.
void buildCpuLoweringPipeline(OpPassManager &pm,
                              const CpuLoweringOptions &options);

/// Registers the CPU target's passes and the `sptune-lower-cpu` pipeline.
void registerCpuTargetPasses();

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_CPUPASSES_H
