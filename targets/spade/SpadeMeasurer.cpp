//===- SpadeMeasurer.cpp - Measure SPADE schedules by simulation ----------===//

#include "spade/SpadeMeasurer.h"

#include "spade/BoundProgram.h"
#include "spade/Functional.h"
#include "spade/ProgramBuilder.h"
#include "sptune/Support/Error.h"

#include <chrono>

using namespace sptune;

Measurement SpadeMeasurer::measure(const CsrMatrix &matrix,
                                   const KernelSpec &spec,
                                   const Schedule &schedule,
                                   const MeasureOptions &options) {
  using Clock = std::chrono::steady_clock;
  Measurement m;
  auto finish = [&](MeasureStatus status, std::string reason) {
    m.status = status;
    m.reason = std::move(reason);
    return m;
  };
  if (schedule.target != TargetKind::SPADE)
    return finish(MeasureStatus::Illegal,
                  std::string("the SPADE measurer got a '") +
                      toString(schedule.target) + "' schedule");
  if (std::string why = machineConfig.whyInvalid(); !why.empty())
    return finish(MeasureStatus::Error, "invalid SPADE machine: " + why);
  if (spec.elementBits != 32 && spec.elementBits != 64)
    return finish(MeasureStatus::Illegal,
                  "SPADE computes on 32- or 64-bit elements, not " +
                      std::to_string(spec.elementBits));
  // The element type of the kernel sets the machine's element size.
  SpadeMachineConfig machine = machineConfig;
  machine.elemBytes = spec.elementBits / 8;

  const Clock::time_point start = Clock::now();
  std::string error;
  std::optional<SpadeProgram> program =
      takeValue(buildSpadeProgram(matrix, spec, schedule, machine), error);
  if (!program)
    return finish(MeasureStatus::Illegal, error);
  std::optional<SpadeBoundProgram> bound =
      takeValue(bindSpadeProgram(matrix, *program, machine), error);
  if (!bound)
    return finish(MeasureStatus::Error, error);
  const double prepared =
      std::chrono::duration<double>(Clock::now() - start).count();
  m.compileSeconds = prepared;

  SpadeSimOptions simOptions;
  if (options.timeoutSeconds > 0)
    simOptions.maxWallSeconds =
        std::max(options.timeoutSeconds - prepared, 1e-3);
  SpadeSimResult sim = simulateSpade(*bound, machine, simOptions);
  if (sim.status == SpadeSimStatus::Timeout)
    return finish(MeasureStatus::Timeout, sim.error);
  if (!sim.ok())
    return finish(MeasureStatus::Error, sim.error);

  if (options.checkResult) {
    SpadeDenseInputs in = makeSpadeInputs(matrix, spec.kernel, spec.free);
    std::vector<double> scale;
    std::vector<double> ref = spadeReference(matrix, spec.kernel, in, &scale);
    std::vector<double> got = runSpadeFunctional(*bound, in);
    if (std::string why = compareSpadeResults(
            got, ref, scale, options.tolerance, spec.kernel, spec.free);
        !why.empty())
      return finish(MeasureStatus::WrongResult, why);
  }

  const SpadeStats &s = sim.stats;
  m.cycles = double(s.cycles);
  m.medianSeconds = m.minSeconds = m.maxSeconds = s.seconds;
  m.madSeconds = 0;
  m.reps = 1;
  m.detailsJson = s.toJson(/*withWallTime=*/false);
  return finish(MeasureStatus::Ok, "");
}
