//===- SpadeTarget.h - The SPADE target's registration ----------*- C++ -*-===//
//
// Part of sptune. Target "spade": tile programs for the SPADE sparse
// accelerator, measured on sptune's simulator.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADETARGET_H
#define SPTUNE_TARGETS_SPADE_SPADETARGET_H

namespace sptune {

/// Registers target "spade" (schedule space, SPADE's default configuration,
/// emission through sptune-emit-spade). Idempotent.
void registerSpadeTarget();

/// Registers the simulator as the SPADE measurer.
void registerSpadeMeasurer();

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADETARGET_H
