//===- NvvmLegality.cpp - Which schedules the NVVM target runs ------------===//

#include "nvvm/NvvmLegality.h"
#include "nvvm/NvvmKnobs.h"

using namespace sptune;

const char *sptune::toString(CuSparseFormat f) {
  switch (f) {
  case CuSparseFormat::None:
    return "none";
  case CuSparseFormat::CSR:
    return "CSR";
  case CuSparseFormat::CSC:
    return "CSC";
  case CuSparseFormat::COO:
    return "COO";
  case CuSparseFormat::BSR:
    return "BSR";
  }
  return "none";
}

CuSparseFormat sptune::cuSparseFormatOf(const Schedule &s) {
  Role row = s.rowRole(), col = s.colRole();
  auto is = [&](size_t n, Role r, Part p, LevelFormat f) {
    const StorageLevel &l = s.levels[n];
    return l.dim.role == r && l.dim.part == p && l.format == f;
  };
  if (s.levels.size() == 2 && s.splitRow == 1 && s.splitCol == 1) {
    if (is(0, row, Part::Whole, LevelFormat::Dense) &&
        is(1, col, Part::Whole, LevelFormat::Compressed))
      return CuSparseFormat::CSR;
    if (is(0, col, Part::Whole, LevelFormat::Dense) &&
        is(1, row, Part::Whole, LevelFormat::Compressed))
      return CuSparseFormat::CSC;
    if (is(0, row, Part::Whole, LevelFormat::CompressedNU) &&
        is(1, col, Part::Whole, LevelFormat::Singleton))
      return CuSparseFormat::COO;
    return CuSparseFormat::None;
  }
  if (s.levels.size() == 4 && s.splitRow > 1 && s.splitCol > 1 &&
      is(0, row, Part::Outer, LevelFormat::Dense) &&
      is(1, col, Part::Outer, LevelFormat::Compressed) &&
      is(2, row, Part::Inner, LevelFormat::Dense) &&
      is(3, col, Part::Inner, LevelFormat::Dense))
    return CuSparseFormat::BSR;
  return CuSparseFormat::None;
}

/// The rules of the cuSPARSE path.
static std::string whyIllegalForLibgen(const Schedule &s,
                                       bool sparseRuntimeLibrary) {
  if (s.tile > 0)
    return "the cuSPARSE path computes the whole product in one library "
           "call; tiling the free loop does not apply (tile must be 0)";
  if (s.posWidth != s.crdWidth)
    return "the cuSPARSE path needs one index width for positions and "
           "coordinates";
  CuSparseFormat f = cuSparseFormatOf(s);
  switch (productShape(s.kernel)) {
  case ProductShape::MatrixMatrix:
  case ProductShape::MatrixVector:
    if (f == CuSparseFormat::CSR || f == CuSparseFormat::CSC)
      return "";
    if (f == CuSparseFormat::COO) {
      if (sparseRuntimeLibrary)
        return "";
      return "the cuSPARSE path takes COO only with the sparse runtime "
             "library (enable-runtime-library=true); upstream's direct "
             "codegen stores COO coordinates as an array of structures, "
             "which cuSPARSE no longer accepts";
    }
    return std::string("the cuSPARSE path of '") + toString(s.kernel) +
           "' takes CSR, CSC or COO storage, not this one";
  case ProductShape::SampledMatrixMatrix:
    if (f == CuSparseFormat::CSR)
      return "";
    if (f == CuSparseFormat::BSR) {
      if (s.splitRow == s.splitCol)
        return "";
      return "cuSPARSE's blocked SDDMM needs square blocks (split = [b, b])";
    }
    return "the cuSPARSE path of 'sddmm' takes CSR storage or BSR with "
           "square blocks, not this one";
  default: // refused by whyIllegalForNvvm
    return std::string("the cuSPARSE path has no '") + toString(s.kernel) + "'";
  }
  return "";
}

/// The rules of MLIR's sparse GPU code generation.
static std::string whyIllegalForCodegen(const Schedule &s) {
  // Reproduced with mlir-opt 22.1: a tiled free loop becomes a host loop
  // launching one kernel per tile on strided views, whose gpu.memcpy
  // gpu-to-llvm does not lower (it copies contiguous memrefs only).
  if (s.tile > 0)
    return "GPU code generation does not offload a tiled free loop (one "
           "launch per tile on strided views, which upstream's GPU "
           "transfers do not copy); tile must be 0";
  if (s.loopOrder.empty() || s.levels.empty())
    return "GPU code generation needs the storage levels and the loop order";
  const DimPart &outer = s.loopOrder.front();
  if (outer.role == Schedule::reductionRole(s.kernel))
    return "GPU code generation maps the outermost loop to threads, and "
           "'k' is a reduction the sparsifier never parallelizes; put a "
           "parallel loop outermost";
  const StorageLevel &first = s.levels.front();
  if (first.dim == outer && first.format != LevelFormat::Dense)
    return "GPU code generation maps the outermost loop to threads only "
           "when it runs from 0 to N: the outer level must be dense (a " +
           std::string(toString(first.format)) +
           " outer level is iterated from pos[0] to pos[1] and stays on the "
           "host), or the free dense loop must be outermost";
  if (productShape(s.kernel) == ProductShape::SampledMatrixMatrix) {
    std::string why = whyIllegalForSparseOutput(s, /*inPlace=*/true);
    if (!why.empty())
      return "GPU code generation offloads an SDDMM only in the in-place "
             "(spy) form: " +
             why;
  }
  return "";
}

std::string sptune::whyIllegalForNvvm(const Schedule &s,
                                      bool sparseRuntimeLibrary) {
  if (s.target != TargetKind::NVVM)
    return std::string("'") + toString(s.target) +
           "' schedule given to the nvvm target";
  if (!hasMatrixProductShape(s.kernel))
    return std::string("the nvvm target schedules SpMM, SDDMM and SpMV only, "
                       "not '") +
           toString(s.kernel) + "'";
  if (std::string why = whyIllegal(s); !why.empty())
    return why;
  return gpuKnobs(s).libgen ? whyIllegalForLibgen(s, sparseRuntimeLibrary)
                      : whyIllegalForCodegen(s);
}
