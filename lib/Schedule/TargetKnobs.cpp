//===- TargetKnobs.cpp - The registered targets' knob blocks --------------===//

#include "sptune/Schedule/TargetKnobs.h"

#include <array>
#include <atomic>
#include <mutex>

using namespace sptune;

KnobValues::~KnobValues() = default;
TargetKnobs::~TargetKnobs() = default;

namespace {
/// TargetKind -> knobs. Lookups are on every print, compare and parse of a
/// schedule, so they read an atomic slot; registration (at start-up) is
/// serialized by a mutex that also keeps the registration order.
struct KnobRegistry {
  std::array<std::atomic<const TargetKnobs *>, 256> byKind{};
  std::mutex mutex;
  std::vector<TargetKind> order;

  static KnobRegistry &get() {
    static KnobRegistry r;
    return r;
  }
};
} // namespace

void sptune::registerTargetKnobs(const TargetKnobs &knobs) {
  KnobRegistry &r = KnobRegistry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto &slot = r.byKind[static_cast<uint8_t>(knobs.target())];
  if (slot.load(std::memory_order_acquire))
    return;
  slot.store(&knobs, std::memory_order_release);
  r.order.push_back(knobs.target());
}

const TargetKnobs *sptune::lookupTargetKnobs(TargetKind target) {
  return KnobRegistry::get()
      .byKind[static_cast<uint8_t>(target)]
      .load(std::memory_order_acquire);
}

std::vector<TargetKind> sptune::targetsWithKnobs() {
  KnobRegistry &r = KnobRegistry::get();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.order;
}
