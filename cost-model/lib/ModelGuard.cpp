//===- ModelGuard.cpp - When to trust the model over the heuristic --------===//

#include "sptune/CostModel/ModelGuard.h"

#include "sptune/CostModel/ModelConfig.h"
#include "sptune/CostModel/ModelFile.h"
#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/HostCpu.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace sptune;

std::string sptune::guardMemberSection(size_t n) {
  return "guard.member." + std::to_string(n);
}

std::string sptune::thresholdText(double z) {
  if (z == kNeverTrust)
    return "never";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.2f", z);
  return text;
}

std::optional<double> sptune::thresholdFromText(llvm::StringRef text) {
  if (text == "never")
    return kNeverTrust;
  double z;
  if (text.getAsDouble(z) || !std::isfinite(z) || z < 0)
    return std::nullopt;
  return z;
}

/// A threshold of a guard section or calibration: a finite number >= 0, or
/// the string "never" (kNeverTrust); nullopt for anything else.
static std::optional<double> thresholdOf(const llvm::json::Value &v) {
  if (std::optional<llvm::StringRef> text = v.getAsString())
    return *text == "never" ? std::optional<double>(kNeverTrust) : std::nullopt;
  std::optional<double> z = v.getAsNumber();
  if (!z || !std::isfinite(*z) || *z < 0)
    return std::nullopt;
  return z;
}

/// A threshold as a guard section writes it.
static llvm::json::Value thresholdJson(double z) {
  return z == kNeverTrust ? llvm::json::Value("never") : llvm::json::Value(z);
}

/// Whether `z` is a threshold: a number >= 0 or kNeverTrust (not NaN).
static bool isThreshold(double z) { return z >= 0; }

std::string GuardVerdict::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the model's pick is predicted " << llvm::format("%.2f", std::exp(gain))
     << "x the heuristic's speed by " << members << " ensemble members (spread "
     << llvm::format("%.2f", std::exp(spread)) << "x), "
     << (trusted() ? "trusted" : "not trusted");
  if (z == kNeverTrust)
    os << ": the guard never trusts the model's picks for this kernel";
  else
    os << ": the gain must exceed " << thresholdText(z) << " spreads";
  os << (otherMachine ? " on a machine the model was not trained on" : "");
  return text;
}

bool GuardSettings::isOtherMachine(const std::string &cpu) const {
  return machines.empty() ||
         std::find(machines.begin(), machines.end(), cpu) == machines.end();
}

/// "a", "a and b", "a, b and c".
static std::string listText(const std::vector<std::string> &items) {
  std::string text;
  for (size_t n = 0; n < items.size(); ++n)
    text += (n == 0 ? "" : n + 1 == items.size() ? " and " : ", ") + items[n];
  return text;
}

std::string GuardSettings::otherMachineThresholdsText() const {
  if (!zOtherMachine)
    return "";
  // Each threshold with the kernels it governs ("" for every kernel);
  // numbers first, then those that are "never".
  std::vector<std::pair<double, std::string>> entries;
  for (const auto &[kernel, zKernel] : zOtherMachineByKernel)
    entries.push_back({zKernel, kernel});
  entries.push_back({*zOtherMachine, zOtherMachineByKernel.empty()
                                         ? ""
                                         : "other kernel types"});
  std::vector<std::string> numbers, never;
  for (const auto &[zEntry, kernels] : entries) {
    if (zEntry == kNeverTrust) {
      if (!kernels.empty())
        never.push_back(kernels);
      continue;
    }
    numbers.push_back(thresholdText(zEntry) +
                      (numbers.empty() ? " spreads" : "") +
                      (kernels.empty() ? "" : " for " + kernels));
  }
  std::string text = listText(numbers);
  if (!never.empty())
    text += (text.empty() ? "never for " : ", never for ") + listText(never);
  else if (text.empty())
    text = "never"; // the other machines' threshold alone
  return text;
}

