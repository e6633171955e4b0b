//===- Trainer.cpp - Training, fine-tuning and evaluation -----------------===//

#include "ModelImpl.h"
#include "TorchGuard.h"

#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/Trainer.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adam.h>
#include <torch/serialize/archive.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace sptune;
using namespace sptune::torchimpl;

namespace {
/// A group ready for batching.
struct PreparedGroup {
  const SampleGroup *group = nullptr;
  const MatrixFeatures *features = nullptr;
  std::vector<double> logTimes;
  double logReference = 0;
};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Freezes every parameter outside `trainable` for its lifetime.
class FreezeGuard {
public:
  FreezeGuard(CostNet &net, const std::vector<torch::Tensor> &trainable)
      : net(net) {
    for (torch::Tensor &p : net->parameters()) {
      bool keep = false;
      for (const torch::Tensor &t : trainable)
        keep |= t.is_same(p);
      if (!keep) {
        p.set_requires_grad(false);
        frozen.push_back(p);
      }
    }
  }
  ~FreezeGuard() {
    for (torch::Tensor &p : frozen)
      p.set_requires_grad(true);
  }

private:
  CostNet &net;
  std::vector<torch::Tensor> frozen;
};
} // namespace

static std::vector<PreparedGroup>
prepare(const std::vector<SampleGroup> &groups, const FeatureTable &features,
        TargetKind target, std::string *missing) {
  std::vector<PreparedGroup> out;
  for (const SampleGroup &g : groups) {
    if (g.target != target || g.samples.empty())
      continue;
    auto f = features.find(g.matrix.id);
    if (f == features.end() || !f->second.isWellFormed()) {
      if (missing && missing->empty())
        *missing = g.matrix.id;
      continue;
    }
    PreparedGroup p;
    p.group = &g;
    p.features = &f->second;
    for (const MeasuredSchedule &m : g.samples)
      p.logTimes.push_back(std::log(m.time));
    p.logReference = std::log(g.referenceTime());
    out.push_back(std::move(p));
  }
  return out;
}

/// Why `layout` cannot train on `prepared` ("" when it can): a group of a
/// kernel it has no features for.
static std::string
whyNoKernelFeatures(const FeatureLayout &layout,
                    const std::vector<PreparedGroup> &prepared) {
  for (const PreparedGroup &p : prepared)
    if (!layout.hasKernel(p.group->kernel))
      return std::string("the model has no feature for kernel '") +
             toString(p.group->kernel) + "' (built for " + layout.kernelsStr() +
             "), whose samples the data hold; train a model created for it";
  return "";
}

/// Standardization statistics of the matrix vector features over the
/// distinct training matrices.
static void fitNormalization(CostNet &net,
                             const std::vector<PreparedGroup> &groups,
                             const std::vector<const MatrixFeatures *> *given) {
  std::vector<const MatrixFeatures *> distinct;
  if (given && !given->empty())
    distinct = *given;
  else
    for (const PreparedGroup &g : groups)
      if (std::find(distinct.begin(), distinct.end(), g.features) ==
          distinct.end())
        distinct.push_back(g.features);
  int64_t v = MatrixFeatures::kVectorSize;
  std::vector<double> sum(v, 0), sq(v, 0);
  for (const MatrixFeatures *f : distinct) {
    std::vector<float> x = f->vector();
    for (int64_t n = 0; n < v; ++n) {
      sum[n] += x[n];
      sq[n] += static_cast<double>(x[n]) * x[n];
    }
  }
  auto count = static_cast<double>(distinct.size());
  torch::Tensor mean = torch::empty({v}), stddev = torch::empty({v});
  for (int64_t n = 0; n < v; ++n) {
    double m = sum[n] / count;
    mean[n] = m;
    stddev[n] = std::max(std::sqrt(std::max(0.0, sq[n] / count - m * m)), 1e-2);
  }
  torch::NoGradGuard noGrad;
  net->vecMean.copy_(mean);
  net->vecStd.copy_(stddev);
}

static std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx",
                static_cast<unsigned long long>(v));
  return buf;
}

