//===- BoundOptions.h - Command-line options bound to a struct --*- C++ -*-===//
//
// Part of sptune. A thin tool declares its llvm::cl options so that each
// writes straight into a field of the options struct its library function
// takes (external storage), rather than copying every option afterwards:
//
//   static LearnDriverOptions run;
//   static BoundOpt<int> epochs(cl::cat(c), "epochs", at(run.learn.roundEpochs));
//
// A field's default is the struct's; do not add cl::init.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_BOUNDOPTIONS_H
#define SPTUNE_SUPPORT_BOUNDOPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace sptune {

/// An option stored in a field of the caller's struct.
template <typename T> using BoundOpt = llvm::cl::opt<T, /*ExternalStorage=*/true>;
/// A list of strings appended to a std::vector field (which should start
/// empty: parsed values are appended to what it holds).
using BoundList = llvm::cl::list<std::string, std::vector<std::string>>;

/// The field an option is stored in.
template <typename T> auto at(T &field) { return llvm::cl::location(field); }

} // namespace sptune

#endif // SPTUNE_SUPPORT_BOUNDOPTIONS_H
