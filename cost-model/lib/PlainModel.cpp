//===- PlainModel.cpp - The cost model's forward pass in plain C++ --------===//
//
// Mirrors CostNetImpl (Model.cpp) layer by layer: the same names, shapes and
// activations. Dot products accumulate in double and round once per output,
// LibTorch accumulates in float: the scores agree to float rounding.
//
//===----------------------------------------------------------------------===//

#include "sptune/CostModel/PlainModel.h"

#include "sptune/CostModel/FeatureSpec.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/Files.h"

#include <algorithm>
#include <cmath>

using namespace sptune;

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

void PlainModel::Dense::apply(const float *x, float *y) const {
  for (int o = 0; o < out; ++o) {
    const float *w = weight.data() + static_cast<size_t>(o) * in;
    double sum = bias[o];
    for (int i = 0; i < in; ++i)
      sum += static_cast<double>(w[i]) * x[i];
    y[o] = static_cast<float>(sum);
  }
}

static void relu(std::vector<float> &v) {
  for (float &x : v)
    x = std::max(x, 0.0f);
}

/// `conv` over `input` [in, side, side], then ReLU: [out, side/2, side/2].
static std::vector<float> convRelu(const PlainModel::Conv &conv,
                                   const std::vector<float> &input, int side) {
  int half = side / 2;
  std::vector<float> output(static_cast<size_t>(conv.out) * half * half);
  for (int o = 0; o < conv.out; ++o)
    for (int y = 0; y < half; ++y)
      for (int x = 0; x < half; ++x) {
        double sum = conv.bias[o];
        for (int c = 0; c < conv.in; ++c) {
          const float *w = conv.weight.data() + (o * conv.in + c) * 9;
          const float *plane =
              input.data() + static_cast<size_t>(c) * side * side;
          for (int ky = 0; ky < 3; ++ky) {
            int iy = 2 * y - 1 + ky;
            if (iy < 0 || iy >= side)
              continue;
            for (int kx = 0; kx < 3; ++kx) {
              int ix = 2 * x - 1 + kx;
              if (ix < 0 || ix >= side)
                continue;
              sum +=
                  static_cast<double>(w[ky * 3 + kx]) * plane[iy * side + ix];
            }
          }
        }
        output[(static_cast<size_t>(o) * half + y) * half + x] =
            std::max(static_cast<float>(sum), 0.0f);
      }
  return output;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

/// Takes the array `name` of the expected shape from `arrays`.
static llvm::Error take(const PlainArrays &arrays, const std::string &name,
                        const std::vector<int64_t> &shape,
                        std::vector<float> &out, const std::string &what) {
  auto it = arrays.find(name);
  if (it == arrays.end())
    return makeError("'" + what + "' lacks the weights '" + name + "'");
  if (it->second.shape != shape)
    return makeError("'" + what + "' has weights '" + name +
                     "' of another shape than its configuration implies");
  out = it->second.values;
  return llvm::Error::success();
}

static llvm::Error takeDense(const PlainArrays &arrays,
                             const std::string &prefix, int in, int out,
                             PlainModel::Dense &layer,
                             const std::string &what) {
  layer.in = in;
  layer.out = out;
  if (llvm::Error e =
          take(arrays, prefix + ".weight", {out, in, 1, 1}, layer.weight, what))
    return e;
  return take(arrays, prefix + ".bias", {out}, layer.bias, what);
}

static llvm::Error takeConv(const PlainArrays &arrays,
                            const std::string &prefix, int in, int out,
                            PlainModel::Conv &layer, const std::string &what) {
  layer.in = in;
  layer.out = out;
  if (llvm::Error e =
          take(arrays, prefix + ".weight", {out, in, 3, 3}, layer.weight, what))
    return e;
  return take(arrays, prefix + ".bias", {out}, layer.bias, what);
}

llvm::Error PlainModel::bind(const PlainArrays &arrays,
                             const std::string &what) {
  const ModelConfig &c = info_.config;
  const FeatureLayout &layout = *layout_;
  int e = c.embedding;
  int vec = MatrixFeatures::kVectorSize;
  struct DenseSpec {
    const char *name;
    int in, out;
    Dense *layer;
  };
  if (llvm::Error err = takeConv(arrays, "matrix.c1", 1, 8, c1, what))
    return err;
  if (llvm::Error err = takeConv(arrays, "matrix.c2", 9, 16, c2, what))
    return err;
  if (llvm::Error err = takeConv(arrays, "matrix.c3", 17, 32, c3, what))
    return err;
  if (llvm::Error err = takeConv(arrays, "matrix.c4", 32, 32, c4, what))
    return err;
  for (const DenseSpec &d : std::initializer_list<DenseSpec>{
           {"matrix.v1", vec, 64, &v1},
           {"matrix.v2", 64, 64, &v2},
           {"matrix.fuse", 128, e, &fuse},
           {"s1", layout.commonSize() + c.latent, c.hidden, &s1},
           {"s2", c.hidden, e, &s2},
           {"p1", 3 * e, c.hidden, &p1},
           {"p2", c.hidden, c.hidden / 2, &p2},
           {"p3", c.hidden / 2, 1, &p3}})
    if (llvm::Error err =
            takeDense(arrays, d.name, d.in, d.out, *d.layer, what))
      return err;
  size_t targets = layout.numTargets();
  e1.assign(targets, {});
  e2.assign(targets, {});
  direct.assign(targets, {});
  for (size_t slot = 0; slot < targets; ++slot) {
    int knobs = layout.knobSize(slot);
    if (!knobs)
      continue;
    const std::string &name = layout.targetNames()[slot];
    if (c.noAutoencoder) {
      if (llvm::Error err = takeDense(arrays, "direct_" + name, knobs, c.latent,
                                      direct[slot], what))
        return err;
      continue;
    }
    std::string prefix = "autoencoder_" + name;
    if (llvm::Error err = takeDense(arrays, prefix + ".e1", knobs,
                                    c.autoencoderHidden, e1[slot], what))
      return err;
    if (llvm::Error err = takeDense(arrays, prefix + ".e2", c.autoencoderHidden,
                                    c.latent, e2[slot], what))
      return err;
  }
  if (llvm::Error err = take(arrays, "vec_mean", {vec}, vecMean, what))
    return err;
  return take(arrays, "vec_std", {vec}, vecStd, what);
}

llvm::Expected<std::unique_ptr<PlainModel>>
PlainModel::loadFromBytes(const std::string &bytes, const std::string &what,
                          const std::string &weightsSection) {
  ModelFileContents file;
  if (llvm::Error e = decodeModelFile(bytes, "model", what).moveInto(file))
    return std::move(e);
  return fromContents(file, what, weightsSection);
}

llvm::Expected<std::unique_ptr<PlainModel>>
PlainModel::fromContents(const ModelFileContents &file, const std::string &what,
                         const std::string &weightsSection) {
  if (llvm::Error e = checkModelFeatureSpec(file, what))
    return std::move(e);
  auto config = file.sections.find("config");
  auto weights = file.sections.find(weightsSection);
  if (config == file.sections.end())
    return makeError("'" + what + "' lacks its configuration or weights");
  if (weights == file.sections.end() && weightsSection != kPlainWeightsSection)
    return makeError("'" + what + "' lacks the section '" + weightsSection +
                     "'");
  if (weights == file.sections.end())
    return makeError("'" + what +
                     "' has no plain weights (written before the cost model "
                     "scored without LibTorch): `sptune-train --upgrade " +
                     what + " --out NEW.pt` adds them");
  std::unique_ptr<PlainModel> model(new PlainModel());
  if (llvm::Error e = parseModelConfig(config->second, model->info_)) {
    return makeError("'" + what + "': " + llvm::toString(std::move(e)));
  }
  llvm::Expected<FeatureLayout> layout = modelLayout(model->info_.config, what);
  if (!layout)
    return layout.takeError();
  model->layout_ = std::move(*layout);
  llvm::Expected<PlainArrays> arrays = decodePlainWeights(weights->second);
  if (!arrays)
    return makeError("'" + what + "': " + llvm::toString(arrays.takeError()));
  if (llvm::Error e = model->bind(*arrays, what))
    return std::move(e);
  return std::move(model);
}

llvm::Expected<std::unique_ptr<PlainModel>>
PlainModel::load(const std::string &path) {
  llvm::Expected<std::string> bytes = readFileBytes(path);
  if (!bytes)
    return bytes.takeError();
  return loadFromBytes(*bytes, path);
}

bool PlainModel::isTrainedFor(TargetKind target) const {
  return llvm::is_contained(info_.trainedTargets, target);
}

//===----------------------------------------------------------------------===//
// Scoring
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<float>>
PlainModel::matrixEmbedding(const MatrixFeatures &features) const {
  if (!features.isWellFormed())
    return makeError("matrix features have the wrong sizes for this build");
  const auto &sizes = MatrixFeatures::kImageSizes;
  bool single = info_.config.singleScale;
  auto image = [&](size_t s) {
    return single && s < 2 ? std::vector<float>(features.images[s].size(), 0.0f)
                           : features.images[s];
  };
  // 128 -> 64, joined by the 64 image; -> 32, joined by the 32 image; -> 16
  // -> 8.
  std::vector<float> x = convRelu(c1, image(2), sizes[2]);
  std::vector<float> img64 = image(1);
  x.insert(x.end(), img64.begin(), img64.end());
  x = convRelu(c2, x, sizes[1]);
  std::vector<float> img32 = image(0);
  x.insert(x.end(), img32.begin(), img32.end());
  x = convRelu(c3, x, sizes[0]);
  x = convRelu(c4, x, sizes[0] / 2);
  int side = sizes[0] / 4;
  int pixels = side * side;
  // Mean then max over each channel, then the vector features' MLP.
  std::vector<float> joined(128);
  for (int c = 0; c < 32; ++c) {
    const float *plane = x.data() + static_cast<size_t>(c) * pixels;
    double sum = 0;
    float max = plane[0];
    for (int p = 0; p < pixels; ++p) {
      sum += plane[p];
      max = std::max(max, plane[p]);
    }
    joined[c] = static_cast<float>(sum / pixels);
    joined[32 + c] = max;
  }
  std::vector<float> vec = features.vector();
  for (size_t n = 0; n < vec.size(); ++n)
    vec[n] = std::clamp((vec[n] - vecMean[n]) / vecStd[n], -10.0f, 10.0f);
  std::vector<float> h(64), v(64);
  v1.apply(vec.data(), h.data());
  relu(h);
  v2.apply(h.data(), v.data());
  relu(v);
  std::copy(v.begin(), v.end(), joined.begin() + 64);
  std::vector<float> m(fuse.out);
  fuse.apply(joined.data(), m.data());
  relu(m);
  return std::move(m);
}

llvm::Expected<std::vector<double>>
PlainModel::score(const MatrixFeatures &features,
                  const std::vector<Schedule> &candidates, int64_t free) const {
  if (candidates.empty())
    return std::vector<double>();
  llvm::Expected<std::vector<float>> embedded = matrixEmbedding(features);
  if (!embedded)
    return embedded.takeError();
  const std::vector<float> &m = *embedded;
  const ModelConfig &c = info_.config;
  const FeatureLayout &layout = *layout_;
  int common = layout.commonSize();
  int e = c.embedding;
  std::vector<float> input(common + c.latent), knobs, code(c.latent);
  std::vector<float> hidden(c.hidden), auto1(c.autoencoderHidden), schedule(e),
      joined(3 * e), h1(c.hidden), h2(c.hidden / 2);
  std::vector<double> scores;
  scores.reserve(candidates.size());
  for (const Schedule &candidate : candidates) {
    Schedule canon = canonicalize(candidate);
    std::optional<size_t> slot = layout.slotOf(canon.target);
    if (!slot)
      return makeError(std::string("the model has no knob coding for target "
                                   "'") +
                       toString(canon.target) + "' (built for " + layout.str() +
                       ")");
    if (!layout.hasKernel(canon.kernel))
      return makeError(std::string("the model has no feature for kernel '") +
                       toString(canon.kernel) + "' (built for " +
                       layout.kernelsStr() + ")");
    knobs.assign(layout.knobSize(*slot), 0.0f);
    layout.mapCanonical(canon, free, input.data(), knobs.data());
    if (c.noConfigMapper)
      std::fill(input.begin(), input.begin() + common, 0.0f);
    // The target's latent code: zero for a target without knobs.
    std::fill(code.begin(), code.end(), 0.0f);
    if (!knobs.empty()) {
      if (c.noAutoencoder) {
        direct[*slot].apply(knobs.data(), code.data());
      } else {
        e1[*slot].apply(knobs.data(), auto1.data());
        relu(auto1);
        e2[*slot].apply(auto1.data(), code.data());
        for (float &z : code)
          z = std::tanh(z);
      }
    }
    std::copy(code.begin(), code.end(), input.begin() + common);
    s1.apply(input.data(), hidden.data());
    relu(hidden);
    s2.apply(hidden.data(), schedule.data());
    relu(schedule);
    for (int n = 0; n < e; ++n) {
      joined[n] = m[n];
      joined[e + n] = schedule[n];
      joined[2 * e + n] = m[n] * schedule[n];
    }
    p1.apply(joined.data(), h1.data());
    relu(h1);
    p2.apply(h1.data(), h2.data());
    relu(h2);
    float out = 0;
    p3.apply(h2.data(), &out);
    scores.push_back(out);
  }
  return std::move(scores);
}