/// What a checkpoint must agree with to be resumed: the data, the options
/// that shape the trajectory, and the starting point.
static uint64_t fingerprint(const std::vector<PreparedGroup> &groups,
                            const TrainOptions &o, const Model &model) {
  std::ostringstream os;
  os.precision(17);
  os << toString(o.target) << o.epochs << "," << o.groupsPerBatch << ","
     << o.schedulesPerGroup << "," << o.learningRate << "," << o.weightDecay
     << "," << o.margin << "," << o.regressionWeight << ","
     << o.reconstructionWeight << "," << o.pairTolerance << "," << o.seed << ","
     << o.finetune << ";" << o.finetuneScheduleEncoder << ";";
  // Appended only when not the default, so that existing checkpoints of
  // default runs keep their fingerprint.
  if (o.finetuneFreeze != FinetuneFreeze::Encoders)
    os << "freeze=" << toString(o.finetuneFreeze) << ";";
  const ModelConfig &c = model.info().config;
  os << c.embedding << "," << c.latent << "," << c.hidden << ","
     << c.autoencoderHidden << ";";
  if (c.hasAblations())
    os << "ablate=" << ablationList(c) << ";";
  for (const std::string &knob : c.sharedKnobs)
    os << "shared=" << knob << ";";
  // A fine-tuning run starts from a given model; a fresh one from the seed.
  if (o.finetune)
    os << hex(model.weightHash()) << ";";
  uint64_t h = fnv1a64(os.str());
  for (const PreparedGroup &g : groups) {
    h = fnv1a64(g.group->key(), h);
    for (size_t n = 0; n < g.logTimes.size(); ++n) {
      h = fnv1a64(g.group->samples[n].schedule.str(), h);
      h = fnv1a64(
          std::string_view(reinterpret_cast<const char *>(&g.logTimes[n]),
                           sizeof(double)),
          h);
    }
  }
  return h;
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

static std::string checkpointPath(const std::string &dir) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, "checkpoint.pt");
  return std::string(p.str());
}

static llvm::json::Value historyJson(const std::vector<EpochReport> &h) {
  llvm::json::Array a;
  for (const EpochReport &e : h)
    a.push_back(llvm::json::Object{{"epoch", e.epoch},
                                   {"loss", e.loss},
                                   {"rank", e.rankLoss},
                                   {"regression", e.regressionLoss},
                                   {"reconstruction", e.reconstructionLoss},
                                   {"seconds", e.seconds}});
  return a;
}

static bool saveCheckpoint(const std::string &dir, const Model &model,
                           torch::optim::Optimizer &opt, int epoch, uint64_t fp,
                           const std::vector<EpochReport> &history,
                           std::string &error) {
  ModelFileSections sections = modelSections(model);
  torch::serialize::OutputArchive archive;
  opt.save(archive);
  std::ostringstream os;
  archive.save_to(os);
  sections["optimizer"] = os.str();
  std::string state;
  llvm::raw_string_ostream ss(state);
  ss << llvm::json::Value(
      llvm::json::Object{{"epoch", epoch},
                         {"fingerprint", hex(fp)},
                         {"history", historyJson(history)}});
  sections["trainer"] = state;
  return !takeErrorMessage(
      replaceFileAtomically(
          checkpointPath(dir),
          encodeModelFile("checkpoint",
                          featureSpecHash(model.impl().net->layout), sections)),
      error);
}

