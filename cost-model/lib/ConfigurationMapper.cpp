//===- ConfigurationMapper.cpp - Schedules into model features ------------===//

#include "sptune/CostModel/ConfigurationMapper.h"

#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Target.h"

#include "sptune/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace sptune;

namespace {
/// Offsets of the common feature groups after the target and kernel
/// one-hots (one position per target, then per kernel, of the layout).
enum : int {
  kFreeOff = 0,              // log2 free, free unknown
  kSplitOff = kFreeOff + 2,  // log2 row, log2 col, row>1, col>1
  kOrderOff = kSplitOff + 4, // vocabulary x positions
  kFormatOff = kOrderOff + kLoopVocabulary * kMaxLoops, // vocabulary x 4
  kLevelsOff = kFormatOff + kLoopVocabulary * 4,        // number of levels
  kWidthOff = kLevelsOff + 1,                           // pos32, crd32
  kTileOff = kWidthOff + 2,      // log2 tile, tiled, tile >= free
  kParallelOff = kTileOff + 3,   // parallel, log2 workers, all
  kVectorOff = kParallelOff + 3, // log2 vl, vectorized
  kDerivedOff = kVectorOff + 2,  // free innermost, reduction outer
  kSharedSize = kDerivedOff + 2
};

const char *const kLoopNames[kLoopVocabulary] = {"i",  "i1", "i0", "j", "j1",
                                                 "j0", "k",  "k1", "k0"};
const char *const kFormatNames[4] = {"dense", "compressed", "compressed_nu",
                                     "singleton"};
} // namespace

static float log2p(int64_t x, float scaleBits) {
  return knobLog2(x, scaleBits);
}

/// The names of SpgemmFeatures, in order.
static const char *const kSpgemmFeatureNames[] = {
    "spgemm_hash_accumulator", "spgemm_accumulator_auto", "spgemm_two_passes",
    "spgemm_passes_auto"};

/// The names of MttkrpFeatures, in order.
static const char *const kMttkrpFeatureNames[] = {"mttkrp_factored",
                                                  "mttkrp_entry_wise"};

/// The common features' names after the target and kernel one-hots.
static const std::vector<std::string> &sharedFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"log2_free",      "free_unknown",
                                  "log2_split_row", "log2_split_col",
                                  "split_row",      "split_col"};
    for (const char *loop : kLoopNames)
      for (int p = 0; p < kMaxLoops; ++p)
        n.push_back(std::string("order_") + loop + "_" + std::to_string(p));
    for (const char *loop : kLoopNames)
      for (const char *fmt : kFormatNames)
        n.push_back(std::string("format_") + loop + "_" + fmt);
    for (const char *rest :
         {"num_levels", "pos32", "crd32", "log2_tile", "tiled",
          "tile_covers_free", "parallel", "log2_workers", "all_workers",
          "log2_vector_length", "vectorized", "free_innermost",
          "reduction_outermost"})
      n.push_back(rest);
    // The common vector is sized by these names and written at the offsets
    // above: they must agree, or mapCanonical writes past the vector.
    if (n.size() != kSharedSize)
      llvm::report_fatal_error("sptune cost model: the shared feature names "
                               "do not match their offsets");
    return n;
  }();
  return names;
}

/// The knob encoding of `target`, from the target registry. The cost model
/// cannot work without it: a program that uses the model registers its
/// targets first (sptune::registerAllTargets()).
static const KnobEncoding &encodingOf(TargetKind target) {
  const Target *t = TargetRegistry::lookup(target);
  if (!t)
    llvm::report_fatal_error(llvm::Twine("sptune cost model: target '") +
                             toString(target) +
                             "' is not registered (call "
                             "sptune::registerAllTargets() first)");
  return t->knobEncoding();
}

int sptune::knobFeatureSize(TargetKind target) {
  return static_cast<int>(encodingOf(target).featureNames().size());
}

const std::vector<std::string> &sptune::knobFeatureNames(TargetKind target) {
  return encodingOf(target).featureNames();
}

int sptune::loopVocabularyIndex(DimPart d) {
  int role = d.role == Role::I ? 0 : d.role == Role::J ? 1 : 2;
  int part = d.part == Part::Whole ? 0 : d.part == Part::Outer ? 1 : 2;
  return role * 3 + part;
}

