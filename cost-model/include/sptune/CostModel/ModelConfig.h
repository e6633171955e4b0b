//===- ModelConfig.h - What a model file says besides weights ---*- C++ -*-===//
//
// Part of sptune. Plain C++ (no LibTorch): the architecture sizes, ablations
// and metadata of a cost model, and their JSON text in a model file's
// "config" section. Shared by the LibTorch model (Model.h) and the plain
// C++ release scorer (PlainModel.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_MODELCONFIG_H
#define SPTUNE_COSTMODEL_MODELCONFIG_H

#include "sptune/CostModel/ConfigurationMapper.h"
#include "sptune/CostModel/ModelFile.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace sptune {

/// Architecture sizes, recorded in model files.
struct ModelConfig {
  /// Width of the matrix and of the schedule embedding.
  int embedding = 64;
  /// Width of every target's latent knob code.
  int latent = 6;
  int hidden = 128;
  /// Width of the autoencoders' hidden layer.
  int autoencoderHidden = 16;

  /// Ablations (COGNATE's, for experiments), recorded in the model file so
  /// that training, evaluation and inference agree. None changes a weight's
  /// shape, so an ablated model loads like any other.
  ///
  /// no-config-mapper: the schedule's common features (the configuration
  /// mapper's) are zeroed at the schedule encoder's input; only the target's
  /// knob code represents the schedule.
  bool noConfigMapper = false;
  /// no-autoencoder: no latent autoencoders; each target's raw knob vector
  /// goes through a plain (linear) dense layer to the latent width, trained
  /// end to end: no pre-training, no reconstruction term.
  bool noAutoencoder = false;
  /// single-scale: the matrix encoder sees only the 128x128 density image
  /// (the 64 and 32 images that join the pyramid are zeroed, which is the
  /// same network as one without their input channels).
  bool singleScale = false;

  /// The targets the model is built for, by registered name, in the order
  /// of its knob autoencoders (sptune::FeatureLayout). Empty in a config
  /// given to Model::create: every registered target. A model file without
  /// the list was built for the three built-in targets (Model.cpp).
  std::vector<std::string> targets;
  /// The kernels the model is built for, by name, in the order of their
  /// one-hot positions (sptune::FeatureLayout). Empty in a config given to
  /// Model::create: spmm, sddmm and spmv. A model file without the list
  /// was built for those three.
  std::vector<std::string> kernels;
  /// Knobs of several targets the common features represent alike
  /// (sptune::sharedKnobNames(): "row-order"), recorded in the model file.
  /// Empty (the default, and every file without the list): none.
  std::vector<std::string> sharedKnobs;

  bool hasAblations() const {
    return noConfigMapper || noAutoencoder || singleScale;
  }
};

/// The ablation names, in a fixed order.
inline constexpr const char *kAblationNames[] = {
    "no-config-mapper", "no-autoencoder", "single-scale"};

/// "no-config-mapper,single-scale" (empty: none), in kAblationNames order.
std::string ablationList(const ModelConfig &config);
/// Sets `config`'s ablations from a comma-separated list of names (empty:
/// none; repeats allowed). An error naming the bad item and the valid ones
/// for an unknown name (`config` is then unchanged).
llvm::Error parseAblationList(const std::string &list, ModelConfig &config);

/// Metadata a model file carries besides its weights.
struct ModelInfo {
  ModelConfig config;
  /// Targets whose autoencoder and predictor were trained.
  std::vector<TargetKind> trainedTargets;
  /// Whether the scores are calibrated log speedups (regression term on).
  bool calibrated = false;
  /// Free-form provenance: how the model was trained (JSON text).
  std::string provenance;
};

/// The "config" section of a model file built for `layout`.
std::string modelConfigJson(const ModelInfo &info, const FeatureLayout &layout);

/// Parses a "config" section into `info` (sizes range-checked, targets and
/// ablations known); the error names what is wrong.
llvm::Error parseModelConfig(const std::string &text, ModelInfo &info);

/// The feature layout of a model built with `config` (its targets and
/// kernels), or an error naming `what`.
llvm::Expected<FeatureLayout> modelLayout(const ModelConfig &config,
                                          const std::string &what);

/// Checks a decoded model file's feature specification against this
/// build's for the targets its configuration lists (a configuration that
/// does not parse is left for parseModelConfig to report).
llvm::Error checkModelFeatureSpec(const ModelFileContents &file,
                                  const std::string &what);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MODELCONFIG_H
