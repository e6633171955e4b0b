//===- KnobNeighbourhood.cpp - Schedules around a seed schedule -----------===//

#include "sptune/Tune/KnobNeighbourhood.h"

#include "sptune/Support/Error.h"
#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Target.h"

#include <algorithm>
#include <map>
#include <optional>
#include <numeric>
#include <random>
#include <unordered_set>

using namespace sptune;

std::vector<Schedule> sptune::sampledKnobNeighbours(const Target &target,
                                                    const Schedule &seed,
                                                    size_t count,
                                                    uint64_t rngSeed) {
  std::vector<Schedule> out;
  out.reserve(count);
  size_t n = 0;
  for (const Schedule &knobs :
       target.knobEncoding().sampleKnobs(seed.kernel, count, rngSeed)) {
    Schedule s = seed;
    s.knobBlock = knobs.knobBlock;
    s.denseTransposed = knobs.denseTransposed;
    const TargetKnobs *targetKnobs = lookupTargetKnobs(s.target);
    if (n++ % 2 == 1 && (!targetKnobs || targetKnobs->hasStorageLevels()))
      s.posWidth = s.crdWidth = 32;
    out.push_back(canonicalize(s));
  }
  return out;
}

/// The top-level "name = value" fields of a printed schedule (after the
/// "<target> <kernel>" head), split at the commas outside brackets.
static std::map<std::string, std::string> printedFields(const Schedule &s) {
  std::string text = s.str();
  std::map<std::string, std::string> fields;
  size_t start = text.find(", ");
  if (start == std::string::npos)
    return fields;
  start += 2;
  int depth = 0;
  for (size_t i = start; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[')
      ++depth;
    else if (c == ']')
      --depth;
    if (c != ',' || depth != 0)
      continue;
    std::string field = text.substr(start, i - start);
    size_t eq = field.find(" = ");
    if (eq != std::string::npos)
      fields[field.substr(0, eq)] = field.substr(eq + 3);
    start = i + 2;
  }
  return fields;
}

unsigned sptune::knobDistance(const Schedule &a, const Schedule &b) {
  std::map<std::string, std::string> fa = printedFields(a),
                                     fb = printedFields(b);
  unsigned distance = 0;
  for (const auto &[name, value] : fa) {
    auto it = fb.find(name);
    distance += it == fb.end() || it->second != value;
  }
  for (const auto &[name, value] : fb)
    distance += !fa.count(name);
  return distance;
}

/// The printed form `head` ("<target> <kernel>") + `mine` with the fields
/// `names` taken from `other`'s (a field `other` does not print is dropped,
/// to its default).
static std::string withFieldsOf(const std::string &head,
                                const std::map<std::string, std::string> &mine,
                                const std::map<std::string, std::string> &other,
                                const std::vector<std::string> &names) {
  std::map<std::string, std::string> fields = mine;
  for (const std::string &name : names) {
    auto it = other.find(name);
    if (it == other.end())
      fields.erase(name);
    else
      fields[name] = it->second;
  }
  std::string text = head;
  for (const auto &[name, value] : fields)
    text += ", " + name + " = " + value;
  return text;
}

std::vector<Schedule> sptune::nearestKnobNeighbours(const Target &target,
                                                    const Schedule &seed,
                                                    size_t count, int64_t rows,
                                                    int64_t cols, int64_t nnz,
                                                    uint64_t rngSeed) {
  std::vector<Schedule> out;
  if (count == 0)
    return out;
  auto legal = [&](const Schedule &s) {
    return target.whyIllegal(s).empty() &&
           whyIllegalForShape(s, rows, cols, nnz).empty();
  };
  Schedule center = canonicalize(seed);
  std::unordered_set<std::string> seen = {center.str()};
  if (legal(center))
    out.push_back(center);
  // Knob settings drawn by the target's encoding, and the seed with one or
  // two of their fields: a uniform draw is rarely one knob away (every knob
  // is drawn anew), a field taken from it is. Ranked by distance; the
  // pool's order is shuffled first, so that ties fall in a seeded random
  // order.
  std::map<std::string, std::string> mine = printedFields(center);
  std::string head = center.str();
  head = head.substr(0, head.find(", "));
  std::vector<Schedule> pool;
  auto add = [&](Schedule s) {
    if (seen.insert(s.str()).second && legal(s))
      pool.push_back(std::move(s));
  };
  // Combinations already parsed (most recur: a target's knob domains are
  // small), so that a large count costs draws, not parses.
  std::unordered_set<std::string> tried;
  auto addText = [&](std::string text) {
    if (!tried.insert(text).second)
      return;
    if (std::optional<Schedule> parsed =
            llvm::expectedToOptional(parseSchedule(text)))
      add(canonicalize(*parsed));
  };
  // 8 draws per wanted schedule, at least 256 (every setting one knob away
  // of the CPU's ~26 is then drawn), at most 4,096 (the distinct
  // combinations of one or two fields are a few hundred per target).
  size_t draws = std::clamp<size_t>(8 * count, 256, 4096);
  for (Schedule &s : sampledKnobNeighbours(target, center, draws, rngSeed)) {
    std::map<std::string, std::string> theirs = printedFields(s);
    std::vector<std::string> differing;
    for (const auto &[name, value] : theirs)
      if (auto it = mine.find(name); it == mine.end() || it->second != value)
        differing.push_back(name);
    for (const auto &[name, value] : mine)
      if (!theirs.count(name))
        differing.push_back(name);
    for (size_t x = 0; x < differing.size(); ++x) {
      addText(withFieldsOf(head, mine, theirs, {differing[x]}));
      for (size_t y = x + 1; y < differing.size(); ++y)
        addText(withFieldsOf(head, mine, theirs, {differing[x], differing[y]}));
    }
    add(std::move(s));
  }
  std::vector<unsigned> distance(pool.size());
  for (size_t i = 0; i < pool.size(); ++i)
    distance[i] = knobDistance(center, pool[i]);
  std::vector<size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(rngSeed ^ 0xC0FFEEull);
  std::shuffle(order.begin(), order.end(), rng);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return distance[x] < distance[y];
  });
  for (size_t idx : order) {
    if (out.size() >= count)
      break;
    out.push_back(pool[idx]);
  }
  return out;
}
