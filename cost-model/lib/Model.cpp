//===- Model.cpp - The learned ranking model ------------------------------===//

#include "ModelImpl.h"
#include "TorchGuard.h"

#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/PlainWeights.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"
#include "sptune/Support/Json.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <torch/serialize/archive.h>

#include <cmath>
#include <mutex>
#include <sstream>

using namespace sptune;
using namespace sptune::torchimpl;
namespace nn = torch::nn;

//===----------------------------------------------------------------------===//
// Networks
//===----------------------------------------------------------------------===//

DenseImpl::DenseImpl(int64_t in, int64_t out) {
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = register_parameter(
      "weight", torch::empty({out, in, 1, 1}).uniform_(-bound, bound));
  bias =
      register_parameter("bias", torch::empty({out}).uniform_(-bound, bound));
}

torch::Tensor DenseImpl::forward(const torch::Tensor &x) {
  int64_t n = x.size(0);
  return torch::conv2d(x.reshape({n, x.size(1), 1, 1}), weight, bias)
      .reshape({n, weight.size(0)});
}

MatrixEncoderImpl::MatrixEncoderImpl(int vectorSize, int embedding) {
  auto conv = [](int in, int out) {
    return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(2).padding(1));
  };
  // 128 -> 64, joined by the 64 image; -> 32, joined by the 32 image; -> 16
  // -> 8, then mean and max pooling.
  c1 = register_module("c1", conv(1, 8));
  c2 = register_module("c2", conv(9, 16));
  c3 = register_module("c3", conv(17, 32));
  c4 = register_module("c4", conv(32, 32));
  v1 = register_module("v1", Dense(vectorSize, 64));
  v2 = register_module("v2", Dense(64, 64));
  fuse = register_module("fuse", Dense(64 + 64, embedding));
}

torch::Tensor MatrixEncoderImpl::forward(const torch::Tensor &img32,
                                         const torch::Tensor &img64,
                                         const torch::Tensor &img128,
                                         const torch::Tensor &vec) {
  torch::Tensor x = torch::relu(c1(img128));
  x = torch::relu(c2(torch::cat({x, img64}, 1)));
  x = torch::relu(c3(torch::cat({x, img32}, 1)));
  x = torch::relu(c4(x));
  torch::Tensor pooled = torch::cat({x.mean({2, 3}), x.amax({2, 3})}, 1);
  torch::Tensor v = torch::relu(v2(torch::relu(v1(vec))));
  return torch::relu(fuse(torch::cat({pooled, v}, 1)));
}

KnobAutoencoderImpl::KnobAutoencoderImpl(int knobs, int hidden, int latent) {
  e1 = register_module("e1", Dense(knobs, hidden));
  e2 = register_module("e2", Dense(hidden, latent));
  d1 = register_module("d1", Dense(latent, hidden));
  d2 = register_module("d2", Dense(hidden, knobs));
}

torch::Tensor KnobAutoencoderImpl::encode(const torch::Tensor &knobs) {
  return torch::tanh(e2(torch::relu(e1(knobs))));
}

torch::Tensor KnobAutoencoderImpl::decode(const torch::Tensor &code) {
  return d2(torch::relu(d1(code)));
}

CostNetImpl::CostNetImpl(const ModelConfig &c, FeatureLayout l)
    : config(c), layout(std::move(l)) {
  int e = c.embedding;
  matrix =
      register_module("matrix", MatrixEncoder(MatrixFeatures::kVectorSize, e));
  size_t targets = layout.numTargets();
  autoencoders.assign(targets, nullptr);
  directs.assign(targets, nullptr);
  // A target without knobs has no code to learn: its latent code is zero.
  for (size_t slot = 0; slot < targets; ++slot)
    if (int knobs = layout.knobSize(slot))
      autoencoders[slot] = register_module(
          "autoencoder_" + layout.targetNames()[slot],
          KnobAutoencoder(knobs, c.autoencoderHidden, c.latent));
  // Registered only when ablated, so that other models' files are
  // unchanged.
  if (c.noAutoencoder)
    for (size_t slot = 0; slot < targets; ++slot)
      if (int knobs = layout.knobSize(slot))
        directs[slot] = register_module("direct_" + layout.targetNames()[slot],
                                        Dense(knobs, c.latent));
  s1 = register_module("s1", Dense(layout.commonSize() + c.latent, c.hidden));
  s2 = register_module("s2", Dense(c.hidden, e));
  p1 = register_module("p1", Dense(3 * e, c.hidden));
  p2 = register_module("p2", Dense(c.hidden, c.hidden / 2));
  p3 = register_module("p3", Dense(c.hidden / 2, 1));
  vecMean =
      register_buffer("vec_mean", torch::zeros({MatrixFeatures::kVectorSize}));
  vecStd =
      register_buffer("vec_std", torch::ones({MatrixFeatures::kVectorSize}));
}

