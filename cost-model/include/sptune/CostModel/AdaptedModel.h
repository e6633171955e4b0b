//===- AdaptedModel.h - Models adapted to this machine ----------*- C++ -*-===//
//
// Part of sptune. A cost model is machine-specific, and a user's machine is
// never the one the shipped model was trained on. `sptune-learn adapt`
// fine-tunes the shipped model with measurements of this machine and writes
// the result under the user's cache, named by the machine; release mode
// (createCostModel with no file) takes it instead of the shipped model when
// this machine's name matches (issue 31).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_ADAPTEDMODEL_H
#define SPTUNE_COSTMODEL_ADAPTEDMODEL_H

#include "sptune/Schedule/Schedule.h"

#include <string>

namespace sptune {

/// `${XDG_CACHE_HOME:-$HOME/.cache}/sptune/models` ("" when neither
/// variable is set).
std::string adaptedModelDirectory();

/// This machine's name for its adapted models: the CPU's model name (file
/// name characters only), the CPUs this process may use, the SIMD width and
/// the last-level cache size, e.g. "AMD-EPYC-9B14-2cpu-512b-508MiB". Two
/// machines with one name measure alike as far as the model can tell.
std::string machineModelKey();

/// Where `sptune-learn adapt` writes `target`'s model for this machine
/// ("" without a cache directory): DIR/<target>-<machineModelKey>.pt.
std::string adaptedModelPath(TargetKind target);

/// The file next to an adapted model that holds the identity
/// (modelIdentity) of the model it was adapted from: "<model>.base".
std::string adaptedBaseRecordPath(const std::string &model);

/// The adapted model release mode uses for `target`: adaptedModelPath when
/// that file exists, was adapted from the model this build ships for
/// `target` (its base record says so: after an upgrade a stale adaptation is
/// not used) and SPTUNE_ADAPTED_MODELS is not "0"; "" otherwise.
std::string findAdaptedModel(TargetKind target);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_ADAPTEDMODEL_H
