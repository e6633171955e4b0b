//===- NvvmLegality.h - Which schedules the NVVM target runs ----*- C++ -*-===//
//
// Part of sptune. The GPU-specific rules on top of `whyIllegal`: what MLIR's
// sparse GPU code generation can offload (the outermost loop becomes the
// thread index, so it must be a parallel loop the sparsifier parallelizes),
// and which storage formats the cuSPARSE library path (enable-gpu-libgen)
// accepts for each kernel. Plain C++ (no MLIR), so the measurer, the
// collector and a schedule space can use it; the NVVM passes call it too.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMLEGALITY_H
#define SPTUNE_TARGETS_NVVM_NVVMLEGALITY_H

#include "sptune/Schedule/Schedule.h"

#include <string>

namespace sptune {

/// The cuSPARSE sparse-matrix format a schedule's storage corresponds to.
enum class CuSparseFormat { None, CSR, CSC, COO, BSR };
const char *toString(CuSparseFormat);

/// The cuSPARSE format of `s`'s storage: CSR = [row : dense, col :
/// compressed], CSC = [col : dense, row : compressed], COO = [row :
/// compressed_nu, col : singleton] (no splits), BSR = [row1 : dense, col1 :
/// compressed, row0 : dense, col0 : dense] with both roles split. None for
/// anything else.
CuSparseFormat cuSparseFormatOf(const Schedule &s);

/// Why the NVVM target cannot run `s`, or an empty string. Includes
/// `whyIllegal`. `sparseRuntimeLibrary`: the lowering uses MLIR's sparse
/// runtime library (upstream's cuSPARSE path takes COO only then).
///
/// GPU code generation (libgen = false), reproduced with mlir-opt 22.1:
///   - the outermost loop is mapped to threads; the sparsifier parallelizes
///     it only when it is not the reduction loop `k`, and upstream's
///     sparse-gpu-codegen outlines only loops from 0 to N, i.e. over a dense
///     level or the free dense loop (a compressed outer level runs from
///     pos[0] to pos[1] and stays on the host);
///   - an SDDMM is offloaded only in the in-place ("spy") form, whose loop
///     order rules are `whyIllegalForSparseOutput(s, /*inPlace=*/true)`;
///   - no tiling (a tiled free loop launches one kernel per tile on strided
///     views that upstream's GPU transfers do not copy).
/// cuSPARSE (libgen = true), as upstream's matcher admits them and cuSPARSE
/// implements them:
///   - SpMM and SpMV: CSR, CSC, or COO (COO only with the runtime library);
///   - SDDMM: CSR, or BSR with square blocks larger than 1;
///   - one index width for positions and coordinates, no tiling (the
///     library computes the whole product; loop order and threads have no
///     effect).
std::string whyIllegalForNvvm(const Schedule &s,
                              bool sparseRuntimeLibrary = false);

} // namespace sptune

#endif // SPTUNE_TARGETS_NVVM_NVVMLEGALITY_H
