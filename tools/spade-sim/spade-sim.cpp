//===- spade-sim.cpp - Run SPADE tile programs on the simulator -----------===//
//
//   spade-sim <matrix> [--program=FILE | --schedule=TEXT] [options]
//   spade-sim <matrix> --sweep [--kernel=K] [--free=N] [options]
//
// <matrix> is a Matrix Market file or a `gen:` generator spec.
//
// Exit status: 0 on success, 1 when an input is bad, the simulation fails or
// the functional result is wrong, 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "spade/BoundProgram.h"
#include "spade/Functional.h"
#include "spade/ProgramBuilder.h"
#include "spade/ProgramText.h"
#include "spade/Simulator.h"
#include "spade/SpadeScheduleSpace.h"
#include "sptune/InitAllTargets.h"
#include "sptune/Matrix/MatrixSource.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace sptune;

namespace {

const char *kUsage = R"(usage: spade-sim <matrix> [options]

Simulates a SPADE tile program (ISCA'23 SPADE, modelled by sptune; see
targets/spade/README.md) on the sparse matrix (a Matrix Market file or a
'gen:' generator spec) and prints its statistics.

Program (one of):
  --program=FILE        run the program in FILE (the .spade text form)
  --schedule=TEXT       build the program from a SPADE schedule, e.g.
                        'spade spmm, split = [256, 1024], tile = 0, pes = 0,
                        barrier = true, bypass = [sparse], reorder = length'
  (neither)             build it from the default SPADE schedule
  --kernel=spmm|sddmm   kernel for --sweep or the default schedule (spmm)
  --free=N              N of SpMM / K of SDDMM (default 64; a program file
                        gives its own)
  --emit-program=FILE   write the program that runs ('-' = stdout) and stop

Simulation:
  --functional          also compute the numeric result and check it
                        against a reference; a mismatch exits with 1
  --tolerance=X         relative tolerance of --functional (1e-4)
  --machine=KEY=VALUE   override a machine parameter (repeatable), e.g.
                        --machine=llc_bytes=1048576; see --print-machine
  --print-machine       print the machine parameters as JSON and stop
  --json                print the statistics as one JSON object
  --timeout=S           give up after S seconds of simulation (exit 1)

Sweep:
  --sweep               simulate every schedule of the SPADE schedule space
                        for the matrix; print each one's cycles and the best
                        and worst against the default schedule
  --help                this message
)";

int usageError(const std::string &message) {
  std::fprintf(stderr, "spade-sim: error: %s\n", message.c_str());
  std::fprintf(stderr, "run 'spade-sim --help' for usage\n");
  return 2;
}

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

struct Options {
  std::string matrix;
  std::string programFile;
  std::string schedule;
  bool haveSchedule = false;
  std::string kernel = "spmm";
  bool haveKernel = false;
  int64_t free = 64;
  bool haveFree = false;
  std::string emitProgram;
  bool functional = false;
  double tolerance = 1e-4;
  bool json = false;
  bool sweep = false;
  bool printMachine = false;
  double timeout = 0;
  SpadeMachineConfig machine;
};

bool startsWith(const std::string &s, const char *prefix, std::string &rest) {
  size_t n = std::strlen(prefix);
  if (s.compare(0, n, prefix) != 0)
    return false;
  rest = s.substr(n);
  return true;
}

bool parseDouble(const std::string &s, double &v) {
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == 0;
}

bool parseInt(const std::string &s, int64_t &v) {
  char *end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 10);
  v = x;
  // A value past the range is no value (strtoll clamps it to LLONG_MAX).
  return !s.empty() && *end == 0 && errno != ERANGE;
}

/// Parses the command line; returns an exit status >= 0 to stop with.
int parseArgs(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (startsWith(a, "--program=", v)) {
      o.programFile = v;
    } else if (startsWith(a, "--schedule=", v)) {
      o.schedule = v;
      o.haveSchedule = true;
    } else if (startsWith(a, "--kernel=", v)) {
      o.kernel = v;
      o.haveKernel = true;
    } else if (startsWith(a, "--free=", v)) {
      // The program's own limit, checked before anything multiplies by it
      // (--free=2^63 died of SIGFPE; issue 13 probe).
      if (!parseInt(v, o.free) || o.free < 1 || o.free > (int64_t(1) << 20))
        return usageError("--free needs an integer in [1, 1048576], got '" +
                          v + "'");
      o.haveFree = true;
    } else if (startsWith(a, "--emit-program=", v)) {
      o.emitProgram = v;
    } else if (a == "--functional") {
      o.functional = true;
    } else if (startsWith(a, "--tolerance=", v)) {
      if (!parseDouble(v, o.tolerance) || !(o.tolerance >= 0))
        return usageError("--tolerance needs a non-negative number");
    } else if (startsWith(a, "--machine=", v)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos)
        return usageError("--machine needs KEY=VALUE, got '" + v + "'");
      if (std::string why = o.machine.set(v.substr(0, eq), v.substr(eq + 1));
          !why.empty())
        return usageError(why);
    } else if (a == "--print-machine") {
      o.printMachine = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--sweep") {
      o.sweep = true;
    } else if (startsWith(a, "--timeout=", v)) {
      if (!parseDouble(v, o.timeout) || !(o.timeout >= 0))
        return usageError("--timeout needs a non-negative number of seconds");
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else if (o.matrix.empty()) {
      o.matrix = a;
    } else {
      return usageError("more than one matrix given ('" + o.matrix + "' and '" +
                        a + "')");
    }
  }
  if (std::string why = o.machine.whyInvalid(); !why.empty())
    return usageError("invalid machine: " + why);
  if (o.printMachine)
    return -1;
  if (o.matrix.empty())
    return usageError("no matrix given");
  if (!o.programFile.empty() && o.haveSchedule)
    return usageError("--program and --schedule exclude each other");
  if (o.sweep && (!o.programFile.empty() || o.haveSchedule))
    return usageError("--sweep enumerates the space; it takes no program or "
                      "schedule");
  if (o.kernel != "spmm" && o.kernel != "sddmm")
    return usageError("--kernel must be spmm or sddmm, got '" + o.kernel + "'");
  return -1;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t)
      .count();
}

int runSweep(const Options &o, const CsrMatrix &m) {
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
        buildSpadeProgram(m, spec, schedules[n], o.machine, &why);
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

int main(int argc, char **argv) {
  // Schedules of every target parse, so that another target's is refused
  // by name.
  registerAllTargets();
  Options o;
  if (int rc = parseArgs(argc, argv, o); rc >= 0)
    return rc;
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
    if (!loadMatrix(o.matrix, coo, info, why))
      return error(why);
    m = CsrMatrix::fromCoo(std::move(coo));
  }
  const double loadSeconds = secondsSince(loadStart);
  if (o.sweep)
    return runSweep(o, m);

  // The program: from a file, a schedule, or the default schedule.
  std::optional<SpadeProgram> program;
  if (!o.programFile.empty()) {
    program = readSpadeProgramFile(o.programFile, &why);
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
      std::optional<Schedule> parsed = parseSchedule(o.schedule, &why);
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
    program = buildSpadeProgram(m, spec, s, o.machine, &why);
    if (!program)
      return error(why);
  }
  if (!o.emitProgram.empty()) {
    if (!writeSpadeProgramFile(o.emitProgram, *program, &why))
      return error(why);
    return 0;
  }

  std::optional<SpadeBoundProgram> bound =
      bindSpadeProgram(m, *program, o.machine, &why);
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