double GuardSettings::zFor(const std::string &cpu,
                           const std::string &kernel) const {
  if (!zOtherMachine || !isOtherMachine(cpu))
    return z;
  auto own = zOtherMachineByKernel.find(kernel);
  return own != zOtherMachineByKernel.end() ? own->second : *zOtherMachine;
}

bool GuardSettings::anyNever() const {
  if (z == kNeverTrust || (zOtherMachine && *zOtherMachine == kNeverTrust))
    return true;
  for (const auto &entry : zOtherMachineByKernel)
    if (entry.second == kNeverTrust)
      return true;
  return false;
}

std::string sptune::otherMachineNote(const ModelGuard &guard) {
  const GuardSettings &s = guard.settings();
  if (!s.zOtherMachine || !s.isOtherMachine(guard.hostCpu()))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the cost model was trained on measurements from ";
  for (size_t n = 0; n < s.machines.size(); ++n)
    os << (n ? ", '" : "'") << s.machines[n] << "'";
  if (s.machines.empty())
    os << "unknown machines";
  std::string thresholds = s.otherMachineThresholdsText();
  os << " and this machine's CPU is '" << guard.hostCpu() << "': ";
  if (llvm::StringRef(thresholds).starts_with("never")) // no number left
    os << "its picks never replace the heuristic";
  else
    os << "its picks replace the heuristic only where its ensemble is sure "
          "by "
       << thresholds;
  os << " (on its own " << (s.machines.size() == 1 ? "machine " : "machines ")
     << thresholdText(s.z) << ")";
  return text;
}

GuardVerdict sptune::guardVerdict(const std::vector<double> &gains, double z,
                                  bool otherMachine) {
  GuardVerdict v;
  v.z = z;
  v.otherMachine = otherMachine;
  v.members = gains.size();
  if (gains.empty())
    return v;
  double sum = 0;
  for (double g : gains)
    sum += g;
  v.gain = sum / gains.size();
  if (gains.size() > 1) {
    double squares = 0;
    for (double g : gains)
      squares += (g - v.gain) * (g - v.gain);
    v.spread = std::sqrt(squares / (gains.size() - 1));
  }
  return v;
}

/// Parses a "guard" section; the error names `what`.
static llvm::Expected<GuardSettings>
parseGuardSettings(const std::string &text, const std::string &what) {
  auto bad = [&](const std::string &why) {
    return makeError("'" + what + "': malformed guard section: " + why);
  };
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return bad(llvm::toString(value.takeError()));
  const llvm::json::Object *o = value->getAsObject();
  if (!o)
    return bad("not a JSON object");
  std::optional<int64_t> version = o->getInteger("version");
  if (!version)
    return bad("no version");
  if (*version < 1 || *version > kGuardVersion)
    return makeError(
        "'" + what + "' has a guard of version " + std::to_string(*version) +
        "; this build reads versions 1 to " + std::to_string(kGuardVersion));
  GuardSettings s;
  const llvm::json::Value *zValue = o->get("z");
  std::optional<double> z = zValue ? thresholdOf(*zValue) : std::nullopt;
  std::optional<int64_t> members = o->getInteger("members");
  if (!z)
    return bad("z must be " + std::string(kThresholdRule));
  if (!members || *members < 2 || *members > 64)
    return bad("members must be 2 to 64");
  s.z = *z;
  s.members = static_cast<size_t>(*members);
  if (const llvm::json::Value *other = o->get("z_other_machine")) {
    std::optional<double> zOther = thresholdOf(*other);
    if (!zOther)
      return bad("z_other_machine must be " + std::string(kThresholdRule));
    s.zOtherMachine = *zOther;
  }
  if (const llvm::json::Value *byKernel = o->get("z_other_machine_by_kernel")) {
    const llvm::json::Object *kernels = byKernel->getAsObject();
    if (*version < 2)
      return bad("z_other_machine_by_kernel needs guard version 2");
    if (!kernels || !s.zOtherMachine)
      return bad("z_other_machine_by_kernel must be an object of kernel "
                 "names and thresholds, next to z_other_machine");
    for (const auto &[kernel, value] : *kernels) {
      std::optional<double> zKernel = thresholdOf(value);
      if (!isKernelTypeName(llvm::StringRef(kernel)) || !zKernel)
        return bad("z_other_machine_by_kernel must map kernel names to "
                   "thresholds (" +
                   std::string(kThresholdRule) + ")");
      s.zOtherMachineByKernel[kernel.str()] = *zKernel;
    }
  }
  if (*version < 3 && s.anyNever())
    return bad("the threshold \"never\" needs guard version 3");
  if (const llvm::json::Value *list = o->get("machines")) {
    const llvm::json::Array *machines = list->getAsArray();
    if (!machines)
      return bad("machines must be a list of CPU names");
    for (const llvm::json::Value &m : *machines) {
      std::optional<llvm::StringRef> name = m.getAsString();
      if (!name || name->empty())
        return bad("machines must be a list of CPU names");
      s.machines.push_back(name->str());
    }
  }
  auto keep = [&](const char *key, std::string &out) {
    if (const llvm::json::Value *c = o->get(key)) {
      out.clear();
      llvm::raw_string_ostream os(out);
      os << *c;
    }
  };
  keep("calibration", s.calibration);
  keep("calibration_other_machine", s.otherMachineCalibration);
  return s;
}

