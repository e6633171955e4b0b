//===- PlainModel.h - The forward pass in plain C++ -------------*- C++ -*-===//
//
// Part of sptune. Release mode's scorer without LibTorch (as LLVM's MLGO
// release mode runs its policy without TensorFlow): the network of Model.h
// evaluated in plain C++ over the "plain_weights" section every model file
// carries (PlainWeights.h). It scores exactly what Model::score scores (to
// float rounding: within 1e-5 relative, PlainModelTest), for the same
// matrix features and schedules; training and development mode keep the
// LibTorch model.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_PLAINMODEL_H
#define SPTUNE_COSTMODEL_PLAINMODEL_H

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/ModelConfig.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/CostModel/PlainWeights.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

class PlainModel {
public:
  /// From the bytes of a model file; `what` names it in messages. Fails on
  /// what Model::loadFromBytes fails on, and on a file without plain weights
  /// (one written before they existed: `sptune-train --upgrade` adds them)
  /// or with weights of other shapes than its
  /// configuration implies. `weightsSection` names the section of plain
  /// weights to bind (another one than the model's own: a guard's member,
  /// ModelGuard.h).
  static llvm::Expected<std::unique_ptr<PlainModel>>
  loadFromBytes(const std::string &bytes, const std::string &what,
                const std::string &weightsSection = kPlainWeightsSection);
  /// Same, from a decoded file (one decoded once for several models: a
  /// guard's members).
  static llvm::Expected<std::unique_ptr<PlainModel>>
  fromContents(const ModelFileContents &file, const std::string &what,
               const std::string &weightsSection = kPlainWeightsSection);
  /// Same, from a file.
  static llvm::Expected<std::unique_ptr<PlainModel>>
  load(const std::string &path);

  const ModelInfo &info() const { return info_; }
  bool isTrainedFor(TargetKind target) const;
  /// Whether the model has features for `kernel` (its layout lists it).
  bool hasKernel(KernelType kernel) const { return layout_->hasKernel(kernel); }

  /// Scores `candidates` on a matrix for a free size (0 = unknown), as
  /// Model::score does; an error for malformed features or a candidate of a
  /// target the model has no slot for.
  llvm::Expected<std::vector<double>>
  score(const MatrixFeatures &features, const std::vector<Schedule> &candidates,
        int64_t free) const;

  /// The matrix embedding, as Model::matrixEmbedding.
  llvm::Expected<std::vector<float>>
  matrixEmbedding(const MatrixFeatures &features) const;

  /// A dense layer: y = W x + b, W [out, in] row-major.
  struct Dense {
    int in = 0, out = 0;
    std::vector<float> weight, bias;
    void apply(const float *x, float *y) const;
  };
  /// A 3x3 convolution with stride 2 and padding 1.
  struct Conv {
    int in = 0, out = 0;
    std::vector<float> weight, bias; ///< [out, in, 3, 3], [out]
  };

private:
  PlainModel() = default;
  llvm::Error bind(const PlainArrays &arrays, const std::string &what);

  ModelInfo info_;
  std::optional<FeatureLayout> layout_;
  Conv c1, c2, c3, c4;
  Dense v1, v2, fuse;
  /// By slot; `in` == 0 for a target without knobs.
  std::vector<Dense> e1, e2, direct;
  Dense s1, s2, p1, p2, p3;
  std::vector<float> vecMean, vecStd;
};

} // namespace sptune

#endif // SPTUNE_COSTMODEL_PLAINMODEL_H