size_t CostNetImpl::slot(TargetKind target) const {
  if (std::optional<size_t> s = layout.slotOf(target))
    return *s;
  throw std::invalid_argument(std::string("the model has no knob coding for "
                                          "target '") +
                              toString(target) + "' (built for " +
                              layout.str() + ")");
}

std::vector<torch::Tensor> CostNetImpl::knobCodeParameters(size_t slot) {
  if (config.noAutoencoder)
    return directs[slot] ? directs[slot]->parameters()
                         : std::vector<torch::Tensor>();
  return autoencoders[slot] ? autoencoders[slot]->parameters()
                            : std::vector<torch::Tensor>();
}

torch::Tensor CostNetImpl::embedMatrices(const torch::Tensor &img32,
                                         const torch::Tensor &img64,
                                         const torch::Tensor &img128,
                                         const torch::Tensor &vec) {
  torch::Tensor normalized = ((vec - vecMean) / vecStd).clamp(-10, 10);
  if (config.singleScale)
    return matrix(torch::zeros_like(img32), torch::zeros_like(img64), img128,
                  normalized);
  return matrix(img32, img64, img128, normalized);
}

torch::Tensor CostNetImpl::embedSchedules(const torch::Tensor &common,
                                          const torch::Tensor &latent) {
  torch::Tensor c = config.noConfigMapper ? torch::zeros_like(common) : common;
  return torch::relu(s2(torch::relu(s1(torch::cat({c, latent}, 1)))));
}

torch::Tensor CostNetImpl::predict(const torch::Tensor &m,
                                   const torch::Tensor &s) {
  torch::Tensor h = torch::relu(p1(torch::cat({m, s, m * s}, 1)));
  return p3(torch::relu(p2(h))).squeeze(1);
}

//===----------------------------------------------------------------------===//
// Batches
//===----------------------------------------------------------------------===//

MatrixBatch
torchimpl::makeMatrixBatch(const std::vector<const MatrixFeatures *> &ms) {
  auto b = static_cast<int64_t>(ms.size());
  MatrixBatch out;
  torch::Tensor *imgs[3] = {&out.img32, &out.img64, &out.img128};
  for (size_t s = 0; s < 3; ++s) {
    int64_t side = MatrixFeatures::kImageSizes[s];
    *imgs[s] = torch::empty({b, 1, side, side});
    float *dst = imgs[s]->data_ptr<float>();
    for (const MatrixFeatures *m : ms) {
      std::copy(m->images[s].begin(), m->images[s].end(), dst);
      dst += side * side;
    }
  }
  out.vec = torch::empty({b, MatrixFeatures::kVectorSize});
  float *dst = out.vec.data_ptr<float>();
  for (const MatrixFeatures *m : ms) {
    std::vector<float> v = m->vector();
    std::copy(v.begin(), v.end(), dst);
    dst += MatrixFeatures::kVectorSize;
  }
  return out;
}

