//===- HugePageBuffers.h - Large kernel buffers on huge pages ---*- C++ -*-===//
//
// A scheduled kernel allocates buffers of its own on every call: SDDMM's copy
// of S (positions, coordinates, values) and its B^T. Once they outgrow what
// glibc keeps between calls, it returns them to the OS when they are freed,
// and every call faults every page of them in again, 4 KiB at a time. On a VM a fault costs microseconds: on
// ego-Twitter (2.7 million stored entries) SDDMM with B as written took
// 145 ms a call, most of it 17,000 page faults, and 25 ms with its large
// buffers on transparent huge pages (docs/results.md). The kernel asks for them
// itself: a large buffer is allocated on a 2 MiB boundary and
// madvise(MADV_HUGEPAGE) covers its whole 2 MiB pages, which the OS honours
// where transparent huge pages are enabled (`always` or `madvise`, the default
// of most distributions) and ignores elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_HUGEPAGEBUFFERS_H
#define SPTUNE_TARGETS_CPU_HUGEPAGEBUFFERS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlir {
namespace sptune {

/// The smallest buffer advised by default (sptune-huge-page-buffers'
/// `min-bytes`): two huge pages.
constexpr int64_t kDefaultHugePageMinBytes = 4 << 20;

/// Linux's MADV_HUGEPAGE and the x86-64 / AArch64 huge page size.
constexpr int32_t kMadvHugePage = 14;
constexpr int64_t kHugePageBytes = 2 << 20;

/// Marks a `memref.alloc` of a kernel sptune writes itself, outside the
/// scheduled functions, as one to advise: the output the MTTKRP and batched
/// SpMM kernels allocate in each call (A of a tall tensor's MTTKRP is
/// 256 MB: 62,500 small pages to fault in per call).
constexpr const char *kHugePageBufferAttrName = "sptune.huge_page_buffer";

/// For each `memref.alloc` (identity layout, integer, index or float
/// elements) in the functions of `module` that carry a `#sptune.schedule`,
/// outside the parallel loops of the Gustavson SpGEMM kernels
/// (`sptune.gustavson_kernel`: C's buffers, the work and the row starts, not
/// the blocks' workspaces), and marked kHugePageBufferAttrName anywhere,
/// when the buffer has at least `minBytes` bytes (at run time, for dynamic
/// sizes): allocates it aligned to 2 MiB (the allocation is padded by that
/// much address space, never touched) and calls madvise(MADV_HUGEPAGE) on
/// the 2 MiB pages it covers entirely (declaring `madvise` when the module
/// does not). Smaller buffers are allocated as before.
/// Fails when the module declares a `madvise` of another type. Returns how
/// many allocations were advised.
FailureOr<int64_t> adviseHugePages(ModuleOp module, int64_t minBytes);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_HUGEPAGEBUFFERS_H