/// Restores weights, optimizer state and history; returns the epoch to
/// resume after, 0 when there is no checkpoint, -1 on error.
static int loadCheckpoint(const std::string &dir, Model &model,
                          torch::optim::Optimizer &opt, uint64_t fp,
                          std::vector<EpochReport> &history,
                          std::string &error) {
  std::string path = checkpointPath(dir);
  if (!llvm::sys::fs::exists(path))
    return 0;
  std::string bytes;
  ModelFileContents file;
  if (takeErrorMessage(readFileBytes(path).moveInto(bytes), error) ||
      takeErrorMessage(
          decodeModelFile(bytes, "checkpoint", path).moveInto(file), error))
    return -1;
  ModelFileSections &sections = file.sections;
  llvm::Expected<llvm::json::Value> state =
      parseJson(sections["trainer"]);
  if (!state) {
    error = "'" + path +
            "' has a bad trainer state: " + llvm::toString(state.takeError());
    return -1;
  }
  const llvm::json::Object *o = state->getAsObject();
  auto epoch = o ? o->getInteger("epoch") : std::nullopt;
  auto stored = o ? o->getString("fingerprint") : std::nullopt;
  if (!epoch || !stored || *epoch < 1) {
    error = "'" + path + "' has a bad trainer state";
    return -1;
  }
  if (*stored != hex(fp)) {
    error = "the checkpoint '" + path +
            "' belongs to another training run (other data, options or "
            "starting model); remove it or choose another checkpoint "
            "directory";
    return -1;
  }
  std::unique_ptr<Model> saved = modelFromFile(file, path, error);
  if (!saved)
    return -1;
  llvm::Error restored = guardTorch("cannot restore '" + path + "'", [&] {
    torch::NoGradGuard noGrad;
    auto dst = model.impl().net->named_parameters();
    auto src = saved->impl().net->named_parameters();
    for (const auto &p : src)
      dst[p.key()].copy_(p.value());
    auto dstBuf = model.impl().net->named_buffers();
    for (const auto &b : saved->impl().net->named_buffers())
      dstBuf[b.key()].copy_(b.value());
    torch::serialize::InputArchive archive;
    std::istringstream in(sections["optimizer"]);
    archive.load_from(in);
    opt.load(archive);
  });
  if (restored) {
    error = llvm::toString(std::move(restored));
    return -1;
  }
  history.clear();
  if (const llvm::json::Array *h = o->getArray("history"))
    for (const llvm::json::Value &v : *h)
      if (const llvm::json::Object *e = v.getAsObject()) {
        EpochReport r;
        r.epoch = static_cast<int>(e->getInteger("epoch").value_or(0));
        r.loss = e->getNumber("loss").value_or(0);
        r.rankLoss = e->getNumber("rank").value_or(0);
        r.regressionLoss = e->getNumber("regression").value_or(0);
        r.reconstructionLoss = e->getNumber("reconstruction").value_or(0);
        r.seconds = e->getNumber("seconds").value_or(0);
        history.push_back(r);
      }
  return static_cast<int>(*epoch);
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

namespace {
/// Losses of one step.
struct StepLosses {
  torch::Tensor total;
  double rank = 0, regression = 0, reconstruction = 0;
};
} // namespace

/// The losses of a batch. With `focus` (per group of the batch, per pick;
/// lossGradient's batches hold one group), the loss is lossGradient's: the
/// pairs that hold a focused sample and the focused samples' regression, each
/// divided by what the whole group has (its pairs, its samples), and no
/// reconstruction.
static StepLosses
stepLosses(Model &model, const TrainOptions &o,
           const std::vector<const PreparedGroup *> &batch,
           const std::vector<std::vector<size_t>> &picks,
           const std::vector<std::vector<char>> *focus = nullptr) {
  CostNet &net = model.impl().net;
  int latent = model.info().config.latent;
  auto g = static_cast<int64_t>(batch.size());
  int64_t width = 0;
  for (const auto &p : picks)
    width = std::max<int64_t>(width, static_cast<int64_t>(p.size()));

  std::vector<const MatrixFeatures *> mats;
  std::vector<const Schedule *> scheds;
  std::vector<int64_t> frees, matrixRow, slot;
  std::vector<float> logT(static_cast<size_t>(g * width), 0.0f),
      valid(static_cast<size_t>(g * width), 0.0f),
      focused(static_cast<size_t>(g * width), 0.0f), target, focusedSample;
  for (int64_t b = 0; b < g; ++b) {
    const PreparedGroup &pg = *batch[b];
    mats.push_back(pg.features);
    for (size_t k = 0; k < picks[b].size(); ++k) {
      size_t n = picks[b][k];
      scheds.push_back(&pg.group->samples[n].schedule);
      frees.push_back(pg.group->free);
      matrixRow.push_back(b);
      slot.push_back(b * width + static_cast<int64_t>(k));
      logT[b * width + k] = static_cast<float>(pg.logTimes[n]);
      valid[b * width + k] = 1.0f;
      float f = focus && (*focus)[b][k] ? 1.0f : 0.0f;
      focused[b * width + k] = f;
      focusedSample.push_back(f);
      target.push_back(static_cast<float>(pg.logReference - pg.logTimes[n]));
    }
  }
  auto n = static_cast<int64_t>(scheds.size());
  MatrixBatch mb = makeMatrixBatch(mats);
  ScheduleBatch sb = makeScheduleBatch(net->layout, scheds, frees);
  torch::Tensor m = net->embedMatrices(mb.img32, mb.img64, mb.img128, mb.vec);
  torch::Tensor z = latentCodes(net, sb, latent);
  torch::Tensor s = net->embedSchedules(sb.common, z);
  torch::Tensor rowIdx = torch::tensor(matrixRow, torch::kInt64);
  torch::Tensor scores = net->predict(m.index_select(0, rowIdx), s);

  // Pairwise ranking within each group.
  torch::Tensor padded =
      torch::zeros({g * width})
          .index_copy(0, torch::tensor(slot, torch::kInt64), scores)
          .view({g, width});
  torch::Tensor lt = torch::from_blob(logT.data(), {g, width}).clone();
  torch::Tensor ok = torch::from_blob(valid.data(), {g, width}).clone();
  // gap[g][a][b] = log t_b - log t_a: positive when a is faster than b.
  torch::Tensor gap = lt.unsqueeze(1) - lt.unsqueeze(2);
  torch::Tensor pairMask =
      ok.unsqueeze(2) * ok.unsqueeze(1) *
      (gap > std::log1p(o.pairTolerance)).to(torch::kFloat);
  torch::Tensor sdiff = padded.unsqueeze(2) - padded.unsqueeze(1);
  torch::Tensor margin = gap.clamp(0, o.margin);
  // Averaged over the batch's pairs; with a focus, over the pairs that hold a
  // focused sample, still divided by all of them.
  torch::Tensor pairs = pairMask.sum().clamp_min(1.0);
  if (focus) {
    torch::Tensor fo = torch::from_blob(focused.data(), {g, width}).clone();
    pairMask = pairMask * (fo.unsqueeze(2) + fo.unsqueeze(1)).clamp_max(1.0);
  }
  torch::Tensor rank = (torch::relu(margin - sdiff) * pairMask).sum() / pairs;

  StepLosses out;
  out.total = rank;
  out.rank = rank.item<double>();
  if (o.regressionWeight > 0) {
    torch::Tensor y = torch::from_blob(target.data(), {n}).clone();
    torch::Tensor reg;
    if (focus)
      reg = (torch::smooth_l1_loss(scores, y, torch::Reduction::None) *
             torch::from_blob(focusedSample.data(), {n}).clone())
                .sum() /
            static_cast<double>(std::max<int64_t>(n, 1));
    else
      reg = torch::smooth_l1_loss(scores, y);
    out.total = out.total + o.regressionWeight * reg;
    out.regression = reg.item<double>();
  }
  if (!focus && o.reconstructionWeight > 0 &&
      !model.info().config.noAutoencoder) {
    torch::Tensor rec = torch::zeros({});
    for (size_t slot = 0; slot < sb.knobs.size(); ++slot) {
      KnobAutoencoder &ae = net->autoencoder(slot);
      if (!sb.knobs[slot].defined() || !ae ||
          (o.finetune && net->layout.targetAt(slot) != o.target))
        continue;
      rec = rec + torch::mse_loss(ae->decode(ae->encode(sb.knobs[slot])),
                                  sb.knobs[slot]);
    }
    out.total = out.total + o.reconstructionWeight * rec;
    out.reconstruction = rec.item<double>();
  }
  return out;
}

/// The parameters a run trains. Never the knob autoencoders (or the
/// no-autoencoder layers) of the other targets: no sample of theirs is in
/// the batches, so Adam would see only the weight decay in their gradients
/// and, normalizing it, walk every weight to zero by about the learning rate
/// per step. A CPU model trained so for 60 epochs had lost another target's
/// pre-trained knob code (each of its schedules coded ~1e-11), which left
/// fine-tuning on that target unable to tell its knob settings apart.
static std::vector<torch::Tensor> trainableParameters(CostNet &net,
                                                      const TrainOptions &o) {
  FinetuneFreeze freeze = o.finetuneScheduleEncoder ? FinetuneFreeze::Matrix
                                                    : o.finetuneFreeze;
  if (!o.finetune || freeze == FinetuneFreeze::None) {
    std::set<const void *> others;
    for (size_t slot = 0; slot < net->layout.numTargets(); ++slot) {
      if (net->layout.targetAt(slot) == o.target)
        continue;
      for (const torch::Tensor &x : net->knobCodeParameters(slot))
        others.insert(x.unsafeGetTensorImpl());
    }
    std::vector<torch::Tensor> p;
    for (const torch::Tensor &x : net->parameters())
      if (!others.count(x.unsafeGetTensorImpl()))
        p.push_back(x);
    return p;
  }
  std::vector<torch::Tensor> p = net->knobCodeParameters(net->slot(o.target));
  for (auto *layer : {&net->p1, &net->p2, &net->p3})
    for (const torch::Tensor &t : (*layer)->parameters())
      p.push_back(t);
  if (freeze == FinetuneFreeze::Matrix)
    for (auto *layer : {&net->s1, &net->s2})
      for (const torch::Tensor &t : (*layer)->parameters())
        p.push_back(t);
  return p;
}

TrainResult sptune::train(Model &model, const std::vector<SampleGroup> &groups,
                          const FeatureTable &features, const TrainOptions &o,
                          const std::vector<SampleGroup> *validation) {
  TrainResult result;
  Clock::time_point start = Clock::now();
  if (o.epochs < 1 || o.groupsPerBatch < 1 || o.schedulesPerGroup < 2 ||
      !(o.learningRate > 0) || o.margin < 0 || o.regressionWeight < 0 ||
      o.reconstructionWeight < 0 || o.pairTolerance < 0 ||
      !(o.epochGroupFraction > 0 && o.epochGroupFraction <= 1)) {
    result.error = "invalid training options (epochs >= 1, batch sizes >= 1 "
                   "and >= 2, positive learning rate, non-negative weights, "
                   "epoch group fraction in (0, 1])";
    return result;
  }
  std::string missing;
  std::vector<PreparedGroup> prepared =
      prepare(groups, features, o.target, &missing);
  if (!missing.empty()) {
    result.error = "no features for matrix '" + missing + "'";
    return result;
  }
  if (prepared.empty()) {
    result.error =
        std::string("no training data for target '") + toString(o.target) + "'";
    return result;
  }
  if (o.finetune && !model.isTrainedFor(o.target) &&
      model.info().trainedTargets.empty()) {
    result.error = "fine-tuning needs a trained base model";
    return result;
  }
  if (const FeatureLayout &layout = model.impl().net->layout;
      !layout.slotOf(o.target)) {
    result.error = std::string("the model has no knob coding for target '") +
                   toString(o.target) + "' (built for " + layout.str() +
                   "); train a model created with it registered";
    return result;
  }
  if (std::string why = whyNoKernelFeatures(model.impl().net->layout, prepared);
      !why.empty()) {
    result.error = why;
    return result;
  }
  // Runs the training; false when it stopped early (an error in
  // `result.error`, or an interruption).
  llvm::Expected<bool> completed = guardTorch("training failed", [&] {
    if (o.threads > 0)
      torch::set_num_threads(o.threads);
    CostNet &net = model.impl().net;
    if (!o.finetune)
      fitNormalization(net, prepared, o.normalizationMatrices);
    uint64_t fp = fingerprint(prepared, o, model);
    std::vector<torch::Tensor> params = trainableParameters(net, o);
    FreezeGuard freeze(net, params);
    torch::optim::Adam opt(
        params,
        torch::optim::AdamOptions(o.learningRate).weight_decay(o.weightDecay));

    if (!o.checkpointDir.empty()) {
      if (std::error_code ec =
              llvm::sys::fs::create_directories(o.checkpointDir)) {
        result.error = "cannot create checkpoint directory '" +
                       o.checkpointDir + "': " + ec.message();
        return false;
      }
      int resumed = loadCheckpoint(o.checkpointDir, model, opt, fp,
                                   result.history, result.error);
      if (resumed < 0)
        return false;
      result.resumedFrom = resumed;
      if (resumed > 0 && o.onResume)
        o.onResume(resumed);
    }

    size_t perBatch = static_cast<size_t>(o.groupsPerBatch);
    // RS2: an epoch is a fresh random subset of the groups.
    size_t perEpoch = prepared.size();
    if (o.epochGroupFraction < 1)
      perEpoch = std::max<size_t>(
          1, static_cast<size_t>(std::ceil(o.epochGroupFraction *
                                           static_cast<double>(perEpoch))));
    size_t stepsPerEpoch = (perEpoch + perBatch - 1) / perBatch;
    size_t stepsDone = 0;
    size_t stepsTotal =
        stepsPerEpoch * static_cast<size_t>(o.epochs - result.resumedFrom);
    double schedulesSeen = 0;
    Clock::time_point runStart = Clock::now();
    result.epochs = result.resumedFrom;

    for (int epoch = result.resumedFrom + 1; epoch <= o.epochs; ++epoch) {
      Clock::time_point epochStart = Clock::now();
      std::mt19937_64 rng(o.seed * 0x9E3779B97F4A7C15ull +
                          static_cast<uint64_t>(epoch));
      std::vector<size_t> order(prepared.size());
      for (size_t n = 0; n < order.size(); ++n)
        order[n] = n;
      for (size_t n = order.size(); n > 1; --n)
        std::swap(order[n - 1], order[rng() % n]);
      order.resize(perEpoch);
      // Cosine decay to a tenth of the learning rate.
      double progress = static_cast<double>(epoch - 1) / o.epochs;
      double lr =
          o.learningRate * (0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * progress)));
      for (auto &group : opt.param_groups())
        static_cast<torch::optim::AdamOptions &>(group.options()).lr(lr);

      EpochReport report;
      report.epoch = epoch;
      for (size_t step = 0; step < stepsPerEpoch; ++step) {
        if (o.stop && o.stop->load()) {
          result.interrupted = true;
          result.ok = true;
          result.seconds = secondsSince(start);
          return false;
        }
        std::vector<const PreparedGroup *> batch;
        std::vector<std::vector<size_t>> picks;
        for (size_t k = step * perBatch;
             k < std::min(order.size(), (step + 1) * perBatch); ++k) {
          const PreparedGroup &pg = prepared[order[k]];
          size_t size = pg.logTimes.size();
          std::vector<size_t> idx(size);
          for (size_t n = 0; n < size; ++n)
            idx[n] = n;
          size_t take =
              std::min(size, static_cast<size_t>(o.schedulesPerGroup));
          for (size_t n = 0; n < take; ++n)
            std::swap(idx[n], idx[n + rng() % (size - n)]);
          idx.resize(take);
          batch.push_back(&pg);
          picks.push_back(std::move(idx));
          schedulesSeen += static_cast<double>(take);
        }
        StepLosses losses = stepLosses(model, o, batch, picks);
        opt.zero_grad();
        losses.total.backward();
        torch::nn::utils::clip_grad_norm_(params, 5.0);
        opt.step();

        double total = losses.total.item<double>();
        double k = static_cast<double>(step + 1);
        report.loss += (total - report.loss) / k;
        report.rankLoss += (losses.rank - report.rankLoss) / k;
        report.regressionLoss +=
            (losses.regression - report.regressionLoss) / k;
        report.reconstructionLoss +=
            (losses.reconstruction - report.reconstructionLoss) / k;
        ++stepsDone;
        if (o.onProgress) {
          double elapsed = secondsSince(runStart);
          TrainProgress p;
          p.epoch = epoch;
          p.epochs = o.epochs;
          p.step = step + 1;
          p.stepsPerEpoch = stepsPerEpoch;
          p.loss = report.loss;
          p.samplesPerSecond = elapsed > 0 ? schedulesSeen / elapsed : 0;
          p.etaSeconds = elapsed / static_cast<double>(stepsDone) *
                         static_cast<double>(stepsTotal - stepsDone);
          o.onProgress(p);
        }
      }
      report.seconds = secondsSince(epochStart);
      result.epochs = epoch;
      bool last = epoch == o.epochs;
      if (validation && !validation->empty() &&
          (last || (o.validateEvery > 0 && epoch % o.validateEvery == 0))) {
        model.markTrained(o.target);
        model.info().calibrated = o.regressionWeight > 0;
        report.validation =
            evaluate(model, filterTarget(*validation, o.target), features);
      }
      result.history.push_back(report);
      if (o.onEpoch)
        o.onEpoch(report);
      if (!o.checkpointDir.empty() &&
          !saveCheckpoint(o.checkpointDir, model, opt, epoch, fp,
                          result.history, result.error))
        return false;
      if (o.stopAfterEpoch > 0 && epoch >= o.stopAfterEpoch && !last) {
        result.interrupted = true;
        result.ok = true;
        result.seconds = secondsSince(start);
        return false;
      }
    }
    return true;
  });
  if (!completed) {
    result.error = llvm::toString(completed.takeError());
    return result;
  }
  if (!*completed)
    return result;
  model.markTrained(o.target);
  model.info().calibrated = o.regressionWeight > 0;
  result.ok = true;
  result.seconds = secondsSince(start);
  return result;
}

