//===- SpadeSimTool.cpp - spade-sim: SPADE tile programs on the simulator -===//
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

#include "spade/SimulatorRun.h"
#include "sptune/InitAllTargets.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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
int parseArgs(int argc, char **argv, SpadeSimRunOptions &o) {
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
} // namespace

int main(int argc, char **argv) {
  // Schedules of every target parse, so that another target's is refused
  // by name.
  registerAllTargets();
  SpadeSimRunOptions o;
  if (int rc = parseArgs(argc, argv, o); rc >= 0)
    return rc;
  return runSpadeSimulation(o);
}
