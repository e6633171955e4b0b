//===- ModelImpl.h - LibTorch side of the cost model ------------*- C++ -*-===//
//
// Part of sptune. Private to cost-model/lib: the networks and the conversion
// of features and schedules into batched tensors, shared by the model and
// the trainer. Only the few .cpp files that need LibTorch include this.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_LIB_MODELIMPL_H
#define SPTUNE_COSTMODEL_LIB_MODELIMPL_H

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/Model.h"
#include "sptune/CostModel/ModelFile.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/conv.h>

#include <memory>

namespace sptune {
namespace torchimpl {

/// A fully connected layer computed as a 1x1 convolution: Debian's LibTorch
/// runs matrix products on the reference BLAS (~1 GFLOP/s) but convolutions
/// on oneDNN, which is 30-50x faster for our shapes, forward and backward.
/// Initialized like torch::nn::Linear.
struct DenseImpl : torch::nn::Module {
  DenseImpl(int64_t in, int64_t out);
  /// [N, in] -> [N, out].
  torch::Tensor forward(const torch::Tensor &x);
  torch::Tensor weight, bias; ///< [out, in, 1, 1], [out]
};
TORCH_MODULE(Dense);

/// CNN over the density image pyramid + MLP over the vector features.
struct MatrixEncoderImpl : torch::nn::Module {
  MatrixEncoderImpl(int vectorSize, int embedding);
  /// Images [B,1,S,S] for S = 32, 64, 128; vec [B, kVectorSize]
  /// (normalized).
  torch::Tensor forward(const torch::Tensor &img32, const torch::Tensor &img64,
                        const torch::Tensor &img128, const torch::Tensor &vec);
  torch::nn::Conv2d c1{nullptr}, c2{nullptr}, c3{nullptr}, c4{nullptr};
  Dense v1{nullptr}, v2{nullptr}, fuse{nullptr};
};
TORCH_MODULE(MatrixEncoder);

/// A target's knob autoencoder (COGNATE).
struct KnobAutoencoderImpl : torch::nn::Module {
  KnobAutoencoderImpl(int knobs, int hidden, int latent);
  torch::Tensor encode(const torch::Tensor &knobs);
  torch::Tensor decode(const torch::Tensor &code);
  Dense e1{nullptr}, e2{nullptr}, d1{nullptr}, d2{nullptr};
};
TORCH_MODULE(KnobAutoencoder);

/// The whole network, for the targets of `layout` (config.targets).
struct CostNetImpl : torch::nn::Module {
  CostNetImpl(const ModelConfig &config, FeatureLayout layout);

  /// [B, embedding]; normalizes `vec` with the stored statistics.
  torch::Tensor embedMatrices(const torch::Tensor &img32,
                              const torch::Tensor &img64,
                              const torch::Tensor &img128,
                              const torch::Tensor &vec);
  /// [N, embedding] from common features [N, C] and latent codes [N, L].
  torch::Tensor embedSchedules(const torch::Tensor &common,
                               const torch::Tensor &latent);
  /// Scores [N] from matrix and schedule embeddings, both [N, embedding].
  torch::Tensor predict(const torch::Tensor &matrix,
                        const torch::Tensor &schedule);

  /// The slot of `target` in the layout; throws (for guardTorch to report)
  /// when the model has none.
  size_t slot(TargetKind target) const;
  /// The knob autoencoder of a slot; null for a target without knobs.
  KnobAutoencoder &autoencoder(size_t slot) { return autoencoders[slot]; }
  /// The no-autoencoder ablation's layer of a slot (null otherwise, and for
  /// a target without knobs).
  Dense &direct(size_t slot) { return directs[slot]; }
  /// The parameters that code the knobs of a slot (its autoencoder, or its
  /// direct layer under the no-autoencoder ablation); none for a target
  /// without knobs.
  std::vector<torch::Tensor> knobCodeParameters(size_t slot);

  ModelConfig config;
  FeatureLayout layout;
  MatrixEncoder matrix{nullptr};
  /// By slot.
  std::vector<KnobAutoencoder> autoencoders;
  /// no-autoencoder: knobs -> latent, one linear layer per target, by slot.
  std::vector<Dense> directs;
  Dense s1{nullptr}, s2{nullptr};
  Dense p1{nullptr}, p2{nullptr}, p3{nullptr};
  /// Standardization of the matrix vector features (fit on training data).
  torch::Tensor vecMean, vecStd;
};
TORCH_MODULE(CostNet);

/// Matrix features as tensors.
struct MatrixBatch {
  torch::Tensor img32, img64, img128, vec;
};
MatrixBatch makeMatrixBatch(const std::vector<const MatrixFeatures *> &m);

/// Schedules as tensors: common features for all rows; knob features and
/// their row indices per slot of the layout (undefined for a slot no
/// schedule of the batch has).
struct ScheduleBatch {
  torch::Tensor common; ///< [N, C]
  std::vector<torch::Tensor> knobs;
  std::vector<torch::Tensor> rows; ///< int64 row indices into [0, N)
  int64_t size = 0;
};
/// `free[n]` is the free size of schedule n (a single entry applies to all).
/// Throws (for guardTorch to report) when a schedule's target has no slot
/// in `layout`.
ScheduleBatch makeScheduleBatch(const FeatureLayout &layout,
                                const std::vector<const Schedule *> &s,
                                const std::vector<int64_t> &free);

/// Latent codes [N, L] of a batch (each row through its target's encoder,
/// or its direct layer under the no-autoencoder ablation).
torch::Tensor latentCodes(CostNet &net, const ScheduleBatch &batch, int latent);

} // namespace torchimpl

struct Model::Impl {
  /// `config.targets` must name `layout`'s targets.
  Impl(const ModelConfig &config, FeatureLayout layout)
      : net(config, std::move(layout)) {
    info.config = config;
  }
  ModelInfo info;
  torchimpl::CostNet net;
};

namespace torchimpl {
/// The "config" and "weights" sections of a model.
ModelFileSections modelSections(const Model &model);
/// Rebuilds a model from its sections (shapes checked against the config).
std::unique_ptr<Model> modelFromSections(const ModelFileSections &sections,
                                         const std::string &what,
                                         std::string &error);
/// Same, from a decoded file, after checking its feature specification
/// against this build's for the targets its configuration lists.
std::unique_ptr<Model> modelFromFile(const ModelFileContents &file,
                                     const std::string &what,
                                     std::string &error);
} // namespace torchimpl

} // namespace sptune

#endif // SPTUNE_COSTMODEL_LIB_MODELIMPL_H
