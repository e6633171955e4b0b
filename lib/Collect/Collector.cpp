//===- Collector.cpp - What sptune-collect measures -----------------------===//

#include "sptune/Collect/Collector.h"

#include "sptune/Schedule/DatasetSchema.h"
#include "sptune/Support/Error.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <functional>

using namespace sptune;

llvm::Error sptune::expandMatrixSources(const std::vector<std::string> &inputs,
                                        std::vector<std::string> &sources) {
  for (const std::string &input : inputs) {
    if (input.rfind("gen:", 0) == 0 || input.rfind("gen3:", 0) == 0) {
      sources.push_back(input);
      continue;
    }
    if (llvm::sys::fs::is_directory(input)) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(input, ec), end;
           it != end && !ec; it.increment(ec))
        if (llvm::sys::path::extension(it->path()) == ".mtx" ||
            llvm::sys::path::extension(it->path()) == ".tns")
          sources.push_back(it->path());
      if (ec)
        return makeError("cannot list '" + input + "': " + ec.message());
      continue;
    }
    if (!llvm::sys::fs::exists(input))
      return makeError("no such matrix file or directory: '" + input + "'");
    sources.push_back(input);
  }
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return llvm::Error::success();
}

PlannedRequest sptune::makeRequest(const std::string &source,
                                   const std::string &matrixId,
                                   const std::string &kernelName,
                                   const std::string &role,
                                   const std::string &schedule,
                                   const std::string &baseline,
                                   const CollectOptions &options) {
  KernelType kernel = *parseKernelType(kernelName);
  int64_t free = Schedule::freeLoopSize(kernel, options.free);
  PlannedRequest p;
  p.key = {matrixId, kernelName, free, options.target, role, schedule};
  p.key.elementBits = options.elementBits;
  p.request.target = options.target;
  p.request.matrix = source;
  p.request.kernel = kernelName;
  p.request.free = free;
  p.request.elementBits = options.elementBits;
  p.request.schedule = schedule;
  p.request.baseline = baseline;
  p.request.options = options.measure;
  return p;
}

std::vector<PlannedRequest>
sptune::planMatrix(const std::string &source, const std::string &matrixId,
                   int64_t rows, int64_t cols, int64_t nnz,
                   const ScheduleSpace &space, const CollectOptions &options) {
  std::vector<PlannedRequest> out;
  const Target *target = TargetRegistry::lookup(options.target);
  std::vector<std::string> targetBaselines =
      target ? target->baselines() : std::vector<std::string>();
  for (const std::string &kernelName : options.kernels) {
    KernelType kernel = *parseKernelType(kernelName);
    int64_t free = Schedule::freeLoopSize(kernel, options.free);
    auto make = [&](const std::string &role, const std::string &schedule,
                    const std::string &baseline) {
      out.push_back(makeRequest(source, matrixId, kernelName, role, schedule,
                                baseline, options));
    };
    for (const std::string &b : options.baselines) {
      // A baseline the target's measurer does not have is skipped (the
      // default list names the CPU's libraries); "heuristic", the target's
      // heuristic schedule, every target has.
      if (b != "heuristic" && std::find(targetBaselines.begin(),
                                        targetBaselines.end(),
                                        b) == targetBaselines.end())
        continue;
      // (The heuristic computes every kernel type the target schedules: an
      // SpGEMM's, a Hadamard product's, which no library computes.)
      if (b != "heuristic" && target && !target->baselineComputes(b, kernel))
        continue;
      make(dataset::baselineRole(b), "", b);
    }
    // A sample per matrix and kernel that does not change when other
    // matrices join the collection.
    uint64_t seed = options.seed ^ std::hash<std::string>()(matrixId + "|" +
                                                            kernelName);
    ProblemShape shape{kernel, rows, cols, free, nnz};
    for (const Schedule &s : space.sample(shape, options.samples, seed))
      make(std::string(dataset::kRoleSample), s.str(), "");
  }
  return out;
}
