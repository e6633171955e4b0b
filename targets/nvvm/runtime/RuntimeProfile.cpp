//===- RuntimeProfile.cpp - Device time of launches and library calls -----===//

#include "RuntimeProfile.h"

#include "RuntimeSupport.h"
#include "SptuneCudaRuntime.h"

#include <mutex>
#include <utility>
#include <vector>

using namespace sptune::cuda;

namespace {
struct ProfileState {
  std::mutex mutex;
  bool enabled = false;
  std::vector<std::pair<CUevent, CUevent>> intervals;
};

ProfileState &profile() {
  static ProfileState state;
  return state;
}

void destroyAll(std::vector<std::pair<CUevent, CUevent>> &intervals) {
  for (auto &[start, stop] : intervals) {
    cuEventDestroy(start);
    cuEventDestroy(stop);
  }
  intervals.clear();
}
} // namespace

ProfiledRegion::ProfiledRegion(CUstream stream, const char *where)
    : stream(stream), where(where) {
  {
    std::lock_guard<std::mutex> lock(profile().mutex);
    if (!profile().enabled)
      return;
  }
  if (!SPTUNE_CU(cuEventCreate(&start, CU_EVENT_DEFAULT), where) ||
      !SPTUNE_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT), where) ||
      !SPTUNE_CU(cuEventRecord(start, stream), where)) {
    if (start)
      cuEventDestroy(start);
    if (stop)
      cuEventDestroy(stop);
    start = stop = nullptr;
  }
}

ProfiledRegion::~ProfiledRegion() {
  if (!start)
    return;
  if (!SPTUNE_CU(cuEventRecord(stop, stream), where)) {
    cuEventDestroy(start);
    cuEventDestroy(stop);
    return;
  }
  std::lock_guard<std::mutex> lock(profile().mutex);
  profile().intervals.emplace_back(start, stop);
}

extern "C" void sptuneCudaProfileBegin(void) {
  ScopedContext context("sptuneCudaProfileBegin");
  std::lock_guard<std::mutex> lock(profile().mutex);
  destroyAll(profile().intervals);
  profile().enabled = true;
}

extern "C" int64_t sptuneCudaProfileEnd(double *seconds, int64_t capacity) {
  ScopedContext context("sptuneCudaProfileEnd");
  std::vector<std::pair<CUevent, CUevent>> intervals;
  {
    std::lock_guard<std::mutex> lock(profile().mutex);
    profile().enabled = false;
    intervals.swap(profile().intervals);
  }
  if (!context.ok()) {
    return intervals.empty() ? 0 : -1;
  }
  bool ok = true;
  int64_t n = 0;
  for (auto &[start, stop] : intervals) {
    float ms = 0;
    if (!SPTUNE_CU(cuEventSynchronize(stop), "sptuneCudaProfileEnd") ||
        !SPTUNE_CU(cuEventElapsedTime(&ms, start, stop),
                   "sptuneCudaProfileEnd"))
      ok = false;
    if (seconds && n < capacity)
      seconds[n] = static_cast<double>(ms) * 1e-3;
    ++n;
  }
  destroyAll(intervals);
  return ok ? n : -1;
}
