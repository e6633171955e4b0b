//===- SpadeKnobs.cpp - The SPADE target's own part of a schedule ---------===//

#include "spade/SpadeKnobs.h"

#include "sptune/Schedule/ScheduleGrammar.h"

#include <string>

using namespace sptune;

char SpadeKnobs::ID = 0;

const char *sptune::toString(RowReorder r) {
  switch (r) {
  case RowReorder::None:
    return "none";
  case RowReorder::ByLength:
    return "length";
  case RowReorder::BySimilarity:
    return "similarity";
  }
  return "?";
}

bool SpadeKnobs::operator==(const SpadeKnobs &o) const {
  return pes == o.pes && barrier == o.barrier &&
         bypassSparse == o.bypassSparse && bypassDense == o.bypassDense &&
         bypassOutput == o.bypassOutput && reorder == o.reorder;
}

namespace {
class SpadeTargetKnobs : public TargetKnobsOf<SpadeKnobs> {
public:
  TargetKind target() const override { return TargetKind::SPADE; }
  bool hasStorageLevels() const override { return false; }

  void print(const Schedule &s, std::string &out) const override {
    const SpadeKnobs &p = spadeKnobs(s);
    out += ", pes = " + std::to_string(p.pes) +
           ", barrier = " + (p.barrier ? "true" : "false") + ", bypass = [";
    const char *sep = "";
    if (p.bypassSparse)
      out += sep + std::string("sparse"), sep = ", ";
    if (p.bypassDense)
      out += sep + std::string("dense"), sep = ", ";
    if (p.bypassOutput)
      out += sep + std::string("output"), sep = ", ";
    out += std::string("], reorder = ") + toString(p.reorder);
  }

  KnobParseResult parseKnob(std::string_view key, ScheduleTokenSource &t,
                            Schedule &s) const override {
    static const RowReorder kReorder[] = {
        RowReorder::None, RowReorder::ByLength, RowReorder::BySimilarity};
    bool ok;
    if (key == "pes") {
      ok = parseInt(t, spadeKnobs(s).pes);
    } else if (key == "barrier") {
      ok = parseBool(t, spadeKnobs(s).barrier);
    } else if (key == "reorder") {
      ok = parseEnum(t, spadeKnobs(s).reorder, kReorder, "row reordering");
    } else if (key == "bypass") {
      SpadeKnobs &p = spadeKnobs(s);
      p.bypassSparse = p.bypassDense = p.bypassOutput = false;
      ok = parseList(t, [&] {
        std::string stream;
        if (!t.parseKeyword(stream))
          return false;
        if (stream == "sparse")
          p.bypassSparse = true;
        else if (stream == "dense")
          p.bypassDense = true;
        else if (stream == "output")
          p.bypassOutput = true;
        else {
          t.emitError("unknown stream '" + stream +
                      "' (expected sparse, dense or output)");
          return false;
        }
        return true;
      });
    } else {
      return KnobParseResult::NotAKnob;
    }
    return ok ? KnobParseResult::Parsed : KnobParseResult::Failed;
  }

  std::string whyIllegal(const Schedule &s) const override {
    if (spadeKnobs(s).pes < 0)
      return "PE count must be non-negative";
    return "";
  }

  void canonicalize(Schedule &s) const override {
    // Without column tiles there is a single column phase: a barrier
    // between phases has nothing to separate.
    if (s.splitCol == 1 && s.tile == 0 &&
        spadeKnobs(static_cast<const Schedule &>(s)).barrier)
      spadeKnobs(s).barrier = false;
    // SPADE's storage is its tiles; MLIR levels play no part.
    Schedule base = Schedule::csr(s.target, s.kernel);
    s.levels = base.levels;
    s.loopOrder = base.loopOrder;
    s.posWidth = s.crdWidth = 64;
  }
};
} // namespace

const TargetKnobs &sptune::spadeTargetKnobs() {
  static const SpadeTargetKnobs knobs;
  return knobs;
}
