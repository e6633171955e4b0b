//===- ToyTarget.h - A fourth target, for the tests -------------*- C++ -*-===//
//
// Part of sptune's unit tests. A target that plugs in as docs/targets.md
// says, touching no shared file: its own kind (addTargetKind), a knob block
// (`unroll = N`, how far its imaginary back end unrolls the innermost loop,
// printed after the shared part, with its own range check and canonical
// form), a knob vector for the cost model, eight schedules, a heuristic and a
// legality rule of its own. `withKnobs = false` gives one without knobs of
// its own (no knob block, a zero-width knob vector).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_TOYTARGET_H
#define SPTUNE_UNITTESTS_SUPPORT_TOYTARGET_H

#include "sptune/Schedule/ScheduleGrammar.h"
#include "sptune/Schedule/TargetKnobs.h"
#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/ScheduleSpace.h"
#include "sptune/Target/Target.h"

#include <string>

namespace sptune {
namespace test {

struct ToyKnobs : KnobValuesOf<ToyKnobs> {
  static inline char ID = 0;
  int unroll = 1;
  bool operator==(const ToyKnobs &o) const { return unroll == o.unroll; }
};

class ToyTargetKnobs : public TargetKnobsOf<ToyKnobs> {
public:
  explicit ToyTargetKnobs(TargetKind kind) : kind(kind) {}
  TargetKind target() const override { return kind; }
  void print(const Schedule &s, std::string &out) const override {
    out += ", unroll = " + std::to_string(s.knobs<ToyKnobs>().unroll);
  }
  KnobParseResult parseKnob(std::string_view key, ScheduleTokenSource &t,
                            Schedule &s) const override {
    if (key != "unroll")
      return KnobParseResult::NotAKnob;
    return parseInt(t, s.knobs<ToyKnobs>().unroll) ? KnobParseResult::Parsed
                                                   : KnobParseResult::Failed;
  }
  std::string whyIllegal(const Schedule &s) const override {
    int u = s.knobs<ToyKnobs>().unroll;
    return u == 1 || u == 2 || u == 4 ? "" : "unroll must be 1, 2 or 4";
  }
  /// SpMV's innermost loop is too short to unroll.
  void canonicalize(Schedule &s) const override {
    if (s.kernel == KernelType::SpMV && s.knobs<ToyKnobs>().unroll != 1)
      s.knobs<ToyKnobs>().unroll = 1;
  }

private:
  TargetKind kind;
};

/// The toy's knob vector for the cost model: log2 of its unroll factor and
/// whether positions are 32-bit.
class ToyKnobEncoding : public KnobEncoding {
public:
  explicit ToyKnobEncoding(TargetKind kind) : kind(kind) {}
  const std::vector<std::string> &featureNames() const override {
    static const std::vector<std::string> names = {"toy_log2_unroll",
                                                   "toy_pos32"};
    return names;
  }
  void encode(const Schedule &s, float *features) const override {
    features[0] = knobLog2(s.knobs<ToyKnobs>().unroll, 2);
    features[1] = s.posWidth == 32 ? 1.0f : 0.0f;
  }
  ParallelismFeatures parallelism(const Schedule &) const override {
    return {};
  }
  std::vector<Schedule> sampleKnobs(KernelType kernel, size_t count,
                                    uint64_t seed) const override {
    KnobSampler pick(seed);
    std::vector<Schedule> out;
    for (size_t n = 0; n < count; ++n) {
      Schedule s = Schedule::csr(kind, kernel);
      s.knobs<ToyKnobs>().unroll = 1 << pick.pick(3);
      s.posWidth = s.crdWidth = pick.coin() ? 32 : 64;
      out.push_back(canonicalize(s));
    }
    return out;
  }

private:
  TargetKind kind;
};

/// CSR and DCSR, with and without 32-bit indices, unrolled by 1 or 4 (by 1
/// only without knobs).
class ToySpace : public ScheduleSpace {
public:
  ToySpace(TargetKind kind, bool withKnobs)
      : kind(kind), withKnobs(withKnobs) {}
  TargetKind target() const override { return kind; }
  void
  enumerate(const ProblemShape &shape,
            const std::function<bool(const Schedule &)> &fn) const override {
    for (bool doubly : {false, true})
      for (int width : {32, 64})
        for (int unroll : {1, 4}) {
          if (!withKnobs && unroll != 1)
            continue;
          Schedule s = doubly ? Schedule::dcsr(kind, shape.kernel)
                              : Schedule::csr(kind, shape.kernel);
          s.posWidth = s.crdWidth = width;
          if (withKnobs)
            s.knobs<ToyKnobs>().unroll = unroll;
          if (!fn(canonicalize(s)))
            return;
        }
  }

private:
  TargetKind kind;
  bool withKnobs;
};

class ToyTarget : public Target {
public:
  explicit ToyTarget(std::string name = "toy", bool withKnobs = true)
      : toyName(std::move(name)), toyKind(addTargetKind(toyName)),
        withKnobs(withKnobs), toyKnobs(toyKind), encoding(toyKind),
        toySpace(toyKind, withKnobs) {}
  std::string_view name() const override { return toyName; }
  TargetKind kind() const override { return toyKind; }
  const ScheduleSpace &space() const override { return toySpace; }
  const TargetKnobs &knobs() const override {
    return withKnobs ? toyKnobs : Target::knobs();
  }
  const KnobEncoding &knobEncoding() const override {
    return withKnobs ? encoding : Target::knobEncoding();
  }
  /// DCSR with 32-bit indices, unrolled by 4: the toy's idea of a good
  /// default.
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *,
                             int64_t) const override {
    Schedule s = Schedule::dcsr(toyKind, kernel);
    s.posWidth = s.crdWidth = 32;
    if (withKnobs)
      s.knobs<ToyKnobs>().unroll = 4;
    return canonicalize(s);
  }
  Schedule referenceSchedule(KernelType kernel) const override {
    return canonicalize(Schedule::csr(toyKind, kernel));
  }
  /// The toy runs no SDDMM.
  std::string whyIllegal(const Schedule &s) const override {
    if (s.kernel == KernelType::SDDMM)
      return "the toy target runs no SDDMM";
    return Target::whyIllegal(s);
  }

private:
  std::string toyName;
  TargetKind toyKind;
  bool withKnobs;
  ToyTargetKnobs toyKnobs;
  ToyKnobEncoding encoding;
  ToySpace toySpace;
};

} // namespace test
} // namespace sptune

#endif // SPTUNE_UNITTESTS_SUPPORT_TOYTARGET_H
