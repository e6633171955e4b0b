//===- EmbeddedModels.h - Release models in the binary ----------*- C++ -*-===//
//
// Part of sptune. The bytes of the shipped release models
// (cost-model/models/<target>-default.pt) are compiled into the cost-model
// library at build time (cmake/EmbedModels.cmake), so `mode=release` works
// from any copy of the binaries, installed or moved; `model=` still
// overrides them.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_EMBEDDEDMODELS_H
#define SPTUNE_COSTMODEL_EMBEDDEDMODELS_H

#include "sptune/Schedule/Vocabulary.h"

#include <string_view>

namespace sptune {

struct EmbeddedModel {
  /// The model file's bytes (empty: no model shipped for the target).
  std::string_view bytes;
  /// The file it was made from, e.g. "cpu-default.pt".
  std::string_view name;
  bool empty() const { return bytes.empty(); }
};

/// The release model shipped for `target`, or an empty one.
EmbeddedModel embeddedReleaseModel(TargetKind target);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_EMBEDDEDMODELS_H
