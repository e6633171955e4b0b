//===- CpuHeuristic.cpp - The CPU target's model-free schedules -----------===//

#include "cpu/CpuHeuristic.h"

#include "cpu/CpuKnobs.h"

using namespace sptune;

Schedule sptune::cpuMlirDefaultSchedule(KernelType kernel) {
  Schedule s = Schedule::csr(TargetKind::CPU, kernel);
  // Upstream's loop sort (sparse-reinterpret-map, default strategy) puts the
  // reduction before the last parallel loop: (i, k, j) for SpMM as for
  // SDDMM, where k is the free loop (CSR's order is (i, j, k) there).
  std::optional<Role> free = s.freeRole();
  if (free && free == Schedule::reductionRole(kernel) &&
      s.loopOrder.size() == 3)
    std::swap(s.loopOrder[1], s.loopOrder[2]);
  cpuKnobs(s).parallel = ParallelKind::Outer;
  return canonicalize(s);
}

/// The multiply-adds (stored entries times the free size, or the stored
/// entries of a kernel without a free loop) below which the heuristic runs
/// a kernel of shape `shape` in one thread, or 0 for shapes it has not been
/// measured on. On two cores an OpenMP loop adds 2-4 microseconds a call,
/// more than its split saves on a kernel that takes about 4 microseconds or
/// less in one thread. Measured on the 2-core AMD EPYC VM (docs/results.md,
/// "Tiny kernels in one thread"): the heuristic's schedule with
/// `parallel = none` against the same with its OpenMP loop, paired in one
/// worker, on the 64 shared matrices (46 to 2.7 million stored entries), f32,
/// N = K = 16, 64 and 256. One thread stops winning at about 7,400
/// multiply-adds for SpMV (a scalar one per entry), 19,000-26,000 for SDDMM
/// (dot products of K) at every K, and 65,000-100,000 for SpMM (rows of C in
/// vectors) at N = 16 and 64, 60,000-75,000 at N = 256. The thresholds sit
/// at or below those crossovers.
static int64_t sequentialWorkThreshold(ProductShape shape) {
  switch (shape) {
  case ProductShape::MatrixVector:
    return 6144;
  case ProductShape::SampledMatrixMatrix:
    return 16384;
  case ProductShape::MatrixMatrix:
    return 65536;
  case ProductShape::Elementwise:
  case ProductShape::Other:
    return 0;
  }
  return 0;
}

/// The batched SpMM's threshold: SpMM's, as each batch is one (rows of C in
/// vectors; its work the tensor's stored entries times N). Measured on the
/// 2-core AMD EPYC VM (docs/results.md "A batched SpMM model learned from
/// no data": 108 generated tensors of 1 to 512 batches, 12 to 2.1 million
/// entries, both schedules of its space, f32, N = 32; each schedule's
/// fastest measurement): one thread won on all 42 tensors below the
/// threshold (under 2,048 entries; by up to 52x), and on 14 of the 66 above
/// it, 13 of them under 10,000 entries (by up to 2.7x; the 14th, by 5.8x,
/// is a noisy measurement). Scored as bench/spgemm-learn.py scores it, the
/// rule's schedule is 0.970 of the best in geometric mean on the 41
/// validation tensors of docs/results.md (0.935 on all 108), against 0.392
/// (0.394) for all rows in parallel everywhere. (A threshold of 131,072
/// would score 0.957 (0.958); `<=` instead of `<`, 0.979 (0.962), owing to
/// four tensors of exactly 2,048 entries. The rule keeps SpMM's.)
static int64_t sequentialWorkThreshold(KernelType kernel) {
  if (kernel == KernelType::BatchedSpMM)
    return sequentialWorkThreshold(ProductShape::MatrixMatrix);
  return sequentialWorkThreshold(productShape(kernel));
}

