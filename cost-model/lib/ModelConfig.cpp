//===- ModelConfig.cpp - A model file's "config" section ------------------===//

#include "sptune/CostModel/ModelConfig.h"

#include "sptune/CostModel/FeatureSpec.h"

#include "sptune/Support/Error.h"
#include "sptune/Support/Json.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace sptune;

std::string sptune::ablationList(const ModelConfig &c) {
  std::string out;
  const bool on[] = {c.noConfigMapper, c.noAutoencoder, c.singleScale};
  for (size_t n = 0; n < std::size(kAblationNames); ++n)
    if (on[n])
      out += (out.empty() ? "" : ",") + std::string(kAblationNames[n]);
  return out;
}

llvm::Error sptune::parseAblationList(const std::string &list, ModelConfig &c) {
  ModelConfig parsed = c;
  parsed.noConfigMapper = parsed.noAutoencoder = parsed.singleScale = false;
  bool *flags[] = {&parsed.noConfigMapper, &parsed.noAutoencoder,
                   &parsed.singleScale};
  for (llvm::StringRef rest = list; !rest.empty();) {
    auto [item, tail] = rest.split(',');
    rest = tail;
    item = item.trim();
    if (item.empty())
      continue;
    bool found = false;
    for (size_t n = 0; n < std::size(kAblationNames); ++n)
      if (item == kAblationNames[n]) {
        *flags[n] = true;
        found = true;
      }
    if (!found)
      return makeError("unknown ablation '" + item +
                       "' (valid: no-config-mapper, no-autoencoder, "
                       "single-scale)");
  }
  c = parsed;
  return llvm::Error::success();
}

/// The targets of a model file without a "targets" key: every model of the
/// format's first version was built for these three, in this order.
static const std::vector<std::string> &targetsOfUnlistedModels() {
  static const std::vector<std::string> names = {"cpu", "nvvm", "spade"};
  return names;
}