void FeatureLayout::mapCanonical(const Schedule &s, int64_t free, float *common,
                                 float *knobs) const {
  std::fill(common, common + commonSize(), 0.0f);
  std::optional<size_t> slot = slotOf(s.target);
  if (!slot)
    llvm::report_fatal_error(
        llvm::Twine("sptune cost model: target '") + toString(s.target) +
        "' has no slot in the feature layout (" + str() + ")");
  common[*slot] = 1.0f;
  auto kernel = std::find(kernels.begin(), kernels.end(), s.kernel);
  if (kernel == kernels.end())
    llvm::report_fatal_error(
        llvm::Twine("sptune cost model: kernel '") + toString(s.kernel) +
        "' has no feature in the layout (it knows " + kernelsStr() + ")");
  common[numTargets() + (kernel - kernels.begin())] = 1.0f;
  float *out = common + numTargets() + kernels.size();
  bool hasFree = s.freeRole().has_value();
  if (hasFree && free > 0)
    out[kFreeOff] = log2p(free, 14);
  out[kFreeOff + 1] = hasFree && free <= 0 ? 1.0f : 0.0f;
  out[kSplitOff] = log2p(s.splitRow - 1, 12);
  out[kSplitOff + 1] = log2p(s.splitCol - 1, 12);
  out[kSplitOff + 2] = s.splitRow > 1 ? 1.0f : 0.0f;
  out[kSplitOff + 3] = s.splitCol > 1 ? 1.0f : 0.0f;

  // Loop order as a permutation matrix; a loop past kMaxLoops (illegal
  // schedules only) is dropped rather than written out of bounds.
  for (size_t p = 0; p < s.loopOrder.size() && p < kMaxLoops; ++p)
    out[kOrderOff + loopVocabularyIndex(s.loopOrder[p]) * kMaxLoops + p] = 1.0f;
  for (const StorageLevel &l : s.levels)
    out[kFormatOff + loopVocabularyIndex(l.dim) * 4 +
        static_cast<int>(l.format)] = 1.0f;
  out[kLevelsOff] = static_cast<float>(s.levels.size()) / 4.0f;
  out[kWidthOff] = s.posWidth == 32 ? 1.0f : 0.0f;
  out[kWidthOff + 1] = s.crdWidth == 32 ? 1.0f : 0.0f;
  out[kTileOff] = log2p(s.tile, 14);
  out[kTileOff + 1] = s.tile > 0 ? 1.0f : 0.0f;
  out[kTileOff + 2] = s.tile > 0 && free > 0 && s.tile >= free ? 1.0f : 0.0f;

  // Degree of parallelism and vector length, in target-neutral terms.
  const KnobEncoding &encoding = *encodings[*slot];
  ParallelismFeatures p = encoding.parallelism(s);
  out[kParallelOff] = p.parallel;
  out[kParallelOff + 1] = p.log2Workers;
  out[kParallelOff + 2] = p.allWorkers;
  out[kVectorOff] = p.log2Vector;
  out[kVectorOff + 1] = p.vectorized;
  if (!s.loopOrder.empty()) {
    auto freeRole = s.freeRole();
    out[kDerivedOff] =
        freeRole && s.loopOrder.back() == DimPart{*freeRole, Part::Whole};
    out[kDerivedOff + 1] =
        s.loopOrder.front().role == Schedule::reductionRole(s.kernel);
  }
  if (spgemmOffset > 0) {
    SpgemmFeatures g = encoding.spgemm(s);
    float *f = common + spgemmOffset;
    f[0] = g.hashAccumulator;
    f[1] = g.accumulatorAuto;
    f[2] = g.twoPasses;
    f[3] = g.passesAuto;
  }
  if (mttkrpOffset > 0) {
    MttkrpFeatures m = encoding.mttkrp(s);
    common[mttkrpOffset] = m.factored;
    common[mttkrpOffset + 1] = m.entryWise;
  }
  if (rowOrderOffset > 0)
    common[rowOrderOffset] = encoding.rowOrder(s);
  encoding.encode(s, knobs);
}

MappedSchedule FeatureLayout::map(const Schedule &schedule,
                                  int64_t free) const {
  Schedule s = canonicalize(schedule);
  MappedSchedule m;
  m.target = s.target;
  m.common.resize(static_cast<size_t>(commonSize()));
  m.knobs.resize(static_cast<size_t>(knobFeatureSize(s.target)));
  mapCanonical(s, free, m.common.data(), m.knobs.data());
  return m;
}

