//===- ForkJoin.cpp - The cost of an OpenMP parallel region ---------------===//
//
// Part of sptune. Compiled with gcc's -fopenmp and linked against LLVM's
// libomp (its GOMP entry points), the runtime sptune's CPU kernels run on,
// as the OpenMP baselines in targets/cpu are.
//
//===----------------------------------------------------------------------===//

#include "sptune/Machine/MachineDescriptor.h"
#include "sptune/Support/Error.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

llvm::Expected<double> sptune::measureForkJoinMicros(unsigned threads,
                                                     unsigned reps) {
  threads = std::max(1u, threads);
  reps = std::max(1u, reps);
  std::atomic<unsigned> arrived{0};
  std::vector<double> micros;
  micros.reserve(reps);
  // The first regions start the runtime's threads: not timed.
  for (unsigned r = 0; r < 10 + reps; ++r) {
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    arrived.fetch_add(1, std::memory_order_relaxed);
    double us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (r >= 10)
      micros.push_back(us);
  }
  // Every thread of every region ran once, or the runtime gave fewer.
  if (arrived.load() < 10 + reps)
    return makeError("measureForkJoinMicros: the parallel regions did not run");
  std::nth_element(micros.begin(), micros.begin() + micros.size() / 2,
                   micros.end());
  return micros[micros.size() / 2];
}