llvm::Expected<std::vector<float>>
sptune::lossGradient(const Model &model, const std::vector<SampleGroup> &groups,
                     const FeatureTable &features, const TrainOptions &o,
                     const std::vector<std::vector<bool>> *focus) {
  auto failure = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "loss gradient: " + why);
  };
  if (focus && focus->size() != groups.size())
    return failure("the focus has " + llvm::Twine(focus->size()) +
                   " groups, not " + llvm::Twine(groups.size()));
  if (o.margin < 0 || o.regressionWeight < 0 || o.pairTolerance < 0)
    return failure("invalid options (negative margin, weight or tolerance)");
  if (!model.impl().net->layout.slotOf(o.target))
    return failure(std::string("the model has no knob coding for target '") +
                   toString(o.target) + "'");
  std::string missing;
  std::vector<PreparedGroup> prepared =
      prepare(groups, features, o.target, &missing);
  if (!missing.empty())
    return failure("no features for matrix '" + missing + "'");
  if (std::string why = whyNoKernelFeatures(model.impl().net->layout, prepared);
      !why.empty())
    return failure(why);
  std::string error;
  // On a copy: the gradients left in the parameters are no one's business.
  std::unique_ptr<Model> copy = model.clone(&error);
  if (!copy)
    return failure(error);
  std::vector<float> flat;
  llvm::Expected<bool> done = guardTorch("loss gradient", [&] {
    // Also when called under a caller's no-grad or inference scope.
    torch::AutoGradMode gradients(true);
    if (o.threads > 0)
      torch::set_num_threads(o.threads);
    CostNet &net = copy->impl().net;
    std::vector<torch::Tensor> params = trainableParameters(net, o);
    FreezeGuard freeze(net, params);
    for (torch::Tensor &p : params)
      if (p.grad().defined())
        p.mutable_grad().zero_();
    // One group a batch: its pairs are all it pairs, and a large group
    // (every schedule of a reward-set problem) stays one width^2 tensor.
    for (const PreparedGroup &pg : prepared) {
      auto index = static_cast<size_t>(pg.group - groups.data());
      std::vector<size_t> picks(pg.logTimes.size());
      std::vector<char> focused(picks.size(), 1);
      for (size_t n = 0; n < picks.size(); ++n) {
        picks[n] = n;
        if (focus)
          focused[n] = n < (*focus)[index].size() && (*focus)[index][n];
      }
      if (std::find(focused.begin(), focused.end(), 1) == focused.end())
        continue;
      std::vector<std::vector<char>> batchFocus{std::move(focused)};
      StepLosses l =
          stepLosses(*copy, o, {&pg}, {std::move(picks)}, &batchFocus);
      if (!l.total.requires_grad())
        throw std::runtime_error("the loss does not depend on the trained "
                                 "parameters");
      l.total.backward();
    }
    for (const torch::Tensor &p : params) {
      torch::Tensor grad = p.grad().defined()
                               ? p.grad().reshape({-1}).to(torch::kFloat)
                               : torch::zeros({p.numel()});
      grad = grad.contiguous();
      const float *data = grad.data_ptr<float>();
      flat.insert(flat.end(), data, data + grad.numel());
    }
    return true;
  });
  if (!done)
    return done.takeError();
  return flat;
}