ScheduleBatch
torchimpl::makeScheduleBatch(const FeatureLayout &layout,
                             const std::vector<const Schedule *> &ss,
                             const std::vector<int64_t> &free) {
  ScheduleBatch b;
  b.size = static_cast<int64_t>(ss.size());
  int64_t c = layout.commonSize();
  b.common = torch::empty({b.size, c});
  float *common = b.common.data_ptr<float>();
  size_t targets = layout.numTargets();
  std::vector<Schedule> canon;
  canon.reserve(ss.size());
  std::vector<size_t> slots;
  slots.reserve(ss.size());
  std::vector<std::vector<int64_t>> rows(targets);
  for (size_t n = 0; n < ss.size(); ++n) {
    canon.push_back(canonicalize(*ss[n]));
    std::optional<size_t> slot = layout.slotOf(canon.back().target);
    if (!slot)
      throw std::invalid_argument(
          std::string("the model has no knob coding for target '") +
          toString(canon.back().target) + "' (built for " + layout.str() + ")");
    if (!layout.hasKernel(canon.back().kernel))
      throw std::invalid_argument(
          std::string("the model has no feature for kernel '") +
          toString(canon.back().kernel) + "' (built for " +
          layout.kernelsStr() + ")");
    slots.push_back(*slot);
    rows[*slot].push_back(static_cast<int64_t>(n));
  }
  b.knobs.resize(targets);
  b.rows.resize(targets);
  std::vector<float *> knobPtr(targets, nullptr);
  for (size_t slot = 0; slot < targets; ++slot) {
    if (rows[slot].empty())
      continue;
    auto count = static_cast<int64_t>(rows[slot].size());
    b.knobs[slot] = torch::empty({count, layout.knobSize(slot)});
    b.rows[slot] =
        torch::from_blob(rows[slot].data(), {count}, torch::kInt64).clone();
    knobPtr[slot] = b.knobs[slot].data_ptr<float>();
  }
  for (size_t n = 0; n < canon.size(); ++n) {
    size_t slot = slots[n];
    int64_t f = free.size() == 1 ? free[0] : free[n];
    layout.mapCanonical(canon[n], f, common + n * c, knobPtr[slot]);
    knobPtr[slot] += layout.knobSize(slot);
  }
  return b;
}

torch::Tensor torchimpl::latentCodes(CostNet &net, const ScheduleBatch &batch,
                                     int latent) {
  torch::Tensor codes;
  for (size_t slot = 0; slot < batch.knobs.size(); ++slot) {
    const torch::Tensor &knobs = batch.knobs[slot];
    if (!knobs.defined())
      continue;
    // A target without knobs has neither layer: its code is zero.
    torch::Tensor z =
        net->config.noAutoencoder
            ? (net->direct(slot) ? net->direct(slot)(knobs)
                                 : torch::zeros({knobs.size(0), latent}))
            : (net->autoencoder(slot) ? net->autoencoder(slot)->encode(knobs)
                                      : torch::zeros({knobs.size(0), latent}));
    if (knobs.size(0) == batch.size)
      return z; // one target: rows are in order
    if (!codes.defined())
      codes = torch::zeros({batch.size, latent});
    codes = codes.index_copy(0, batch.rows[slot], z);
  }
  return codes.defined() ? codes : torch::zeros({batch.size, latent});
}

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

std::unique_ptr<Model> Model::fromImpl(std::unique_ptr<Impl> impl) {
  return std::unique_ptr<Model>(new Model(std::move(impl)));
}

/// Parameter initialization draws from LibTorch's global generator.
static std::mutex &seedMutex() {
  static std::mutex m;
  return m;
}

/// The layout of `config.targets` (every registered target when empty) and
/// `config.kernels` (spmm, sddmm and spmv when empty).
static llvm::Expected<FeatureLayout> layoutOf(const ModelConfig &config) {
  ModelConfig c = config;
  if (c.targets.empty()) {
    if (TargetRegistry::all().empty())
      return makeError("no target is registered (call "
                       "sptune::registerAllTargets() first)");
    c.targets = FeatureLayout::ofRegisteredTargets().targetNames();
  }
  if (c.kernels.empty())
    c.kernels = defaultModelKernels();
  return FeatureLayout::of(c.targets, c.kernels, c.sharedKnobs);
}