/// `text` as JSON (an empty object when it does not parse).
static llvm::json::Value jsonOf(const std::string &text) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    return std::move(*parsed);
  llvm::consumeError(parsed.takeError());
  return llvm::json::Object{};
}

static std::string guardSettingsJson(const GuardSettings &s) {
  llvm::json::Array machines;
  for (const std::string &m : s.machines)
    machines.push_back(m);
  // The oldest version that holds these settings.
  static_assert(kGuardVersion == 3, "which version needs what, below");
  int version = s.anyNever() ? 3 : !s.zOtherMachineByKernel.empty() ? 2 : 1;
  llvm::json::Object o{{"version", version},
                       {"z", thresholdJson(s.z)},
                       {"members", static_cast<int64_t>(s.members)},
                       {"machines", std::move(machines)},
                       {"calibration", jsonOf(s.calibration)}};
  if (s.zOtherMachine) {
    o["z_other_machine"] = thresholdJson(*s.zOtherMachine);
    o["calibration_other_machine"] = jsonOf(s.otherMachineCalibration);
    if (!s.zOtherMachineByKernel.empty()) {
      llvm::json::Object byKernel;
      for (const auto &[kernel, z] : s.zOtherMachineByKernel)
        byKernel[kernel] = thresholdJson(z);
      o["z_other_machine_by_kernel"] = std::move(byKernel);
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(o));
  return text;
}

/// The guard settings of a decoded model file, or nullopt without a guard.
static llvm::Expected<std::optional<GuardSettings>>
guardSettingsOf(const ModelFileContents &file, const std::string &what) {
  auto it = file.sections.find(kGuardSection);
  if (it == file.sections.end())
    return std::nullopt;
  llvm::Expected<GuardSettings> s = parseGuardSettings(it->second, what);
  if (!s)
    return s.takeError();
  for (size_t n = 1; n <= s->members; ++n)
    if (!file.sections.count(guardMemberSection(n)))
      return makeError(
          "'" + what + "': the guard has " + std::to_string(s->members) +
          " members but no section '" + guardMemberSection(n) + "'");
  return std::optional<GuardSettings>(std::move(*s));
}

llvm::Expected<std::optional<GuardSettings>>
sptune::readGuardSettings(const std::string &bytes, const std::string &what) {
  ModelFileContents file;
  if (llvm::Error e = decodeModelFile(bytes, "model", what).moveInto(file))
    return std::move(e);
  return guardSettingsOf(file, what);
}

llvm::Expected<std::unique_ptr<ModelGuard>>
ModelGuard::fromBytes(const std::string &bytes, const std::string &what) {
  ModelFileContents file;
  if (llvm::Error e = decodeModelFile(bytes, "model", what).moveInto(file))
    return std::move(e);
  return fromContents(file, what);
}

llvm::Expected<std::unique_ptr<ModelGuard>>
ModelGuard::fromContents(const ModelFileContents &file,
                         const std::string &what) {
  std::optional<GuardSettings> settings;
  if (llvm::Error e = guardSettingsOf(file, what).moveInto(settings))
    return std::move(e);
  if (!settings)
    return nullptr;
  std::unique_ptr<ModelGuard> guard(new ModelGuard());
  guard->settings_ = std::move(*settings);
  const char *forced = std::getenv("SPTUNE_GUARD_MACHINE");
  guard->hostCpu_ = forced && *forced ? std::string(forced) : hostCpuName();
  for (size_t n = 1; n <= guard->settings_.members; ++n) {
    std::unique_ptr<PlainModel> member;
    if (llvm::Error e =
            PlainModel::fromContents(file, what, guardMemberSection(n))
                .moveInto(member))
      return std::move(e);
    guard->members_.push_back(std::move(member));
  }
  return std::move(guard);
}

llvm::Expected<std::vector<double>>
ModelGuard::gains(const MatrixFeatures &features, const Schedule &pick,
                  const Schedule &heuristic, int64_t free) const {
  std::vector<Schedule> pair = {pick, heuristic};
  std::vector<double> gains;
  for (const std::unique_ptr<PlainModel> &member : members_) {
    llvm::Expected<std::vector<double>> scores =
        member->score(features, pair, free);
    if (!scores)
      return scores.takeError();
    if (scores->size() != 2 || !std::isfinite((*scores)[0]) ||
        !std::isfinite((*scores)[1]))
      return makeError("a guard member gave no finite scores");
    gains.push_back((*scores)[0] - (*scores)[1]);
  }
  return gains;
}

llvm::Expected<GuardVerdict> ModelGuard::judge(const MatrixFeatures &features,
                                               const Schedule &pick,
                                               const Schedule &heuristic,
                                               int64_t free) const {
  llvm::Expected<std::vector<double>> g =
      gains(features, pick, heuristic, free);
  if (!g)
    return g.takeError();
  return guardVerdict(
      *g, settings_.zFor(hostCpu_, kernelTypeInfo(pick.kernel).name),
      settings_.zOtherMachine && settings_.isOtherMachine(hostCpu_));
}

/// Removes the guard's sections from `sections`.
static void dropGuard(ModelFileSections &sections) {
  for (auto it = sections.begin(); it != sections.end();)
    it = it->first == kGuardSection || it->first.rfind("guard.member.", 0) == 0
             ? sections.erase(it)
             : std::next(it);
}

llvm::Expected<std::string> sptune::removeGuard(const std::string &modelBytes) {
  ModelFileContents file;
  if (llvm::Error e =
          decodeModelFile(modelBytes, "model", "the model").moveInto(file))
    return std::move(e);
  dropGuard(file.sections);
  return encodeModelFile("model", file.featureSpecHash, file.sections);
}

llvm::Expected<std::string> sptune::attachGuard(
    const std::string &modelBytes,
    const std::vector<std::pair<std::string, std::string>> &members,
    GuardSettings settings) {
  if (members.size() < 2)
    return makeError("a guard needs at least 2 members (got " +
                     std::to_string(members.size()) + ")");
  if (members.size() > 64)
    return makeError("a guard takes at most 64 members");
  if (!isThreshold(settings.z) ||
      (settings.zOtherMachine && !isThreshold(*settings.zOtherMachine)))
    return makeError("the guard's z must be " + std::string(kThresholdRule));
  if (!settings.zOtherMachineByKernel.empty() && !settings.zOtherMachine)
    return makeError("thresholds per kernel on other machines need the other "
                     "machines' threshold");
  for (const auto &[kernel, z] : settings.zOtherMachineByKernel) {
    if (!isKernelTypeName(kernel))
      return makeError("the guard names a kernel type '" + kernel +
                       "': kernel types are lower-case identifiers");
    if (!isThreshold(z))
      return makeError("the guard's threshold for kernel '" + kernel +
                       "' must be " + kThresholdRule);
  }
  for (const std::string &m : settings.machines)
    if (m.empty())
      return makeError("a guard's machine name is empty");
  ModelFileContents main;
  if (llvm::Error e =
          decodeModelFile(modelBytes, "model", "the model").moveInto(main))
    return std::move(e);
  auto mainConfig = main.sections.find("config");
  if (mainConfig == main.sections.end())
    return makeError("the model lacks its configuration");
  ModelInfo mainInfo;
  if (llvm::Error e = parseModelConfig(mainConfig->second, mainInfo))
    return std::move(e);
  dropGuard(main.sections);
  for (size_t n = 0; n < members.size(); ++n) {
    const std::string &what = members[n].first;
    ModelFileContents member;
    if (llvm::Error e =
            decodeModelFile(members[n].second, "model", what).moveInto(member))
      return std::move(e);
    if (member.featureSpecHash != main.featureSpecHash)
      return makeError("the member '" + what +
                       "' was built for other features than the model");
    auto config = member.sections.find("config");
    auto weights = member.sections.find(kPlainWeightsSection);
    if (config == member.sections.end() || weights == member.sections.end())
      return makeError("the member '" + what +
                       "' lacks its configuration or plain weights");
    ModelInfo info;
    if (llvm::Error e = parseModelConfig(config->second, info))
      return makeError("the member '" + what +
                       "': " + llvm::toString(std::move(e)));
    if (info.config.targets != mainInfo.config.targets ||
        info.config.kernels != mainInfo.config.kernels ||
        info.config.sharedKnobs != mainInfo.config.sharedKnobs ||
        info.trainedTargets != mainInfo.trainedTargets ||
        ablationList(info.config) != ablationList(mainInfo.config) ||
        info.calibrated != mainInfo.calibrated)
      return makeError("the member '" + what +
                       "' was trained for other targets, kernels, shared knobs, "
                       "ablations or losses than the model");
    main.sections[guardMemberSection(n + 1)] = weights->second;
  }
  settings.members = members.size();
  main.sections[kGuardSection] = guardSettingsJson(settings);
  std::string bytes =
      encodeModelFile("model", main.featureSpecHash, main.sections);
  // Every member must bind to the main model's shapes.
  for (size_t n = 0; n < members.size(); ++n)
    if (llvm::Error e = PlainModel::loadFromBytes(bytes, members[n].first,
                                                  guardMemberSection(n + 1))
                            .takeError())
      return std::move(e);
  return bytes;
}

llvm::Expected<GuardCalibration>
sptune::readGuardCalibration(const std::string &path) {
  GuardCalibration c;
  if (llvm::Error e = readFileBytes(path).moveInto(c.text))
    return std::move(e);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(c.text);
  if (!json)
    return makeError("'" + path +
                     "' is not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *o = json->getAsObject();
  const llvm::json::Value *zValue = o ? o->get("z") : nullptr;
  std::optional<double> z = zValue ? thresholdOf(*zValue) : std::nullopt;
  if (!z)
    return makeError("'" + path + "' has no valid \"z\" (" + kThresholdRule +
                     ")");
  c.z = *z;
  if (const llvm::json::Value *byKernelValue = o->get("z_by_kernel")) {
    const llvm::json::Object *byKernel = byKernelValue->getAsObject();
    if (!byKernel)
      return makeError("'" + path +
                       "': z_by_kernel is not an object of kernel names "
                       "and thresholds");
    for (const auto &[kernel, value] : *byKernel) {
      std::optional<double> zKernel = thresholdOf(value);
      if (!isKernelTypeName(llvm::StringRef(kernel)) || !zKernel)
        return makeError("'" + path + "': z_by_kernel's '" + kernel.str() +
                         "' is not a kernel name with a threshold (" +
                         kThresholdRule + ")");
      c.zByKernel[kernel.str()] = *zKernel;
    }
  }
  if (const llvm::json::Array *list = o->getArray("machines"))
    for (const llvm::json::Value &m : *list)
      if (std::optional<llvm::StringRef> name = m.getAsString())
        c.machines.push_back(name->str());
  return c;
}