std::string sptune::modelConfigJson(const ModelInfo &info,
                                    const FeatureLayout &layout) {
  llvm::json::Array targets;
  for (TargetKind t : info.trainedTargets)
    targets.push_back(toString(t));
  llvm::json::Object o{{"embedding", info.config.embedding},
                       {"latent", info.config.latent},
                       {"hidden", info.config.hidden},
                       {"autoencoder_hidden", info.config.autoencoderHidden},
                       {"trained_targets", std::move(targets)},
                       {"calibrated", info.calibrated},
                       {"provenance", info.provenance},
                       {"feature_spec", featureSpecString(layout)}};
  // Only models of other targets carry the key: other files stay
  // byte-identical.
  if (layout.targetNames() != targetsOfUnlistedModels()) {
    llvm::json::Array names;
    for (const std::string &name : layout.targetNames())
      names.push_back(name);
    o["targets"] = std::move(names);
  }
  // Only models of other kernels carry the key: other files stay
  // byte-identical.
  if (layout.kernelNames() != defaultModelKernels()) {
    llvm::json::Array names;
    for (const std::string &name : layout.kernelNames())
      names.push_back(name);
    o["kernels"] = std::move(names);
  }
  // Only models with shared knobs carry the key: other files stay
  // byte-identical.
  if (!layout.sharedKnobs().empty()) {
    llvm::json::Array names;
    for (const std::string &name : layout.sharedKnobs())
      names.push_back(name);
    o["shared_knobs"] = std::move(names);
  }
  // Only ablated models carry the key: other files stay byte-identical.
  if (info.config.hasAblations()) {
    llvm::json::Array ablations;
    std::string list = ablationList(info.config);
    for (llvm::StringRef rest = list; !rest.empty();) {
      auto [item, tail] = rest.split(',');
      ablations.push_back(item.str());
      rest = tail;
    }
    o["ablations"] = std::move(ablations);
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(std::move(o));
  return out;
}

/// The list of names under `key` of a configuration object (`absent` when
/// it has none): a non-empty list of strings.
static llvm::Expected<std::vector<std::string>>
configNames(const llvm::json::Object &o, llvm::StringRef key,
            const std::vector<std::string> &absent) {
  const llvm::json::Value *v = o.get(key);
  if (!v)
    return absent;
  const llvm::json::Array *list = v->getAsArray();
  if (!list || list->empty())
    return makeError("bad configuration: '" + key.str() +
                     "' is not a non-empty list");
  std::vector<std::string> names;
  for (const llvm::json::Value &item : *list) {
    auto name = item.getAsString();
    if (!name)
      return makeError("bad configuration: '" + key.str() +
                       "' holds a non-string");
    names.push_back(name->str());
  }
  return std::move(names);
}

/// The "targets" of a configuration object (the first version's three when
/// it has none).
static llvm::Expected<std::vector<std::string>>
configTargets(const llvm::json::Object &o) {
  return configNames(o, "targets", targetsOfUnlistedModels());
}

/// The "kernels" of a configuration object (spmm, sddmm and spmv when it
/// has none).
static llvm::Expected<std::vector<std::string>>
configKernels(const llvm::json::Object &o) {
  return configNames(o, "kernels", defaultModelKernels());
}

/// The "shared_knobs" of a configuration object (none when it has none).
static llvm::Expected<std::vector<std::string>>
configSharedKnobs(const llvm::json::Object &o) {
  return configNames(o, "shared_knobs", {});
}

static bool parseConfig(const std::string &text, ModelInfo &info,
                        std::string &error) {
  llvm::Expected<llvm::json::Value> v = parseJson(text);
  if (!v) {
    error = "bad configuration: " + llvm::toString(v.takeError());
    return false;
  }
  const llvm::json::Object *o = v->getAsObject();
  if (!o) {
    error = "bad configuration: not a JSON object";
    return false;
  }
  if (takeErrorMessage(configTargets(*o).moveInto(info.config.targets), error))
    return false;
  if (takeErrorMessage(configKernels(*o).moveInto(info.config.kernels), error))
    return false;
  if (takeErrorMessage(configSharedKnobs(*o).moveInto(info.config.sharedKnobs),
                       error))
    return false;
  auto size = [&](const char *key, int &out) {
    auto x = o->getInteger(key);
    if (!x || *x < 1 || *x > 4096) {
      error = std::string("bad configuration: '") + key +
              "' missing or out of range";
      return false;
    }
    out = static_cast<int>(*x);
    return true;
  };
  if (!size("embedding", info.config.embedding) ||
      !size("latent", info.config.latent) ||
      !size("hidden", info.config.hidden) ||
      !size("autoencoder_hidden", info.config.autoencoderHidden))
    return false;
  if (info.config.hidden < 2) {
    error = "bad configuration: 'hidden' must be at least 2";
    return false;
  }
  info.trainedTargets.clear();
  if (const llvm::json::Array *targets = o->getArray("trained_targets"))
    for (const llvm::json::Value &t : *targets) {
      auto name = t.getAsString();
      auto kind =
          name ? parseTargetKind(std::string_view(name->data(), name->size()))
               : std::nullopt;
      if (!kind) {
        error = "bad configuration: unknown target in 'trained_targets'";
        return false;
      }
      info.trainedTargets.push_back(*kind);
    }
  if (const llvm::json::Value *a = o->get("ablations")) {
    const llvm::json::Array *list = a->getAsArray();
    if (!list) {
      error = "bad configuration: 'ablations' is not a list";
      return false;
    }
    std::string names;
    for (const llvm::json::Value &item : *list) {
      auto name = item.getAsString();
      if (!name) {
        error = "bad configuration: 'ablations' holds a non-string";
        return false;
      }
      names += (names.empty() ? "" : ",") + name->str();
    }
    if (llvm::Error e = parseAblationList(names, info.config)) {
      error = "bad configuration: " + llvm::toString(std::move(e));
      return false;
    }
  }
  info.calibrated = o->getBoolean("calibrated").value_or(false);
  if (auto p = o->getString("provenance"))
    info.provenance = p->str();
  return true;
}

llvm::Expected<FeatureLayout> sptune::modelLayout(const ModelConfig &config,
                                                  const std::string &what) {
  const std::vector<std::string> &kernels =
      config.kernels.empty() ? defaultModelKernels() : config.kernels;
  llvm::Expected<FeatureLayout> layout =
      FeatureLayout::of(config.targets, kernels, config.sharedKnobs);
  if (!layout) {
    auto join = [](const std::vector<std::string> &names) {
      std::string list;
      for (const std::string &n : names)
        list += (list.empty() ? "" : ", ") + n;
      return list;
    };
    std::string kernelList = kernels == defaultModelKernels()
                                 ? std::string()
                                 : " and kernels " + join(kernels);
    return makeError("'" + what + "' was built for targets " +
                     join(config.targets) + kernelList + ": " +
                     llvm::toString(layout.takeError()));
  }
  return layout;
}

llvm::Error sptune::parseModelConfig(const std::string &text, ModelInfo &info) {
  std::string error;
  if (!parseConfig(text, info, error))
    return makeError(error);
  return llvm::Error::success();
}

llvm::Error sptune::checkModelFeatureSpec(const ModelFileContents &file,
                                          const std::string &what) {
  // The feature specification depends on the model's targets and kernels:
  // read them first and check the specification before the rest is
  // decoded. A configuration that is not a JSON object is for the full
  // parse to report.
  auto config = file.sections.find("config");
  if (config == file.sections.end())
    return llvm::Error::success();
  llvm::Expected<llvm::json::Value> v = parseJson(config->second);
  if (!v) {
    llvm::consumeError(v.takeError());
    return llvm::Error::success();
  }
  const llvm::json::Object *o = v->getAsObject();
  if (!o)
    return llvm::Error::success();
  ModelConfig built;
  if (llvm::Error e = configTargets(*o).moveInto(built.targets))
    return makeError("'" + what + "': " + llvm::toString(std::move(e)));
  if (llvm::Error e = configKernels(*o).moveInto(built.kernels))
    return makeError("'" + what + "': " + llvm::toString(std::move(e)));
  if (llvm::Error e = configSharedKnobs(*o).moveInto(built.sharedKnobs))
    return makeError("'" + what + "': " + llvm::toString(std::move(e)));
  llvm::Expected<FeatureLayout> layout = modelLayout(built, what);
  if (!layout)
    return layout.takeError();
  return checkFeatureSpec(file.featureSpecHash, featureSpecHash(*layout), what);
}
