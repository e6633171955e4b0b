//===- TargetRegistry.cpp - Name -> target, kind -> measurer --------------===//

#include "sptune/Target/Target.h"

#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Schedule/TargetKnobs.h"

#include <map>
#include <mutex>

using namespace sptune;

Target::~Target() = default;

std::string Target::whyIllegal(const Schedule &s) const {
  return sptune::whyIllegal(s);
}

KnobEncoding::~KnobEncoding() = default;

namespace {
/// A target without knobs of its own.
class NoKnobs : public KnobEncoding {
public:
  const std::vector<std::string> &featureNames() const override {
    static const std::vector<std::string> none;
    return none;
  }
  void encode(const Schedule &, float *) const override {}
  ParallelismFeatures parallelism(const Schedule &) const override {
    return {};
  }
  std::vector<Schedule> sampleKnobs(KernelType, size_t,
                                    uint64_t) const override {
    return {};
  }
};
} // namespace

const KnobEncoding &Target::knobEncoding() const {
  static const NoKnobs none;
  return none;
}

namespace {
/// The knobs of a target without knobs of its own.
class NoTargetKnobs : public TargetKnobs {
public:
  struct Values : KnobValuesOf<Values> {
    static char ID;
    bool operator==(const Values &) const { return true; }
  };
  explicit NoTargetKnobs(TargetKind kind) : kind(kind) {}
  TargetKind target() const override { return kind; }
  std::shared_ptr<KnobValues> defaults() const override {
    return std::make_shared<Values>();
  }
  const void *valuesTypeId() const override { return &Values::ID; }
  void print(const Schedule &, std::string &) const override {}
  KnobParseResult parseKnob(std::string_view, ScheduleTokenSource &,
                            Schedule &) const override {
    return KnobParseResult::NotAKnob;
  }

private:
  TargetKind kind;
};
char NoTargetKnobs::Values::ID = 0;
} // namespace

const TargetKnobs &Target::knobs() const {
  static std::mutex mutex;
  static std::map<TargetKind, std::unique_ptr<NoTargetKnobs>> none;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<NoTargetKnobs> &k = none[kind()];
  if (!k)
    k = std::make_unique<NoTargetKnobs>(kind());
  return *k;
}

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Target>> targets;
  std::map<TargetKind, MeasurerFactory> measurers;
  std::map<TargetKind, LoweringPipelineBuilder> lowerings;

  /// Sets the entry of `kind` in one of the maps above, under the lock.
  template <typename T>
  void set(std::map<TargetKind, T> Registry::*map, TargetKind kind, T value) {
    std::lock_guard<std::mutex> lock(mutex);
    (this->*map)[kind] = std::move(value);
  }
  /// A copy of the entry of `kind` (empty when none), taken under the lock.
  template <typename T>
  T find(std::map<TargetKind, T> Registry::*map, TargetKind kind) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = (this->*map).find(kind);
    return it == (this->*map).end() ? T() : it->second;
  }

  static Registry &get() {
    static Registry r;
    return r;
  }
};
} // namespace

const Target &TargetRegistry::add(std::unique_ptr<Target> target) {
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::unique_ptr<Target> &t : r.targets)
    if (t->name() == target->name())
      return *t;
  registerTargetKnobs(target->knobs());
  r.targets.push_back(std::move(target));
  return *r.targets.back();
}

const Target *TargetRegistry::lookup(std::string_view name) {
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::unique_ptr<Target> &t : r.targets)
    if (t->name() == name)
      return t.get();
  return nullptr;
}

const Target *TargetRegistry::lookup(TargetKind kind) {
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::unique_ptr<Target> &t : r.targets)
    if (t->kind() == kind)
      return t.get();
  return nullptr;
}

std::vector<const Target *> TargetRegistry::all() {
  Registry &r = Registry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const Target *> out;
  for (const std::unique_ptr<Target> &t : r.targets)
    out.push_back(t.get());
  return out;
}

std::string TargetRegistry::names() {
  std::string out;
  for (const Target *t : all())
    out += (out.empty() ? "" : ", ") + std::string(t->name());
  return out.empty() ? "none" : out;
}

llvm::Expected<const Target &> TargetRegistry::get(std::string_view name) {
  if (const Target *t = lookup(name))
    return *t;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown target '%s' (registered: %s)", std::string(name).c_str(),
      names().c_str());
}

llvm::Expected<const Target &> TargetRegistry::get(TargetKind kind) {
  if (const Target *t = lookup(kind))
    return *t;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "target '%s' is not registered (registered: "
                                 "%s)",
                                 toString(kind), names().c_str());
}

void TargetRegistry::addMeasurer(TargetKind kind, MeasurerFactory factory) {
  Registry::get().set(&Registry::measurers, kind, std::move(factory));
}

llvm::Expected<std::unique_ptr<Measurer>>
TargetRegistry::createMeasurer(TargetKind kind) {
  MeasurerFactory factory = Registry::get().find(&Registry::measurers, kind);
  if (!factory)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no measurer for target '%s' in this program (measuring tools "
        "call registerAllMeasurers(); NVVM needs a build with CUDA)",
        toString(kind));
  std::unique_ptr<Measurer> m = factory();
  if (!m)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the measurer of target '%s' could not be "
                                   "created",
                                   toString(kind));
  return std::move(m);
}

void TargetRegistry::addLowering(TargetKind kind,
                                 LoweringPipelineBuilder builder) {
  Registry::get().set(&Registry::lowerings, kind, std::move(builder));
}

llvm::Error TargetRegistry::buildLowering(TargetKind kind,
                                          mlir::OpPassManager &pm) {
  LoweringPipelineBuilder builder =
      Registry::get().find(&Registry::lowerings, kind);
  if (!builder)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no lowering for target '%s' in this program (its passes are "
        "registered by registerAllTargetPasses())",
        toString(kind));
  builder(pm);
  return llvm::Error::success();
}
