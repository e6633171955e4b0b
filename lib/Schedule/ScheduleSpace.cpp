//===- ScheduleSpace.cpp - Default implementations ------------------------===//

#include "sptune/Target/ScheduleSpace.h"

#include <algorithm>
#include <random>

using namespace sptune;

ScheduleSpace::~ScheduleSpace() = default;

uint64_t ScheduleSpace::size(const ProblemShape &shape) const {
  uint64_t n = 0;
  enumerate(shape, [&](const Schedule &) {
    ++n;
    return true;
  });
  return n;
}

bool ScheduleSpace::fitsFreeSize(const Schedule &, int64_t) const {
  return true;
}

bool ScheduleSpace::fitsThisMachine(const Schedule &) const { return true; }

bool ScheduleSpace::contains(const ProblemShape &shape,
                             const Schedule &s) const {
  Schedule c = canonicalize(s);
  bool found = false;
  enumerate(shape, [&](const Schedule &x) {
    found = x == c;
    return !found;
  });
  return found;
}

std::vector<Schedule> ScheduleSpace::sample(const ProblemShape &shape,
                                            size_t count,
                                            uint64_t seed) const {
  // Reservoir sampling over the enumeration: uniform, deterministic, and
  // needs no random access into the space.
  std::mt19937_64 rng(seed);
  std::vector<Schedule> reservoir;
  uint64_t seen = 0;
  enumerate(shape, [&](const Schedule &s) {
    ++seen;
    if (reservoir.size() < count) {
      reservoir.push_back(s);
    } else {
      std::uniform_int_distribution<uint64_t> pick(0, seen - 1);
      uint64_t slot = pick(rng);
      if (slot < count)
        reservoir[slot] = s;
    }
    return true;
  });
  return reservoir;
}