std::unique_ptr<Model> Model::create(const ModelConfig &config, uint64_t seed,
                                     std::string *error) {
  llvm::Expected<FeatureLayout> layout = layoutOf(config);
  if (!layout) {
    reportError(layout.takeError(), error);
    return nullptr;
  }
  ModelConfig resolved = config;
  resolved.targets = layout->targetNames();
  resolved.kernels = layout->kernelNames();
  resolved.sharedKnobs = layout->sharedKnobs();
  llvm::Expected<std::unique_ptr<Model>> model =
      guardTorch("creating the model failed", [&] {
        std::lock_guard<std::mutex> lock(seedMutex());
        torch::manual_seed(seed);
        return fromImpl(std::make_unique<Impl>(resolved, std::move(*layout)));
      });
  if (!model) {
    reportError(model.takeError(), error);
    return nullptr;
  }
  return std::move(*model);
}

bool sptune::setModelThreads(int n, std::string *error) {
  llvm::Error err = guardTorch("setting LibTorch's thread count failed", [&] {
    if (n >= 1 && torch::get_num_threads() != n)
      torch::set_num_threads(n);
  });
  if (err) {
    reportError(std::move(err), error);
    return false;
  }
  return true;
}

const ModelInfo &Model::info() const { return impl_->info; }
ModelInfo &Model::info() { return impl_->info; }

bool Model::isTrainedFor(TargetKind target) const {
  const auto &t = impl_->info.trainedTargets;
  return std::find(t.begin(), t.end(), target) != t.end();
}

bool Model::hasKernel(KernelType kernel) const {
  return impl_->net->layout.hasKernel(kernel);
}

void Model::markTrained(TargetKind target) {
  if (!isTrainedFor(target)) {
    impl_->info.trainedTargets.push_back(target);
    std::sort(impl_->info.trainedTargets.begin(),
              impl_->info.trainedTargets.end());
  }
}

std::vector<double> Model::score(const MatrixFeatures &features,
                                 const std::vector<Schedule> &candidates,
                                 int64_t free, std::string *error) const {
  if (!features.isWellFormed()) {
    if (error)
      *error = "matrix features have the wrong sizes for this build";
    return {};
  }
  if (candidates.empty())
    return {};
  llvm::Expected<std::vector<double>> scores =
      guardTorch("scoring the candidates failed", [&] {
        torch::NoGradGuard noGrad;
        CostNet &net = impl_->net;
        MatrixBatch mb = makeMatrixBatch({&features});
        torch::Tensor m =
            net->embedMatrices(mb.img32, mb.img64, mb.img128, mb.vec);
        std::vector<const Schedule *> ptrs;
        ptrs.reserve(candidates.size());
        for (const Schedule &s : candidates)
          ptrs.push_back(&s);
        ScheduleBatch sb = makeScheduleBatch(net->layout, ptrs, {free});
        torch::Tensor z = latentCodes(net, sb, impl_->info.config.latent);
        torch::Tensor s = net->embedSchedules(sb.common, z);
        torch::Tensor out =
            net->predict(m.expand({sb.size, m.size(1)}), s).contiguous();
        const float *p = out.data_ptr<float>();
        return std::vector<double>(p, p + sb.size);
      });
  if (!scores) {
    reportError(scores.takeError(), error);
    return {};
  }
  return std::move(*scores);
}

std::vector<float> Model::scheduleCode(const Schedule &schedule, int64_t free,
                                       std::string *error) const {
  llvm::Expected<std::vector<float>> code =
      guardTorch("computing a schedule code failed", [&] {
        torch::NoGradGuard noGrad;
        ScheduleBatch sb =
            makeScheduleBatch(impl_->net->layout, {&schedule}, {free});
        torch::Tensor z =
            latentCodes(impl_->net, sb, impl_->info.config.latent);
        torch::Tensor common = impl_->info.config.noConfigMapper
                                   ? torch::zeros_like(sb.common)
                                   : sb.common;
        torch::Tensor code = torch::cat({common, z}, 1).contiguous();
        const float *p = code.data_ptr<float>();
        return std::vector<float>(p, p + code.numel());
      });
  if (!code) {
    reportError(code.takeError(), error);
    return {};
  }
  return std::move(*code);
}

