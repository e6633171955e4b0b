//===- FilledOutput.h - An output that starts from a fill -------*- C++ -*-===//
//
// Part of sptune. What becomes of the fill a replaced op's output started
// from (sptune/Analysis/FilledValue.h says which fills those are).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H
#define SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H

#include "sptune/Analysis/FilledValue.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sptune {

/// Erases `fill` (such a fill, whose op was replaced) and the fresh tensor
/// it fills, where nothing else uses them.
void eraseUnusedFill(RewriterBase &rewriter, Operation *fill);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TARGETS_CPU_FILLEDOUTPUT_H
