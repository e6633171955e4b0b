//===- FactoredMttkrp.h - MTTKRP, each fiber summed once -------*- C++ -*-===//
//
// MTTKRP (mode 1), A(i, j) = sum over k, l of B(i, k, l) C(k, j) D(l, j),
// with B in CSF or COO (slices i, fibers (i, k), entries l), is what CP
// decompositions spend their time in. MLIR's sparsifier computes it as the
// loop nest is written: for each stored entry, B(i, k, l) C(k, :) D(l, :)
// added to A(i, :), two multiplies per entry and column, A's row loaded and
// stored per entry. sptune computes it as SPLATT does (Smith et al., IPDPS
// 2015): per fiber, the sum over its entries of B(i, k, l) D(l, :), then
// multiplied by C(k, :) once, A's row and the fiber's sum held in vector
// registers across the slice and the fiber, A's row stored once per slice;
// slices in parallel (each writes its own row of A), in one block per thread
// of equal work (a slice's entries plus its fibers; rowBlocks). (On a
// power-law tensor of 200 slices whose two halves hold 55% and 45% of the
// entries, OpenMP's static halves of the slices took 5-14% longer, 21.0
// and 23.2 ms against 19.9 and 20.2 in two runs on the Intel Xeon VM; on
// the uniform, the other power-law and the tall tensor of docs/results.md,
// static over blocks was 0.98-1.05x. A first try, on a tensor of another
// generator, had found blocks 10% slower: 24.8 against 22.6 ms.)
//
// A slice is summed in one of two forms (MttkrpForm, the `mttkrp-form`
// option):
//   - factored, as above: the fewest multiplies and C(k, :) read once per
//     fiber, but a loop per fiber, whose end a branch predictor misses when
//     fibers are short and of varying length;
//   - entry-wise: one loop over the slice's entries adding B(i, k, l)
//     C(k, :) D(l, :) each (one multiply more per entry and column, C(k, :)
//     read per entry), the fiber of entry p (so its k) following p without
//     a branch over CSF, read from the entry over COO.
// `auto` (the default) takes entry-wise over COO, and over CSF when the
// fiber holding a typical entry (the entry-weighted mean fiber length,
// estimated from kFiberLengthSamples evenly spaced entries, each fiber
// found by a binary search: a few thousand loads) has fewer than
// kShortFiberLength entries. Measured on the Intel Xeon VM (docs/
// results.md "MTTKRP on tensors of sptune's own generator"): entry-wise is
// 1.07-1.29x faster on uniform tensors, whose typical entry's fiber holds
// 1.5-5 entries; on power-law tensors, whose typical entry lies in a fiber
// of 17-88 entries (heavy fibers, their C(k, :) from L3), factored took
// 0.89-1.04x entry-wise's time (faster or even).
//
// An MTTKRP is computed so (else the sparsifier computes it, with the CPU
// target's rule for kernels without a schedule; whyNotFactoredMttkrp says
// why; `factored-mttkrp=false` and `parallelize-unscheduled=false` turn the
// kernel off for an MTTKRP without a schedule, and a scheduled one it
// cannot compute, or that `factored-mttkrp=false` or the runtime library
// would leave to the sparsifier, is an error) when
//   - its body is a plain multiply-accumulate (no invariant factor); with
//     a schedule (the kernel type `mttkrp`, whose knobs are the kernel's:
//     parallel, threads, form), or without one;
//   - B is its only sparse operand: rank 3, levels in dimension order, not
//     a slice, no explicit or implicit value, stored as
//       - CSF: the first level dense or compressed and ordered, the two
//         others compressed, every compressed level unique; or
//       - ordered COO (cpu/CooEntries.h). There are no positions of
//         slices or fibers: the entries are cut into one block per thread
//         of equal entries, each cut moved forward to the start of a slice
//         (so that no two blocks write one row of A), and a block walks its
//         entries once, a slice ending where i changes (and, factored, a
//         fiber where (i, k) does; one pass: 10-14% faster than finding
//         each end first);
//   - it reads C(k, j) and D(l, j) with j contiguous and writes A(i, j),
//     i, k, l B's dimensions in order, and j of one static size (the rank)
//     with a row of at most kMaxMttkrpRowBytes;
//   - A starts from a linalg.fill of a fresh tensor
//   (sptune/Analysis/FilledValue.h:
//     the kernel allocates A, rows of no slice hold the fill's value, the
//     others start from it; over CSF each slice fills the rows of no slice
//     between the previous slice and itself (the last also those after
//     it), over COO each block those it owns (CooEntries::ownedRow), so
//     that A is written once, in parallel: a tensor of a million slices
//     took 2.1x less time than with A filled in one thread first);
//   - one element type, f32 or f64.
//
// The op is replaced, before sparsification, by a call to a declared
// function (one per signature, parallelism and settings in the module), whose
// body is written on the buffers that code generation gives its arguments
// (defineFactoredMttkrpKernels), as for the fused SDDMM-SpMM kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_FACTOREDMTTKRP_H
#define SPTUNE_TARGETS_CPU_FACTOREDMTTKRP_H

