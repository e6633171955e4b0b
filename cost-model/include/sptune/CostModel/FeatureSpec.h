//===- FeatureSpec.h - Identity of the feature specification ----*- C++ -*-===//
//
// Part of sptune. A model is only meaningful with the features it was trained
// on. The feature specification (image sizes, histogram bins, the names of
// every scalar, common and knob feature of the model's targets, and a
// revision bumped whenever a feature's meaning changes without its name
// changing) is hashed into model files, so that loading a model trained on
// other features fails with a clear error instead of producing garbage
// scores.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_FEATURESPEC_H
#define SPTUNE_COSTMODEL_FEATURESPEC_H

#include <cstdint>
#include <string>
#include <string_view>

namespace sptune {

/// Bump when a feature's computation changes but its name does not.
constexpr int kFeatureRevision = 1;

class FeatureLayout;

/// The human-readable feature specification of a model of `layout`'s
/// targets in this build.
std::string featureSpecString(const FeatureLayout &layout);
/// FNV-1a hash of `featureSpecString(layout)`.
uint64_t featureSpecHash(const FeatureLayout &layout);

/// 64-bit FNV-1a hash, also used for file checksums.
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ull);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_FEATURESPEC_H
