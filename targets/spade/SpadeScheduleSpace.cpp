//===- SpadeScheduleSpace.cpp - The SPADE target's schedule space ---------===//

#include "spade/SpadeScheduleSpace.h"
#include "spade/SpadeKernels.h"
#include "spade/SpadeKnobs.h"

using namespace sptune;

const std::vector<int64_t> &SpadeScheduleSpace::panelHeights() {
  static const std::vector<int64_t> v = {32, 256, 2048};
  return v;
}

const std::vector<int64_t> &SpadeScheduleSpace::tileWidths() {
  static const std::vector<int64_t> v = {1, 4096, 1024, 256};
  return v;
}

Schedule sptune::defaultSpadeSchedule(KernelType kernel) {
  Schedule s = Schedule::csr(TargetKind::SPADE, kernel);
  s.splitRow = 256;
  s.splitCol = 1;
  return canonicalize(s);
}

void SpadeScheduleSpace::enumerate(
    const ProblemShape &shape,
    const std::function<bool(const Schedule &)> &fn) const {
  if (!spadeRunsKernel(shape.kernel))
    return;
  // Panel heights: once a height covers all rows, larger ones are the same.
  std::vector<int64_t> heights;
  for (int64_t h : panelHeights()) {
    heights.push_back(h);
    if (shape.rows > 0 && h >= shape.rows)
      break;
  }
  // Tile widths covering all columns are the same as no column tiling.
  std::vector<int64_t> widths;
  for (int64_t w : tileWidths())
    if (w == 1 || shape.cols <= 0 || w < shape.cols)
      widths.push_back(w);
  struct Bypass {
    bool sparse, output;
  };
  static const Bypass kBypass[] = {
      {false, false}, {true, false}, {false, true}, {true, true}};
  static const RowReorder kReorder[] = {RowReorder::None, RowReorder::ByLength,
                                        RowReorder::BySimilarity};

  Schedule base = Schedule::csr(TargetKind::SPADE, shape.kernel);
  for (int64_t h : heights) {
    for (int64_t w : widths) {
      for (bool barrier : {false, true}) {
        // One column tile has no phases to separate.
        if (barrier && w == 1)
          continue;
        for (const Bypass &b : kBypass) {
          for (RowReorder r : kReorder) {
            Schedule s = base;
            s.splitRow = h;
            s.splitCol = w;
            spadeKnobs(s).barrier = barrier;
            spadeKnobs(s).bypassSparse = b.sparse;
            spadeKnobs(s).bypassOutput = b.output;
            spadeKnobs(s).reorder = r;
            s = canonicalize(s);
            if (!isLegal(s))
              continue;
            if (!fn(s))
              return;
          }
        }
      }
    }
  }
}