#include "cpu/CpuKnobs.h"

#include "sptune/Analysis/MttkrpForm.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// How the kernel sums a slice (the file header): `auto` decides at run
/// time from B's entries per fiber. The schedule knob's type
/// (cpu/CpuKnobs.h), also the lowering's `mttkrp-form` option.
using MttkrpForm = ::sptune::MttkrpForm;
#define SPTUNE_MTTKRP_FORM_VALUES                                              \
  ::llvm::cl::values(                                                          \
      clEnumValN(::sptune::MttkrpForm::Auto, "auto",                           \
                 "entry-wise over COO, and over CSF whose typical entry's "    \
                 "fiber has fewer than 8 entries; else factored"),             \
      clEnumValN(::sptune::MttkrpForm::Factored, "factored",                   \
                 "each fiber's sum of B D formed once, times C"),              \
      clEnumValN(::sptune::MttkrpForm::EntryWise, "entry-wise",                \
                 "B(i, k, l) C(k, :) D(l, :) added per entry"))

/// `auto` over CSF sums a slice entry-wise when the fiber holding a typical
/// entry has fewer than this many entries (estimated from
/// kFiberLengthSamples entries; the file header).
constexpr int64_t kShortFiberLength = 8;
constexpr int64_t kFiberLengthSamples = 256;

/// The attribute that marks a declared kernel: a dictionary
/// {types = [B, C, D, A], parallel = bool}.
constexpr const char *kFactoredMttkrpAttrName = "sptune.factored_mttkrp";

/// The attribute that holds a declared kernel's settings (MttkrpSettings),
/// a dictionary {form = "auto" | "factored" | "entry_wise", threads = N};
/// a declaration without it (written by hand) takes the lowering's
/// `mttkrp-form` and `threads` options.
constexpr const char *kMttkrpSettingsAttrName = "sptune.mttkrp_settings";

/// How an MTTKRP's kernel is built: the lowering's options given
/// explicitly, else its schedule's knobs, else the options' defaults
/// (CpuSparsify).
struct MttkrpSettings {
  MttkrpForm form = MttkrpForm::Auto;
  /// The blocks B is cut into and its team size when parallel (> 0), else
  /// the OpenMP runtime's default team (0).
  int threads = 0;
};

/// An MTTKRP as the kernel reads it.
struct FactoredMttkrp {
  linalg::LinalgOp op;
  Value b;         ///< B(i, k, l), the CSF tensor
  Value c, d;      ///< C(k, j), D(l, j)
  Value fillValue; ///< the value A's fill writes
};

/// Why `op` cannot run as the factored kernel (the file header's
/// conditions, sptune/Analysis/MttkrpForm.h), or "" when it can, with
/// `mttkrp` filled in.
std::string whyNotFactoredMttkrp(linalg::LinalgOp op, FactoredMttkrp &mttkrp);

/// Replaces `mttkrp.op` with a call to a declared kernel that computes A;
/// A's fill and fresh tensor go where nothing else uses them. `parallel`:
/// the slice loop runs in parallel (else in one thread). `settings`: how
/// the kernel is built (kMttkrpSettingsAttrName; its team size, when
/// parallel with threads > 0, as kOmpThreadsAttrName): one kernel per
/// signature, parallelism and settings.
void outlineFactoredMttkrp(RewriterBase &rewriter, const FactoredMttkrp &mttkrp,
                           bool parallel, const MttkrpSettings &settings);

/// After the sparsifier's code generation: gives every declared kernel of
/// `module` its body on the buffers its signature now has. Fails (with an
/// error on the function) when its marks or signature are not the ones
/// outlineFactoredMttkrp and code generation give.
/// `threads`: the blocks B's slices (CSF) or entries (COO) are cut into when
/// the kernel runs in parallel (0: omp_get_max_threads() at run time);
/// `form`: how a slice is summed. A kernel with settings
/// (kMttkrpSettingsAttrName) takes its own instead.
LogicalResult defineFactoredMttkrpKernels(ModuleOp module, int threads,
                                          MttkrpForm form = MttkrpForm::Auto);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_FACTOREDMTTKRP_H