const char *sptune::toString(FinetuneFreeze f) {
  switch (f) {
  case FinetuneFreeze::Encoders:
    return "encoders";
  case FinetuneFreeze::Matrix:
    return "matrix";
  case FinetuneFreeze::None:
    return "none";
  }
  return "encoders";
}

std::optional<FinetuneFreeze> sptune::parseFinetuneFreeze(std::string_view n) {
  if (n == "encoders")
    return FinetuneFreeze::Encoders;
  if (n == "matrix")
    return FinetuneFreeze::Matrix;
  if (n == "none")
    return FinetuneFreeze::None;
  return std::nullopt;
}

TrainResult sptune::finetune(Model &model,
                             const std::vector<SampleGroup> &groups,
                             const FeatureTable &features, TrainOptions options,
                             const std::vector<SampleGroup> *validation) {
  options.finetune = true;
  return train(model, groups, features, options, validation);
}

//===----------------------------------------------------------------------===//
// Autoencoder pre-training
//===----------------------------------------------------------------------===//

/// `pretrainAutoencoders` without the exception boundary.
static std::vector<double>
pretrainUnguarded(Model &model, const std::vector<Schedule> &schedules,
                  const PretrainOptions &o) {
  std::vector<double> errors;
  CostNet &net = model.impl().net;
  // The no-autoencoder ablation has nothing to pre-train.
  const FeatureLayout &layout = net->layout;
  if (net->config.noAutoencoder)
    return std::vector<double>(layout.numTargets(), 0.0);
  for (size_t slot = 0; slot < layout.numTargets(); ++slot) {
    TargetKind t = layout.targetAt(slot);
    // A target without knobs has no autoencoder.
    if ((o.only && *o.only != t) || !net->autoencoder(slot)) {
      errors.push_back(0.0);
      continue;
    }
    // Settings drawn for one kernel type the layout has: the autoencoder
    // sees the knob block only. Given schedules of a kernel the layout
    // lacks are not the model's (its training refuses them).
    KernelType sampled = layout.hasKernel(kDefaultKernelType)
                             ? kDefaultKernelType
                             : layout.kernelTypes().front();
    std::vector<Schedule> data = sampleKnobSettings(
        t, sampled, o.sampledPerTarget, o.seed + static_cast<uint64_t>(t));
    for (const Schedule &s : schedules)
      if (s.target == t && layout.hasKernel(s.kernel))
        data.push_back(s);
    int d = layout.knobSize(slot);
    auto rows = static_cast<int64_t>(data.size());
    torch::Tensor all = torch::empty({rows, d});
    std::vector<float> common(static_cast<size_t>(layout.commonSize()));
    for (int64_t n = 0; n < rows; ++n)
      layout.mapCanonical(canonicalize(data[n]), 0, common.data(),
                          all.data_ptr<float>() + n * d);
    KnobAutoencoder &ae = net->autoencoder(slot);
    if (o.reinitialize) {
      // As DenseImpl initializes: U(-1/sqrt(in), 1/sqrt(in)).
      torch::NoGradGuard noGrad;
      torch::Generator gen = at::make_generator<at::CPUGeneratorImpl>(
          o.seed * 131 + static_cast<uint64_t>(t) + 1);
      for (Dense *layer : {&ae->e1, &ae->e2, &ae->d1, &ae->d2}) {
        double bound =
            1.0 / std::sqrt(static_cast<double>((*layer)->weight.size(1)));
        (*layer)->weight.uniform_(-bound, bound, gen);
        (*layer)->bias.uniform_(-bound, bound, gen);
      }
    }
    torch::optim::Adam opt(ae->parameters(),
                           torch::optim::AdamOptions(o.learningRate));
    std::mt19937_64 rng(o.seed * 31 + static_cast<uint64_t>(t));
    for (int step = 0; step < o.steps && rows > 0; ++step) {
      std::vector<int64_t> idx(
          static_cast<size_t>(std::min<int64_t>(o.batch, rows)));
      for (int64_t &i : idx)
        i = static_cast<int64_t>(rng() % static_cast<uint64_t>(rows));
      torch::Tensor x = all.index_select(0, torch::tensor(idx, torch::kInt64));
      torch::Tensor loss = torch::mse_loss(ae->decode(ae->encode(x)), x);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    torch::NoGradGuard noGrad;
    errors.push_back(
        rows ? torch::mse_loss(ae->decode(ae->encode(all)), all).item<double>()
             : 0.0);
  }
  return errors;
}

llvm::Expected<std::vector<double>>
sptune::pretrainAutoencoders(Model &model,
                             const std::vector<Schedule> &schedules,
                             const PretrainOptions &o) {
  return guardTorch("pre-training the knob autoencoders failed",
                    [&] { return pretrainUnguarded(model, schedules, o); });
}

llvm::Error sptune::zeroKnobCode(Model &model, TargetKind target) {
  llvm::Expected<bool> done = guardTorch("zeroing the knob code failed", [&] {
    torch::NoGradGuard noGrad;
    CostNet &net = model.impl().net;
    size_t slot = net->slot(target);
    if (!net->autoencoder(slot))
      return true; // no knobs: the code is zero already
    Dense &out = net->config.noAutoencoder ? net->direct(slot)
                                           : net->autoencoder(slot)->e2;
    out->weight.zero_();
    out->bias.zero_();
    return true;
  });
  return done.takeError();
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

ModelEvaluation sptune::evaluate(const Model &model,
                                 const std::vector<SampleGroup> &groups,
                                 const FeatureTable &features) {
  std::vector<GroupEvaluation> evals;
  size_t failed = 0, unmodeled = 0;
  std::string firstError;
  for (const SampleGroup &g : groups) {
    auto f = features.find(g.matrix.id);
    if (f == features.end() || g.samples.empty())
      continue;
    if (!model.hasKernel(g.kernel)) {
      ++unmodeled;
      continue;
    }
    std::vector<Schedule> schedules;
    std::vector<double> times;
    for (const MeasuredSchedule &m : g.samples) {
      schedules.push_back(m.schedule);
      times.push_back(m.time);
    }
    std::string why;
    std::vector<double> scores =
        model.score(f->second, schedules, g.free, &why);
    if (scores.size() != schedules.size()) {
      if (failed++ == 0)
        firstError = g.key() + ": " +
                     (why.empty() ? "the model returned no scores" : why);
      continue;
    }
    std::optional<double> reference;
    if (model.info().calibrated)
      reference = g.referenceTime();
    evals.push_back(
        evaluateGroup(g.key(), scores, times, g.defaultTime(), reference));
    for (const Schedule &s : schedules)
      evals.back().schedules.push_back(s.str());
  }
  ModelEvaluation out;
  static_cast<EvaluationReport &>(out) = summarize(std::move(evals));
  out.failedGroups = failed;
  out.firstError = std::move(firstError);
  out.unmodeledGroups = unmodeled;
  return out;
}