std::vector<float> Model::matrixEmbedding(const MatrixFeatures &features,
                                          std::string *error) const {
  if (!features.isWellFormed()) {
    if (error)
      *error = "matrix features have the wrong sizes for this build";
    return {};
  }
  llvm::Expected<std::vector<float>> embedding =
      guardTorch("computing the matrix embedding failed", [&] {
        torch::NoGradGuard noGrad;
        MatrixBatch mb = makeMatrixBatch({&features});
        torch::Tensor m =
            impl_->net->embedMatrices(mb.img32, mb.img64, mb.img128, mb.vec)
                .contiguous();
        const float *p = m.data_ptr<float>();
        return std::vector<float>(p, p + m.numel());
      });
  if (!embedding) {
    reportError(embedding.takeError(), error);
    return {};
  }
  return std::move(*embedding);
}

size_t Model::parameterCount(std::string *error) const {
  llvm::Expected<size_t> count =
      guardTorch("counting the model's parameters failed", [&] {
        size_t n = 0;
        for (const torch::Tensor &p : impl_->net->parameters())
          n += static_cast<size_t>(p.numel());
        return n;
      });
  if (!count) {
    reportError(count.takeError(), error);
    return 0;
  }
  return *count;
}

/// Parameters and buffers by name, in the module's registration order.
static std::vector<std::pair<std::string, torch::Tensor>>
namedState(const CostNet &net, std::vector<bool> *isBuffer = nullptr) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto &p : net->named_parameters()) {
    out.emplace_back(p.key(), p.value());
    if (isBuffer)
      isBuffer->push_back(false);
  }
  for (const auto &b : net->named_buffers()) {
    out.emplace_back(b.key(), b.value());
    if (isBuffer)
      isBuffer->push_back(true);
  }
  return out;
}

uint64_t Model::weightHash(std::string *error) const {
  llvm::Expected<uint64_t> hash =
      guardTorch("hashing the model's weights failed", [&] {
        uint64_t h = fnv1a64("");
        for (const auto &[name, t] : namedState(impl_->net)) {
          torch::Tensor c = t.detach().contiguous();
          h = fnv1a64(name, h);
          h = fnv1a64(std::string_view(static_cast<const char *>(c.data_ptr()),
                                       c.numel() * c.element_size()),
                      h);
        }
        return h;
      });
  if (!hash) {
    reportError(hash.takeError(), error);
    return 0;
  }
  return *hash;
}

