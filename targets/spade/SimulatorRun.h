//===- SimulatorRun.h - What spade-sim does, as a library call --*- C++ -*-===//
//
// Part of sptune. `spade-sim` parses its command line into
// `SpadeSimRunOptions` and calls `runSpadeSimulation`: load the matrix, build
// (or read) the tile program, simulate it, check it functionally and print
// the statistics; or sweep the SPADE schedule space for the matrix.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SIMULATORRUN_H
#define SPTUNE_TARGETS_SPADE_SIMULATORRUN_H

#include "spade/MachineConfig.h"

#include <cstdint>
#include <string>

namespace sptune {

/// A spade-sim run, as its command line gives it (already range-checked).
struct SpadeSimRunOptions {
  /// Matrix Market file or `gen:` spec.
  std::string matrix;
  /// The program: a .spade file, or a schedule's text, or (neither) the
  /// default SPADE schedule of `kernel`.
  std::string programFile;
  std::string schedule;
  bool haveSchedule = false;
  std::string kernel = "spmm";
  /// Whether --kernel / --free were given: a program file or schedule that
  /// disagrees with them is refused.
  bool haveKernel = false;
  int64_t free = 64;
  bool haveFree = false;
  /// Write the program here ('-' = stdout) and stop.
  std::string emitProgram;
  /// Also compute the numeric result and compare it with a reference.
  bool functional = false;
  double tolerance = 1e-4;
  bool json = false;
  /// Simulate every schedule of the space instead of one program.
  bool sweep = false;
  /// Print the machine parameters as JSON and stop.
  bool printMachine = false;
  /// Wall seconds of simulation before giving up (0 = none).
  double timeout = 0;
  SpadeMachineConfig machine;
};

/// Runs it, printing to stdout (the report) and stderr (errors prefixed
/// "spade-sim: error: "). Returns the exit status: 0, or 1 when an input is
/// bad, the simulation fails or the functional result is wrong.
int runSpadeSimulation(const SpadeSimRunOptions &options);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SIMULATORRUN_H
