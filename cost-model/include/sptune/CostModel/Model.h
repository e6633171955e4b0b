//===- Model.h - The learned ranking model ----------------------*- C++ -*-===//
//
// Part of sptune. The network of the cost model, behind a plain C++ handle
// (LibTorch stays inside lib/):
//
//   matrix encoder   CNN over the 32/64/128 density images (each scale joins
//                    the pyramid at its resolution) + MLP over the degree
//                    histograms and scalars  ->  matrix embedding
//   schedule encoder common features (ConfigurationMapper) + the latent code
//                    of the target's knob autoencoder  ->  schedule embedding
//   predictor        MLP over [matrix, schedule, matrix * schedule] -> score
//
// A score is "higher is faster"; a model trained with the regression term is
// calibrated: score = predicted log(reference time / time), the reference
// being the MLIR default's runtime on that problem.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_MODEL_H
#define SPTUNE_COSTMODEL_MODEL_H

#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/ModelConfig.h"
#include "sptune/Schedule/Schedule.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sptune {

/// Errors: LibTorch's exceptions never leave this interface. A function that
/// fails returns null, an empty result, 0 or false as documented, and puts
/// a message naming the operation in its `error` argument when one is given.
class Model {
public:
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// A freshly initialized model; the same seed gives the same weights.
  /// Returns null (and sets `error`) when LibTorch fails, e.g. for sizes it
  /// cannot build a network of.
  static std::unique_ptr<Model> create(const ModelConfig &config, uint64_t seed,
                                       std::string *error = nullptr);
  /// Loads a model file; on any problem (missing, truncated, corrupt, other
  /// format version or feature specification, weights of the wrong shape)
  /// returns null with a message in `error`.
  static std::unique_ptr<Model> load(const std::string &path,
                                     std::string &error);
  /// Same, from the bytes of a model file; `what` names it in messages.
  static std::unique_ptr<Model> loadFromBytes(const std::string &bytes,
                                              const std::string &what,
                                              std::string &error);
  /// Writes the model file (atomically).
  bool save(const std::string &path, std::string &error) const;
  /// The bytes `save` writes; empty (and sets `error`) when LibTorch fails.
  std::string serialize(std::string *error = nullptr) const;
  /// A deep copy; null (and sets `error`) when LibTorch fails.
  std::unique_ptr<Model> clone(std::string *error = nullptr) const;

  const ModelInfo &info() const;
  ModelInfo &info();
  bool isTrainedFor(TargetKind target) const;
  /// Whether the model has features for `kernel` (its layout lists it).
  bool hasKernel(KernelType kernel) const;
  void markTrained(TargetKind target);

  /// Scores `candidates` on a matrix for a free size (0 = unknown), in one
  /// batch; higher is better. Returns an empty vector (and sets `error`)
  /// when `features` is malformed or LibTorch fails.
  std::vector<double> score(const MatrixFeatures &features,
                            const std::vector<Schedule> &candidates,
                            int64_t free, std::string *error = nullptr) const;
  /// The schedule encoder's input for `schedule`: its common features
  /// followed by its target's latent knob code (the same width for every
  /// target: the layout's commonSize() + config.latent). Empty (and sets
  /// `error`) when LibTorch fails or the model has no slot for the
  /// schedule's target.
  std::vector<float> scheduleCode(const Schedule &schedule, int64_t free,
                                  std::string *error = nullptr) const;
  /// The matrix embedding. Empty (and sets `error`) when `features` is
  /// malformed or LibTorch fails.
  std::vector<float> matrixEmbedding(const MatrixFeatures &features,
                                     std::string *error = nullptr) const;
  /// Number of trainable parameters (0, and sets `error`, when LibTorch
  /// fails).
  size_t parameterCount(std::string *error = nullptr) const;
  /// FNV-1a over every parameter and buffer (identical weights, same hash);
  /// 0 (and sets `error`) when LibTorch fails.
  uint64_t weightHash(std::string *error = nullptr) const;

  /// The LibTorch side, for the trainer (defined in lib/).
  struct Impl;
  static std::unique_ptr<Model> fromImpl(std::unique_ptr<Impl> impl);
  Impl &impl() { return *impl_; }
  const Impl &impl() const { return *impl_; }

private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Sets LibTorch's intra-op thread count for the whole process (n >= 1).
/// Ranking a thousand candidates is fastest on one thread: more threads
/// spin-wait for each other on a loaded machine. Returns false (and sets
/// `error`) when LibTorch refuses.
bool setModelThreads(int n, std::string *error = nullptr);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_MODEL_H