/// Whether a kernel of `kernel`'s type on a sparse operand with `stats` (of
/// a tensor: only its stored entries are read) and free size `free` (0 =
/// unknown; ignored without a free loop) does too little work to share
/// among threads. An empty operand does.
static bool tooSmallToShare(KernelType kernel, const MatrixStats *stats,
                            bool freeLoop, int64_t free) {
  if (!stats || (freeLoop && free <= 0))
    return false; // the work is unknown
  double work = static_cast<double>(stats->nnz) *
                static_cast<double>(freeLoop ? free : 1);
  return work < static_cast<double>(sequentialWorkThreshold(kernel));
}

Schedule sptune::cpuHeuristicSchedule(KernelType kernel,
                                      const MatrixStats *stats, int64_t free) {
  // SpGEMM: the Gustavson kernel on the operands' CSR, one block of rows of
  // equal work per thread; its accumulator and pass count are left auto:
  // to the lowering's options, by default the kernel's run-time rules (the
  // dense workspace unless it passes 1 GiB over all threads, one pass
  // unless C's buffers with a slot per product pass 1 GiB). Measured on the AMD
  // EPYC VM over the 14 large shared matrices (A·A, docs/results.md, "The hash
  // accumulator of the SpGEMM kernel"): the dense workspace beat the hash table
  // on every one (the hash table 0.27x-0.96x its speed); the hash table won by
  // at most 1.10x, on generated products of millions of scattered columns.
  // MTTKRP: the kernel on B's own storage, one block of slices of equal
  // work per thread; its form is left auto: to the lowering's mttkrp-form
  // option, by default the kernel's run-time rule (entry-wise over COO and
  // over CSF whose typical entry's fiber holds fewer than 8 entries; on the
  // Intel Xeon VM, docs/results.md "MTTKRP on tensors of sptune's own
  // generator", entry-wise was 1.07-1.29x faster on uniform tensors and
  // factored 0.89-1.04x of entry-wise's time on power-law ones).
  // The batched SpMM: the kernel on A's own storage, all rows of all
  // batches in one block of equal work per thread (on the Intel Xeon VM,
  // docs/results.md "Batched SpMM by sptune's own kernel", 1.76x the
  // sparsifier's loop nest over the batches), or one thread when the tensor
  // (`stats`: its stored entries) holds too little work to share.
  if (keepsOperandStorage(kernel)) {
    Schedule s = Schedule::csr(TargetKind::CPU, kernel);
    cpuKnobs(s).parallel =
        kernel == KernelType::BatchedSpMM &&
                tooSmallToShare(kernel, stats, /*freeLoop=*/true, free)
            ? ParallelKind::None
            : ParallelKind::Outer;
    return canonicalize(s);
  }
  // Mostly empty rows: do not visit them (DCSR) — otherwise the outer loop
  // costs O(rows) instead of O(nonempty rows).
  bool hyperSparse =
      stats && stats->rows > 0 &&
      static_cast<double>(stats->emptyRows) > 0.5 * static_cast<double>(stats->rows);
  Schedule s = hyperSparse ? Schedule::dcsr(TargetKind::CPU, kernel)
                           : Schedule::csr(TargetKind::CPU, kernel);
  // CSR levels give the loop order i, k, then the free loop innermost: for
  // SpMM that is the row-wise product (j innermost streams rows of B and C;
  // the order i, j, k would re-walk each sparse row N times and read B by
  // columns), for SDDMM the dot product over k innermost.
  CpuKnobs &c = cpuKnobs(s);
  c.parallel = ParallelKind::Outer;
  // Imbalanced rows: dynamic chunks of 256 rows (64 cost SpMM 20% on
  // email-Enron in libomp's dispatch). Not for SpMV, whose rows are so
  // cheap that the dispatch of each chunk costs more than the imbalance
  // (measured 4-7x slower with chunks of 16 on 2 cores).
  bool imbalanced = stats && stats->rowMean > 0 &&
                    stats->rowStd > 1.0 * stats->rowMean;
  // (SpMV's shape: no free loop, one multiply-add per stored entry.)
  bool freeLoop = s.freeRole().has_value();
  if (imbalanced && freeLoop) {
    c.omp = OmpScheduleKind::Dynamic;
    c.chunk = 256;
  } else if (whyNotBalanceable(s).empty()) {
    // Otherwise one block of rows per thread, as OpenMP's static schedule
    // gives, but cut where the stored entries split evenly rather than the
    // rows (two binary searches per thread): never a worse split, and a much
    // better one for SpMV on skewed rows, which cannot afford dynamic
    // chunks. Measured on the AMD EPYC VM over the 14 large shared
    // matrices, N = 64 (docs/results.md, "Rows balanced by stored
    // entries"): SpMV 1.09x the static schedule (13 of 14 faster, up to
    // 1.45x on wiki-Vote), SpMM and SDDMM where the rule kept static even
    // (1.00x; 0.97x to 1.08x, and one noisy 0.85x, rgg_n_2_15's SDDMM).
    c.omp = OmpScheduleKind::Balanced;
  }
  // Too little work to share: one thread (OpenMP's fork and join, and
  // waking the other threads, cost more than the split saves).
  if (tooSmallToShare(kernel, stats, freeLoop, free))
    c.parallel = ParallelKind::None;
  // Vectorize the dense innermost loop (not without a free loop, as SpMV,
  // whose innermost loop is the sparse one): 16 lanes when the free dimension
  // is a multiple of 16, so SpMM's row of C is a few whole vectors that stay in
  // registers across the row (sptune-promote-accumulators; one AVX-512 register
  // or two AVX2 ones each), else 8.
  if (freeLoop) {
    if (free == 0 || free % 16 == 0)
      c.vectorLength = 16;
    else if (free >= 8)
      c.vectorLength = 8;
  }
  // SDDMM: dot products over rows of A and B^T (k innermost, S's copy
  // updated in place). B is stored transposed first when its columns are
  // read often enough to repay the transposition (it moves as much data
  // as the kernel reads when columns have ~N/8 entries: at least 16
  // entries per column on average), or when B's rows span a 4 KiB page
  // (1,024 f32 columns): then each of the dot product's strided reads of
  // B(k, j) lands on a page of its own, 64 pages per stored entry at
  // K = 64, and the untransposed kernel is bound by TLB and cache misses.
  // Measured on the 92 training matrices (cpu-2026-12-01): with at least
  // 1,024 columns and fewer than 16 entries per column, the best B^T
  // schedule beats the best untransposed one on 41 of 46 SDDMMs, 1.85x in
  // geometric mean; with fewer columns on 17 of 27, 1.16x, and it loses
  // most on the smallest matrices (0.06x on 46 entries), where allocating
  // and filling B^T costs more than the kernel. Without the matrix (a
  // kernel compiled without `matrix=`) B^T too: 58 of those 73 SDDMMs won
  // with it, and a kernel worth compiling ahead for any graph is rarely one
  // of the smallest (the SDDMM module of bench/gat-layer.py, compiled
  // without a matrix, under mlir-runner: 1.21x on email-Enron, 1.13x on
  // cage11 with B^T; Intel Xeon VM, 2026-12-06).
  // The rule applies to every dense operand read across its rows by an
  // innermost free loop along the sparse operand's columns: SDDMM's B.
  if (!stats || (stats->cols > 0 &&
                 (static_cast<double>(stats->nnz) >= 16.0 * stats->cols ||
                  stats->cols >= 1024))) {
    const std::vector<DenseOperandInfo> &dense =
        Schedule::denseOperands(kernel);
    for (size_t n = 0; n < dense.size(); ++n)
      if (s.freeRole() == dense[n].outer && dense[n].inner == s.colRole() &&
          s.loopOrder.back() == DimPart{dense[n].outer, Part::Whole})
        s.denseTransposed |= static_cast<uint8_t>(1u << n); // b : k
  }
  return canonicalize(s);
}
