//===- NvvmScheduleSpace.h - The NVVM target's schedules --------*- C++ -*-===//
//
// Part of sptune. The space the NVVM (GPU) target searches: the storage of the
// sparse operand (CSR, CSC, DCSR, COO, BSR with square blocks), where the free
// dense loop sits among the storage levels, the index widths, and either
// MLIR's sparse GPU code generation with a block size or the cuSPARSE library
// path (libgen). Only what `whyIllegalForNvvm` admits is kept, so most
// storage/loop-order combinations drop out: generated kernels need a dense
// outer level (or the free loop outermost) that is not the reduction, and an
// SDDMM only runs in place with the reduction directly above an innermost
// compressed level; cuSPARSE takes CSR/CSC for SpMM and SpMV and CSR/BSR for
// SDDMM.
//
// Sizes with the default configuration and a shape that prunes nothing:
//   SpMM   172 schedules (21 generated structures x 2 widths x 4 block sizes,
//          plus cuSPARSE CSR/CSC x 2 widths),
//   SDDMM   24 (CSR [i, k, j] and CSC [j, k, i] generated: 16; cuSPARSE CSR
//          and BSR 2/4/8 x 2 widths: 8),
//   SpMV    36 (CSR and BSR 2/4/8 generated: 32; cuSPARSE CSR/CSC: 4).
// A known shape removes block sizes that do not divide it (or equal it) and
// storage that would blow up (`whyIllegalForShape`).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMSCHEDULESPACE_H
#define SPTUNE_TARGETS_NVVM_NVVMSCHEDULESPACE_H

#include "sptune/Target/ScheduleSpace.h"

#include <utility>
#include <vector>

namespace sptune {

/// The values each NVVM knob takes.
struct NvvmSpaceConfig {
  /// Threads per block of generated kernels (each in [1, 1024]).
  std::vector<int> threads = {128, 256, 512, 1024};
  /// Square block sizes of the BSR storages (b x b blocks, b > 1).
  std::vector<int64_t> blockSizes = {2, 4, 8};
  /// (position, coordinate) width pairs.
  std::vector<std::pair<int, int>> widths = {{32, 32}, {64, 64}};
  /// Whether the cuSPARSE library path (libgen = true) is part of the space.
  bool includeLibgen = true;
  /// Whether the lowering uses MLIR's sparse runtime library (as
  /// `NvvmMeasureOptions::sparseRuntimeLibrary`): admits cuSPARSE COO.
  bool sparseRuntimeLibrary = false;
};

/// The NVVM target's schedule space. Every schedule is canonical, passes
/// `whyIllegalForNvvm` and, for a known shape, `whyIllegalForShape`.
class NvvmScheduleSpace : public ScheduleSpace {
public:
  explicit NvvmScheduleSpace(NvvmSpaceConfig config = {});

  TargetKind target() const override { return TargetKind::NVVM; }

  /// Order (outermost first): storage (CSR, CSC, DCSR, COO, then BSR by
  /// block size), widths, then the generated kernels by loop order (the
  /// free loop innermost, outermost, then at the positions in between) and
  /// block size, then the cuSPARSE schedule of that storage.
  void
  enumerate(const ProblemShape &shape,
            const std::function<bool(const Schedule &)> &fn) const override;

  const NvvmSpaceConfig &config() const { return cfg; }

private:
  /// The storages of `kernel`, each with the loop order `setLevels` gives.
  std::vector<Schedule> storages(KernelType kernel) const;
  /// Whether `s` is canonical, legal for NVVM and fits `shape`.
  bool admits(const ProblemShape &shape, const Schedule &s) const;

  NvvmSpaceConfig cfg;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMSCHEDULESPACE_H
