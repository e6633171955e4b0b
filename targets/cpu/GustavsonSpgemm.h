//===- GustavsonSpgemm.h - Sparse x sparse products, row by row -*- C++ -*-===//
//
// C = A B with A, B and C stored as CSR. Upstream's sparsifier computes it
// in one thread: it inserts into C through an expanded access pattern, and
// never parallelizes insertions into a fresh sparse tensor. sptune computes
// it as a Gustavson product over blocks of rows of equal work (the products
// a row makes, plus one), one block per OpenMP thread, each with a bit set
// and a dense accumulator over C's columns. A row's columns are gathered as
// they first appear and put in order: read off the bit set's words they
// span (counting trailing zeros) where those are few next to the columns,
// else sorted; then stored with their sums. In one pass when C's buffers
// with a slot per product fit a budget:
//
//   1. each block computes its rows into its region of C's buffers;
//   2. a prefix sum of the rows' counts gives C's positions;
//   3. each block's entries move down to their place: with two blocks in
//      parallel, with more one block after the other (a block's entries
//      split across the threads where their place does not overlap them);
//      C keeps the capacity;
//
// else in two: each row's distinct columns are counted first (with the bit
// set and a list of the row's columns, or with the hash table alone), a
// prefix sum gives C's positions, and each row is then computed into its
// place.
//
// A row's sums are kept in one of two workspaces (the accumulator knob):
//
//   - dense: the bit set above, a list of the row's columns and values at
//     their columns, 9-17 bytes per column of C per block (a bit, an 8-byte
//     column and a value of 1-8 bytes): a row's columns are found without
//     hashing, and read off in order; the workspace of a matrix with 10^8
//     columns takes gigabytes per thread;
//   - hash: an open-addressing table of a power of two slots, at least twice
//     the most products a row makes (Fibonacci hashing, linear probing), each
//     slot stamped with the row that took it, so nothing is cleared between
//     rows; a row's columns are sorted with their slots. Its size follows the
//     rows, not C's columns.
//
// `auto` takes the dense workspace unless it would take more than
// kDenseWorkspaceBudget bytes over all blocks and the hash table would take
// less (decided when the kernel runs, from C's columns, the longest row and
// the threads). A failed allocation prints the bytes it asked for and exits
// with status 1 (the process that called the kernel, too), and so does a
// product whose entries, or B's columns, C's positions or coordinates are
// too narrow to hold (a 32-bit C of 64-bit inputs).
//
// Its result is exactly upstream's: the same entries (sums that cancel to
// zero stay stored, as the sparsifier stores them), columns sorted.
//
// The op is replaced, before sparsification, by a call to a declared
// function (outlineGustavsonSpgemm); the sparsifier's code generation turns
// its sparse arguments and result into buffers (positions, coordinates,
// values and a storage specifier per tensor), and the function's body is
// written on those buffers afterwards (defineGustavsonSpgemmKernels).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_GUSTAVSONSPGEMM_H
#define SPTUNE_TARGETS_CPU_GUSTAVSONSPGEMM_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace sptune {

/// Where the Gustavson kernel keeps a row's sums (the file header).
enum class GustavsonAccumulator { Auto, Dense, Hash };
#define SPTUNE_GUSTAVSON_ACCUMULATOR_VALUES                                    \
  ::llvm::cl::values(                                                          \
      clEnumValN(::mlir::sptune::GustavsonAccumulator::Auto, "auto",           \
                 "dense unless its workspace exceeds 1 GiB and the hash "      \
                 "table's is smaller"),                                        \
      clEnumValN(::mlir::sptune::GustavsonAccumulator::Dense, "dense",         \
                 "a bit set and values over C's columns"),                     \
      clEnumValN(::mlir::sptune::GustavsonAccumulator::Hash, "hash",           \
                 "a hash table sized by the longest row"))

/// The bytes over all blocks up to which `auto` takes the dense workspace.
constexpr int64_t kDenseWorkspaceBudget = int64_t(1) << 30;

/// One pass with more than two blocks moves a block's entries into place
/// across the threads when they are at least this many (and their place does
/// not overlap them); fewer move in one thread, cheaper than a fork-join.
constexpr int64_t kParallelMoveEntries = int64_t(1) << 14;

/// How one kernel is built: the lowering's options, and where the product
/// has a schedule (KernelType::SpGEMM), its CPU knobs.
struct GustavsonSettings {
  /// One pass when C's buffers with a slot per product and per row (a
  /// coordinate and a value) take at most this many bytes, else two.
  int64_t onePassBytes = int64_t(1) << 30;
  /// One block of rows per thread: `threads` (> 0, the threads its OpenMP
  /// loops are given), else as many as the OpenMP runtime's default team.
  int threads = 0;
  GustavsonAccumulator accumulator = GustavsonAccumulator::Auto;
  bool operator==(const GustavsonSettings &o) const {
    return onePassBytes == o.onePassBytes && threads == o.threads &&
           accumulator == o.accumulator;
  }
};

/// The attribute that marks a declared Gustavson kernel function; its value
/// is the array of the kernel's tensor types (A, B, C).
constexpr const char *kGustavsonSpgemmAttrName = "sptune.gustavson_spgemm";
/// The attribute that holds a declared kernel's GustavsonSettings, a
/// dictionary {accumulator = "auto" | "dense" | "hash", one_pass_bytes,
/// threads}.
constexpr const char *kGustavsonSettingsAttrName = "sptune.gustavson_settings";
/// The unit attribute that marks a defined Gustavson kernel (the two above
/// are spent): sptune-huge-page-buffers advises its large buffers outside
/// its parallel loops (C, which the kernel allocates on every call, and the
/// row-sized work and row starts) as it does a scheduled kernel's.
constexpr const char *kGustavsonKernelAttrName = "sptune.gustavson_kernel";

/// Replaces `op` (for which whyNotRowWiseSpgemm is "",
/// sptune/Analysis/SpgemmForm.h) with a call to a declared kernel function
/// of its types built with `settings` (one per signature and settings in
/// the module). The inputs are declared read-only, so bufferization does not
/// copy them. With `settings.threads` > 0 the function carries it as its
/// OpenMP team size (kOmpThreadsAttrName, cpu/CpuPasses.h).
void outlineGustavsonSpgemm(RewriterBase &rewriter, linalg::LinalgOp op,
                            const GustavsonSettings &settings);

/// After the sparsifier's code generation: gives every declared kernel
/// function of `module` its body, on the buffers its signature now has,
/// built as its settings say. Fails (with an error on the function) when its
/// recorded types are not those of a product the kernel computes, or its
/// signature is not the one code generation gives CSR tensors. The body
/// uses sparse_tensor.sort, which sparse-buffer-rewrite lowers, and storage
/// specifier ops.
LogicalResult defineGustavsonSpgemmKernels(ModuleOp module);

/// Whether `module` declares a Gustavson kernel still without a body (one
/// outlined by outlineGustavsonSpgemm, or written by hand).
bool hasGustavsonDeclarations(ModuleOp module);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_GUSTAVSONSPGEMM_H
