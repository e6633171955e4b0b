//===- SpadeTarget.h - The SPADE target's registration ----------*- C++ -*-===//
//
// Part of sptune. Target "spade": tile programs for the SPADE sparse
// accelerator, measured on sptune's simulator.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADETARGET_H
#define SPTUNE_TARGETS_SPADE_SPADETARGET_H

#include <string>
#include <string_view>

namespace sptune {

/// Why SPADE's machine cannot hold values of `elementType` (as MLIR prints
/// it), or empty: it moves 4- or 8-byte elements (f32, f64, i32, i64).
std::string whyNotSpadeElementType(std::string_view elementType);

/// Why SPADE's program cannot compute a product with invariant factors (a
/// fused scale, KernelDescriptor::scaled): its processing elements multiply
/// the operands' values only.
std::string whyNotSpadeScaledBody();

/// Registers target "spade" (schedule space, SPADE's default configuration,
/// emission through sptune-emit-spade). Idempotent.
void registerSpadeTarget();

/// Registers the simulator as the SPADE measurer.
void registerSpadeMeasurer();

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADETARGET_H