std::unique_ptr<Model> Model::clone(std::string *error) const {
  llvm::Expected<ModelFileSections> sections = guardTorch(
      "copying the model failed", [&] { return modelSections(*this); });
  if (!sections) {
    reportError(sections.takeError(), error);
    return nullptr;
  }
  std::string why;
  std::unique_ptr<Model> copy = modelFromSections(*sections, "a copy", why);
  if (!copy && error)
    *error = why;
  return copy;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// Archive keys cannot hold '.', so dotted names become '__'.
static std::string archiveKey(const std::string &name) {
  std::string key;
  for (char c : name)
    key += c == '.' ? std::string("__") : std::string(1, c);
  return key;
}

ModelFileSections torchimpl::modelSections(const Model &model) {
  torch::serialize::OutputArchive archive;
  std::vector<bool> isBuffer;
  auto state = namedState(model.impl().net, &isBuffer);
  for (size_t n = 0; n < state.size(); ++n)
    archive.write(archiveKey(state[n].first), state[n].second.detach(),
                  isBuffer[n]);
  std::ostringstream weights;
  archive.save_to(weights);
  // The same state as plain arrays, for the release scorer without LibTorch.
  PlainArrays plain;
  for (const auto &[name, tensor] : state) {
    torch::Tensor t = tensor.detach().to(torch::kFloat32).contiguous();
    PlainArray &array = plain[name];
    array.shape.assign(t.sizes().begin(), t.sizes().end());
    const float *p = t.data_ptr<float>();
    array.values.assign(p, p + t.numel());
  }
  return {{"config", modelConfigJson(model.info(), model.impl().net->layout)},
          {"weights", weights.str()},
          {kPlainWeightsSection, encodePlainWeights(plain)}};
}

std::unique_ptr<Model>
torchimpl::modelFromSections(const ModelFileSections &sections,
                             const std::string &what, std::string &error) {
  auto config = sections.find("config");
  auto weights = sections.find("weights");
  if (config == sections.end() || weights == sections.end()) {
    error = "'" + what + "' lacks its configuration or weights";
    return nullptr;
  }
  ModelInfo info;
  if (takeErrorMessage(parseModelConfig(config->second, info), error)) {
    error = "'" + what + "': " + error;
    return nullptr;
  }
  llvm::Expected<FeatureLayout> layout = modelLayout(info.config, what);
  if (!layout) {
    error = llvm::toString(layout.takeError());
    return nullptr;
  }
  // Null with `error` set for a problem found; an llvm::Error for an
  // exception.
  llvm::Expected<std::unique_ptr<Model>> model = guardTorch(
      "'" + what + "' has unreadable weights", [&]() -> std::unique_ptr<Model> {
        auto impl =
            std::make_unique<Model::Impl>(info.config, std::move(*layout));
        impl->info = info;
        torch::serialize::InputArchive archive;
        std::istringstream in(weights->second);
        archive.load_from(in);
        std::vector<bool> isBuffer;
        auto state = namedState(impl->net, &isBuffer);
        torch::NoGradGuard noGrad;
        for (size_t n = 0; n < state.size(); ++n) {
          torch::Tensor read;
          const std::string &name = state[n].first;
          if (!archive.try_read(archiveKey(name), read, isBuffer[n])) {
            error = "'" + what + "' lacks the weights '" + name + "'";
            return nullptr;
          }
          torch::Tensor &dst = state[n].second;
          if (read.sizes() != dst.sizes() ||
              read.scalar_type() != dst.scalar_type()) {
            error = "'" + what + "' has weights '" + name +
                    "' of another shape than its configuration implies";
            return nullptr;
          }
          // A diverged training run leaves NaN or infinite weights; such a
          // model would rank with NaN scores.
          if (read.is_floating_point() && !torch::isfinite(read).all().item<bool>()) {
            error = "'" + what + "' has non-finite weights '" + name +
                    "' (its training diverged)";
            return nullptr;
          }
          dst.copy_(read);
        }
        return Model::fromImpl(std::move(impl));
      });
  if (!model) {
    error = llvm::toString(model.takeError());
    return nullptr;
  }
  return std::move(*model);
}

std::unique_ptr<Model> torchimpl::modelFromFile(const ModelFileContents &file,
                                                const std::string &what,
                                                std::string &error) {
  if (takeErrorMessage(checkModelFeatureSpec(file, what), error))
    return nullptr;
  return modelFromSections(file.sections, what, error);
}

std::string Model::serialize(std::string *error) const {
  std::string nonFinite;
  llvm::Expected<std::string> bytes =
      guardTorch("serializing the model failed", [&]() -> std::string {
        // Never write a model a diverged training left with NaN or infinite
        // weights.
        for (const auto &[name, t] : namedState(impl_->net))
          if (t.is_floating_point() && !torch::isfinite(t).all().item<bool>()) {
            nonFinite = name;
            return {};
          }
        return encodeModelFile("model", featureSpecHash(impl_->net->layout),
                               modelSections(*this));
      });
  if (bytes && !nonFinite.empty()) {
    if (error)
      *error = "the model has non-finite weights '" + nonFinite +
               "' (training diverged; try a smaller learning rate)";
    return {};
  }
  if (!bytes) {
    reportError(bytes.takeError(), error);
    return {};
  }
  return std::move(*bytes);
}

bool Model::save(const std::string &path, std::string &error) const {
  std::string bytes = serialize(&error);
  if (bytes.empty())
    return false;
  return !takeErrorMessage(replaceFileAtomically(path, bytes), error);
}

std::unique_ptr<Model> Model::loadFromBytes(const std::string &bytes,
                                            const std::string &what,
                                            std::string &error) {
  ModelFileContents file;
  if (takeErrorMessage(decodeModelFile(bytes, "model", what).moveInto(file),
                       error))
    return nullptr;
  return torchimpl::modelFromFile(file, what, error);
}

std::unique_ptr<Model> Model::load(const std::string &path,
                                   std::string &error) {
  std::string bytes;
  if (takeErrorMessage(readFileBytes(path).moveInto(bytes), error))
    return nullptr;
  return loadFromBytes(bytes, path, error);
}