FeatureLayout FeatureLayout::ofRegisteredTargets() {
  std::vector<std::string> names;
  for (const Target *t : TargetRegistry::all())
    names.emplace_back(t->name());
  llvm::Expected<FeatureLayout> layout = of(names);
  if (!layout)
    llvm::report_fatal_error(llvm::Twine("sptune cost model: ") +
                             llvm::toString(layout.takeError()));
  return std::move(*layout);
}

const std::vector<std::string> &sptune::sharedKnobNames() {
  static const std::vector<std::string> names = {"row-order"};
  return names;
}

const std::vector<std::string> &sptune::defaultModelKernels() {
  static const std::vector<std::string> kernels = {"spmm", "sddmm", "spmv"};
  return kernels;
}

std::vector<std::string>
sptune::modelKernelsFor(const std::vector<KernelType> &kernels) {
  std::vector<std::string> names = defaultModelKernels();
  for (KernelType k : kernels) {
    std::string name = toString(k);
    if (hasKernelFeature(k) &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

llvm::Expected<FeatureLayout>
FeatureLayout::of(const std::vector<std::string> &names,
                  const std::vector<std::string> &kernelNames,
                  const std::vector<std::string> &sharedKnobs) {
  if (names.empty())
    return makeError("a model needs at least one target (none registered: "
                     "call sptune::registerAllTargets() first)");
  FeatureLayout layout;
  for (const std::string &name : names) {
    const Target *t = TargetRegistry::lookup(name);
    if (!t)
      return makeError("target '" + name +
                       "' is not registered in this build (registered: " +
                       TargetRegistry::names() + ")");
    if (layout.slotOf(t->kind()))
      return makeError("target '" + name + "' is listed twice");
    layout.names.push_back(name);
    layout.kinds.push_back(t->kind());
    layout.encodings.push_back(&t->knobEncoding());
    layout.knobSizes.push_back(
        static_cast<int>(t->knobEncoding().featureNames().size()));
    layout.common.push_back("target_" + name);
  }
  if (kernelNames.empty())
    return makeError("a model needs at least one kernel");
  for (const std::string &name : kernelNames) {
    std::optional<KernelType> kernel = parseKernelType(name);
    if (!kernel || !hasKernelFeature(*kernel))
      return makeError("kernel '" + name +
                       "' has no model features (a model can be built for "
                       "spmm, sddmm, spmv, spgemm, mttkrp and "
                       "batched_spmm)");
    if (layout.hasKernel(*kernel))
      return makeError("kernel '" + name + "' is listed twice");
    layout.kernelNames_.push_back(name);
    layout.kernels.push_back(*kernel);
    layout.common.push_back("kernel_" + name);
  }
  const std::vector<std::string> &shared = sharedFeatureNames();
  layout.common.insert(layout.common.end(), shared.begin(), shared.end());
  if (layout.hasKernel(KernelType::SpGEMM)) {
    layout.spgemmOffset = static_cast<int>(layout.common.size());
    for (const char *n : kSpgemmFeatureNames)
      layout.common.push_back(n);
  }
  if (layout.hasKernel(KernelType::MTTKRP)) {
    layout.mttkrpOffset = static_cast<int>(layout.common.size());
    for (const char *n : kMttkrpFeatureNames)
      layout.common.push_back(n);
  }
  const std::vector<std::string> &known = sharedKnobNames();
  for (const std::string &knob : sharedKnobs) {
    if (std::find(known.begin(), known.end(), knob) == known.end())
      return makeError("'" + knob + "' is not a knob targets share (known: " +
                       llvm::join(known, ", ") + ")");
    if (std::find(layout.shared_.begin(), layout.shared_.end(), knob) !=
        layout.shared_.end())
      return makeError("shared knob '" + knob + "' is listed twice");
    layout.shared_.push_back(knob);
    layout.rowOrderOffset = static_cast<int>(layout.common.size());
    layout.common.push_back("rows_reordered");
  }
  return std::move(layout);
}

bool FeatureLayout::hasKernel(KernelType kernel) const {
  return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

std::string FeatureLayout::kernelsStr() const {
  std::string out;
  for (const std::string &n : kernelNames_)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::optional<size_t> FeatureLayout::slotOf(TargetKind target) const {
  auto it = std::find(kinds.begin(), kinds.end(), target);
  if (it == kinds.end())
    return std::nullopt;
  return static_cast<size_t>(it - kinds.begin());
}

std::string FeatureLayout::str() const {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<Schedule> sptune::sampleKnobSettings(TargetKind target,
                                                 KernelType kernel,
                                                 size_t count, uint64_t seed) {
  return encodingOf(target).sampleKnobs(kernel, count, seed);
}
