//===- SimulatorRun.cpp - What spade-sim does, as a library call ----------===//

#include "spade/SimulatorRun.h"
#include "spade/BoundProgram.h"
#include "spade/Functional.h"
#include "spade/ProgramBuilder.h"
#include "spade/ProgramText.h"
#include "spade/Simulator.h"
#include "spade/SpadeScheduleSpace.h"
#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/MemoryBudget.h"
#include "sptune/Target/Measurer.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace sptune;

namespace {

int error(const std::string &message) {
  std::fprintf(stderr, "spade-sim: error: %s\n", message.c_str());
  return 1;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

int runSweep(const SpadeSimRunOptions &o, const CsrMatrix &m) {
  KernelSpec spec;
  spec.kernel = *parseKernelType(o.kernel);
  spec.free = o.free;
  ProblemShape shape;
  shape.kernel = spec.kernel;
  shape.rows = m.rows;
  shape.cols = m.cols;
  shape.free = spec.free;
  std::vector<Schedule> schedules;
  SpadeScheduleSpace space;
  space.enumerate(shape, [&](const Schedule &s) {
    schedules.push_back(s);
    return true;
  });
  Schedule def = defaultSpadeSchedule(spec.kernel);
  schedules.insert(schedules.begin(), def);

  struct Row {
    std::string schedule;
    uint64_t cycles;
    double dramBytes, llcDenseHitRate, imbalance;
  };
  std::vector<Row> rows;
  const auto start = std::chrono::steady_clock::now();
  uint64_t work = 0;
  for (size_t n = 0; n < schedules.size(); ++n) {
    // The default schedule may also be in the space: simulate it once.
    if (n > 0 && schedules[n] == def)
      continue;
    std::string why;
    std::optional<SpadeProgram> p =
        takeValue(buildSpadeProgram(m, spec, schedules[n], o.machine), why);
    if (!p)
      return error(schedules[n].str() + ": " + why);
    SpadeSimOptions simOptions;
    simOptions.maxWallSeconds = o.timeout;
    SpadeSimResult r = simulateSpade(m, *p, o.machine, simOptions);
    if (!r.ok())
      return error(schedules[n].str() + ": " + r.error);
    work += r.stats.macs;
    rows.push_back({schedules[n].str(), r.stats.cycles,
                    double(r.stats.memory.dramBytes()),
                    r.stats.memory.llc[1].readHitRate(), r.stats.imbalance});
    if (!o.json)
      std::printf("%12llu  %s\n", (unsigned long long)r.stats.cycles,
                  schedules[n].str().c_str());
  }
  const double wall = secondsSince(start);
  size_t best = 0, worst = 0;
  for (size_t n = 1; n < rows.size(); ++n) {
    if (rows[n].cycles < rows[best].cycles)
      best = n;
    if (rows[n].cycles > rows[worst].cycles)
      worst = n;
  }
  const Row &d = rows[0];
  if (o.json) {
    std::string out =
        "{\"matrix\": " + jsonString(o.matrix) +
        ", \"kernel\": " + jsonString(o.kernel) +
        ", \"free\": " + std::to_string(o.free) +
        ", \"nnz\": " + std::to_string(m.nnz()) +
        ", \"schedules\": " + std::to_string(rows.size()) +
        ", \"default\": {\"schedule\": " + jsonString(d.schedule) +
        ", \"cycles\": " + std::to_string(d.cycles) + "}" +
        ", \"best\": {\"schedule\": " + jsonString(rows[best].schedule) +
        ", \"cycles\": " + std::to_string(rows[best].cycles) +
        "}, \"worst\": {\"schedule\": " + jsonString(rows[worst].schedule) +
        ", \"cycles\": " + std::to_string(rows[worst].cycles) +
        "}, \"wall_seconds\": " + std::to_string(wall) + ", \"results\": [";
    for (size_t n = 0; n < rows.size(); ++n)
      out += std::string(n ? ", " : "") +
             "{\"schedule\": " + jsonString(rows[n].schedule) +
             ", \"cycles\": " + std::to_string(rows[n].cycles) +
             ", \"dram_bytes\": " + std::to_string(rows[n].dramBytes) +
             ", \"llc_dense_hit_rate\": " +
             std::to_string(rows[n].llcDenseHitRate) +
             ", \"imbalance\": " + std::to_string(rows[n].imbalance) + "}";
    std::printf("%s]}\n", out.c_str());
    return 0;
  }
  std::printf("sweep: %zu schedules (the default first), %s, free = %lld, "
              "%lld nonzeros\n",
              rows.size(), o.kernel.c_str(), (long long)o.free,
              (long long)m.nnz());
  std::printf("default %12llu  %s\n", (unsigned long long)d.cycles,
              d.schedule.c_str());
  std::printf("best    %12llu  %s\n", (unsigned long long)rows[best].cycles,
              rows[best].schedule.c_str());
  std::printf("worst   %12llu  %s\n", (unsigned long long)rows[worst].cycles,
              rows[worst].schedule.c_str());
  std::printf("best vs default: %.3fx faster; worst / best: %.3fx\n",
              double(d.cycles) / double(rows[best].cycles),
              double(rows[worst].cycles) / double(rows[best].cycles));
  std::printf("simulated %.3g MACs in %.2f s (%.3g nonzeros x free / s)\n",
              double(work), wall, double(work) / wall);
  return 0;
}

} // namespace

int sptune::runSpadeSimulation(const SpadeSimRunOptions &o) {
  if (o.printMachine) {
    std::printf("%s\n", o.machine.toJson().c_str());
    return 0;
  }

  const auto loadStart = std::chrono::steady_clock::now();
  CsrMatrix m;
  std::string why;
  {
    CooMatrix coo;
    MatrixInfo info;
    if (takeErrorMessage(loadMatrix(o.matrix, coo, info), why))
      return error(why);
    m = CsrMatrix::fromCoo(std::move(coo));
  }
  const double loadSeconds = secondsSince(loadStart);
  if (o.sweep)
    return runSweep(o, m);

  // The program: from a file, a schedule, or the default schedule.
  std::optional<SpadeProgram> program;
  if (!o.programFile.empty()) {
    program = takeValue(readSpadeProgramFile(o.programFile), why);
    if (!program)
      return error(why);
    if (o.haveKernel && o.kernel != toString(program->kernel))
      return error("--kernel=" + o.kernel + " but the program runs " +
                   toString(program->kernel));
    if (o.haveFree && o.free != program->free)
      return error("--free=" + std::to_string(o.free) +
                   " but the program has free " +
                   std::to_string(program->free));
  } else {
    Schedule s;
    if (o.haveSchedule) {
      std::optional<Schedule> parsed =
          takeValue(parseSchedule(o.schedule), why);
      if (!parsed)
        return error("bad schedule: " + why);
      s = *parsed;
      if (o.haveKernel && o.kernel != toString(s.kernel))
        return error("--kernel=" + o.kernel + " but the schedule is for " +
                     toString(s.kernel));
    } else {
      s = defaultSpadeSchedule(*parseKernelType(o.kernel));
    }
    KernelSpec spec;
    spec.kernel = s.kernel;
    spec.free = o.free;
    program = takeValue(buildSpadeProgram(m, spec, s, o.machine), why);
    if (!program)
      return error(why);
  }
  if (!o.emitProgram.empty()) {
    if (takeErrorMessage(writeSpadeProgramFile(o.emitProgram, *program), why))
      return error(why);
    return 0;
  }

  std::optional<SpadeBoundProgram> bound =
      takeValue(bindSpadeProgram(m, *program, o.machine), why);
  if (!bound)
    return error(why);
  SpadeSimOptions simOptions;
  simOptions.maxWallSeconds = o.timeout;
  SpadeSimResult r = simulateSpade(*bound, o.machine, simOptions);
  if (!r.ok())
    return error(r.error);
  const SpadeStats &s = r.stats;

  std::string check;
  if (o.functional) {
    // The functional check's dense operands, in double precision.
    KernelSpec dense{program->kernel, program->free, /*elementBits=*/64};
    if (std::string why = whyOverMemoryBudget(
            measurementBytes(dense, m.rows, m.cols, m.nnz()),
            "the dense operands of --functional");
        !why.empty())
      return error(why);
    SpadeDenseInputs in = makeSpadeInputs(m, program->kernel, program->free);
    std::vector<double> scale;
    std::vector<double> ref = spadeReference(m, program->kernel, in, &scale);
    std::vector<double> got = runSpadeFunctional(*bound, in);
    check = compareSpadeResults(got, ref, scale, o.tolerance, program->kernel,
                                program->free);
  }
  const double throughput =
      s.wallSeconds > 0 ? double(s.macs) / s.wallSeconds : 0.0;
  if (o.json) {
    std::string out = s.toJson();
    out.pop_back();
    out += ", \"matrix\": " + jsonString(o.matrix);
    out += ", \"kernel\": " + jsonString(toString(program->kernel));
    out += ", \"free\": " + std::to_string(program->free);
    out += ", \"load_seconds\": " + std::to_string(loadSeconds);
    out += ", \"throughput\": " + std::to_string(throughput);
    if (o.functional)
      out += std::string(", \"functional\": ") +
             (check.empty() ? "\"ok\"" : jsonString(check));
    std::printf("%s}\n", out.c_str());
  } else {
    std::printf("matrix           %s (%lld x %lld, %lld nonzeros)\n",
                o.matrix.c_str(), (long long)m.rows, (long long)m.cols,
                (long long)m.nnz());
    std::printf("kernel           %s, free = %lld\n", toString(program->kernel),
                (long long)program->free);
    std::fputs(s.summary().c_str(), stdout);
    std::printf("simulation       %.3f s wall (%.3g nonzeros x free / s)\n",
                s.wallSeconds, throughput);
    if (o.functional)
      std::printf("functional       %s\n", check.empty()
                                               ? "ok (matches the reference)"
                                               : "WRONG RESULT");
  }
  if (!check.empty())
    return error("functional check failed: " + check);
  return 0;
}
