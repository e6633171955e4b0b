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

#include <array>
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

/// The whole network.
struct CostNetImpl : torch::nn::Module {
  explicit CostNetImpl(const ModelConfig &config);

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

  KnobAutoencoder &autoencoder(TargetKind t) {
    return autoencoders[static_cast<size_t>(t)];
  }

  /// The no-autoencoder ablation's layer of a target (null otherwise).
  Dense &direct(TargetKind t) { return directs[static_cast<size_t>(t)]; }

  ModelConfig config;
  MatrixEncoder matrix{nullptr};
  std::array<KnobAutoencoder, 3> autoencoders = {nullptr, nullptr, nullptr};
  /// no-autoencoder: knobs -> latent, one linear layer per target.
  std::array<Dense, 3> directs = {nullptr, nullptr, nullptr};
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
/// their row indices per target present.
struct ScheduleBatch {
  torch::Tensor common; ///< [N, C]
  std::array<torch::Tensor, 3> knobs;
  std::array<torch::Tensor, 3> rows; ///< int64 row indices into [0, N)
  int64_t size = 0;
};
/// `free[n]` is the free size of schedule n (a single entry applies to all).
ScheduleBatch makeScheduleBatch(const std::vector<const Schedule *> &s,
                                const std::vector<int64_t> &free);

/// Latent codes [N, L] of a batch (each row through its target's encoder,
/// or its direct layer under the no-autoencoder ablation).
torch::Tensor latentCodes(CostNet &net, const ScheduleBatch &batch, int latent);

} // namespace torchimpl

struct Model::Impl {
  explicit Impl(const ModelConfig &config) : net(config) {
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
} // namespace torchimpl

} // namespace sptune

#endif // SPTUNE_COSTMODEL_LIB_MODELIMPL_H
