//===- HostCpu.h - This machine's CPU ---------------------------*- C++ -*-===//
//
// Part of sptune. The CPU model as /proc/cpuinfo names it ("AMD EPYC ...",
// "Intel(R) Xeon(R) Processor"): what every measurement record carries as
// machine.cpu (sptune/Collect/Dataset.h), and what the cost model's guard
// compares with the machines its model was trained on
// (sptune/CostModel/ModelGuard.h). And how many CPUs this process may run
// on: what OpenMP's default team uses, what the machine descriptor records,
// and what a schedule's thread count may not exceed.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_HOSTCPU_H
#define SPTUNE_SUPPORT_HOSTCPU_H

#include <fstream>
#include <string>

#include <sched.h>

namespace sptune {

/// The "model name" of the first processor in /proc/cpuinfo; empty where
/// there is none (another OS, a container without /proc).
inline std::string hostCpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      size_t start = colon == std::string::npos
                         ? std::string::npos
                         : line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? std::string() : line.substr(start);
    }
  return std::string();
}

/// The CPUs in this process's affinity mask (taskset, a container's cpuset);
/// 0 where it cannot be read.
inline int allowedCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
}

} // namespace sptune

#endif // SPTUNE_SUPPORT_HOSTCPU_H
