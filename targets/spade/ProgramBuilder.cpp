//===- ProgramBuilder.cpp - SPADE tile programs from schedules ------------===//

#include "spade/ProgramBuilder.h"

#include "sptune/Support/Error.h"
#include "spade/SpadeKernels.h"
#include "spade/SpadeKnobs.h"

#include <algorithm>

using namespace sptune;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

llvm::Expected<SpadeProgram>
sptune::buildSpadeProgram(int64_t rows, int64_t cols, const KernelSpec &spec,
                          const Schedule &schedule, int machinePes) {
  auto fail = [](const std::string &why) { return makeError(why); };
  const Schedule &s = schedule;
  if (s.target != TargetKind::SPADE)
    return fail(std::string("not a SPADE schedule (target '") +
                toString(s.target) + "')");
  if (!spadeRunsKernel(s.kernel))
    return fail(std::string("SPADE runs spmm and sddmm, not '") +
                toString(s.kernel) + "'");
  if (s.kernel != spec.kernel)
    return fail(std::string("the schedule is for '") + toString(s.kernel) +
                "', the kernel is '" + toString(spec.kernel) + "'");
  if (std::string why = whyIllegal(s); !why.empty())
    return fail("illegal schedule: " + why);
  if (rows < 1 || cols < 1)
    return fail("the sparse operand is empty (" + std::to_string(rows) + " x " +
                std::to_string(cols) + ")");
  if (spec.free < 1)
    return fail("the free size (N of SpMM, K of SDDMM) must be positive");
  if (machinePes < 1)
    return fail("the machine has no PEs");
  if (spadeKnobs(s).pes > machinePes)
    return fail("the schedule uses " + std::to_string(spadeKnobs(s).pes) +
                " PEs, the machine has " + std::to_string(machinePes));

  SpadeProgram p;
  p.kernel = s.kernel;
  p.rows = rows;
  p.cols = cols;
  p.free = spec.free;
  p.pes = spadeKnobs(s).pes == 0 ? machinePes : spadeKnobs(s).pes;
  p.bypassSparse = spadeKnobs(s).bypassSparse;
  p.bypassDense = spadeKnobs(s).bypassDense;
  p.bypassOutput = spadeKnobs(s).bypassOutput;
  p.reorder = spadeKnobs(s).reorder;

  const int64_t panel = s.splitRow;
  const int64_t width = s.splitCol == 1 ? cols : s.splitCol;
  const int64_t strip = s.tile == 0 ? spec.free : std::min(s.tile, spec.free);
  const int64_t panels = ceilDiv(rows, panel);
  const int64_t colTiles = ceilDiv(cols, width);
  const int64_t strips = ceilDiv(spec.free, strip);
  if (panels > kMaxSpadeInstructions / colTiles ||
      panels * colTiles > kMaxSpadeInstructions / strips)
    return fail("the schedule makes " + std::to_string(panels) + " x " +
                std::to_string(colTiles) + " x " + std::to_string(strips) +
                " tiles (more than " + std::to_string(kMaxSpadeInstructions) +
                "): use larger splits");
  const int64_t tiles = panels * colTiles * strips;
  p.instrs.reserve(size_t(tiles + (spadeKnobs(s).barrier ? colTiles * strips : 0)));

  auto tile = [&](int64_t pn, int64_t c, int64_t f) {
    SpadeTile t;
    t.pe = int32_t(pn % p.pes);
    t.rowBegin = pn * panel;
    t.rowEnd = std::min(rows, (pn + 1) * panel);
    t.colBegin = c * width;
    t.colEnd = std::min(cols, (c + 1) * width);
    t.freeBegin = f * strip;
    t.freeEnd = std::min(spec.free, (f + 1) * strip);
    t.accumulate = spadeSamples(s.kernel) ? f > 0 : c > 0;
    p.instrs.push_back(SpadeInstr::makeTile(t));
  };
  for (int64_t f = 0; f < strips; ++f) {
    if (spadeKnobs(s).barrier) {
      for (int64_t c = 0; c < colTiles; ++c) {
        for (int64_t pn = 0; pn < panels; ++pn)
          tile(pn, c, f);
        if (!(f + 1 == strips && c + 1 == colTiles))
          p.instrs.push_back(SpadeInstr::makeBarrier());
      }
    } else {
      for (int64_t pn = 0; pn < panels; ++pn)
        for (int64_t c = 0; c < colTiles; ++c)
          tile(pn, c, f);
    }
  }
  if (std::string why = whyInvalid(p); !why.empty())
    return fail(why);
  return p;
}

llvm::Expected<SpadeProgram>
sptune::buildSpadeProgram(const CsrMatrix &m, const KernelSpec &spec,
                          const Schedule &schedule,
                          const SpadeMachineConfig &machine) {
  return buildSpadeProgram(m.rows, m.cols, spec, schedule, machine.pes);
}
