//===- ProgramText.h - Text form of SPADE tile programs ---------*- C++ -*-===//
//
// Part of sptune. Prints and parses the `.spade` text form of a SpadeProgram:
//
//   # comment (a '#' starts a comment anywhere)
//   spade-program 1
//   kernel spmm                 # spmm | sddmm
//   shape 1024 1024             # rows cols of the sparse operand
//   free 64                     # N of SpMM, K of SDDMM
//   pes 16                      # PEs used
//   bypass sparse output        # any of sparse dense output, or none
//   reorder length              # none | length | similarity
//   tile 0 0:256 0:1024 0:64    # pe rows cols free, ranges half-open
//   tile 1 256:512 0:1024 0:64 acc
//   barrier
//
// The header lines come first, each at most once (bypass and reorder are
// optional); then one instruction per line. Errors name the line.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_PROGRAMTEXT_H
#define SPTUNE_TARGETS_SPADE_PROGRAMTEXT_H

#include "spade/Program.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <string_view>

namespace sptune {

/// The text form of `p`; parseSpadeProgram(printSpadeProgram(p)) == p.
std::string printSpadeProgram(const SpadeProgram &p);

/// Parses the text form; fails with `<name>:<line>: <message>`.
llvm::Expected<SpadeProgram>
parseSpadeProgram(std::string_view text, std::string_view name = "<program>");

/// Reads and parses the file at `path`.
llvm::Expected<SpadeProgram> readSpadeProgramFile(const std::string &path);

/// Writes the text form of `p` to `path` ("-" = standard output); fails on
/// an I/O error.
llvm::Error writeSpadeProgramFile(const std::string &path,
                                  const SpadeProgram &p);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_PROGRAMTEXT_H
