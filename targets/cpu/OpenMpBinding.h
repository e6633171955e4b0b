//===- OpenMpBinding.h - Two OpenMP runtimes and thread binding -*- C++ -*-===//
//
// A CPU measurement runs the JIT'd kernels on LLVM's libomp, in a process
// that also loads GNU libgomp (librsb and LibTorch need it). When
// OMP_PROC_BIND or OMP_PLACES is set, libgomp binds the initial thread to
// its first place as soon as it is loaded, before main() and before libomp
// starts. libomp then takes that one place for all the CPUs there are, and
// every kernel and baseline runs on it: a two-thread schedule on a 2-core
// machine measures as one thread, with nothing in the result to say so.
// This detects that state so that the measuring tools can say it.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_OPENMPBINDING_H
#define SPTUNE_TARGETS_CPU_OPENMPBINDING_H

#include <string>

namespace sptune::cpu {

/// What decides whether the process's threads were narrowed.
struct OpenMpBindingState {
  /// OMP_PROC_BIND is set to something other than "false", or OMP_PLACES is
  /// set.
  bool bindingRequested = false;
  /// GNU libgomp is loaded in this process.
  bool gompLoaded = false;
  /// CPUs in the calling thread's affinity mask.
  int allowedCpus = 0;
  /// CPUs online.
  int onlineCpus = 0;
};

/// The state of this process (environment, loaded libraries, the calling
/// thread's affinity mask).
OpenMpBindingState currentOpenMpBindingState();

/// A warning when `s` says the measured kernels run on fewer CPUs than are
/// online because libgomp bound the initial thread; empty otherwise.
std::string openMpBindingWarning(const OpenMpBindingState &s);

/// Prints openMpBindingWarning(currentOpenMpBindingState()) to stderr, once
/// per process, when it is not empty.
void warnOnceAboutOpenMpBinding();

} // namespace sptune::cpu

#endif // SPTUNE_TARGETS_CPU_OPENMPBINDING_H
