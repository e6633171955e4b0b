//===- NvvmGpuBenchRun.cpp - What sptune-gpu-bench does -------------------===//

#include "nvvm/NvvmGpuBenchRun.h"
#include "nvvm/NvvmKnobs.h"
#include "nvvm/NvvmMeasurer.h"

#include "sptune/Matrix/MatrixSource.h"
#include "sptune/Schedule/Schedule.h"
#include "sptune/Support/Error.h"
#include "sptune/Support/MemoryBudget.h"
#include "sptune/Target/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace sptune;

namespace {

/// Whether the GPU bench runs `k`: a built-in type with a cuSPARSE baseline
/// and candidate schedules below (SpMM, SDDMM).
bool benchRuns(KernelType k) {
  ProductShape shape = productShape(k);
  return isBuiltinKernelType(k) && (shape == ProductShape::MatrixMatrix ||
                                    shape == ProductShape::SampledMatrixMatrix);
}

/// The built-in candidate schedules of a kernel of a shape `benchRuns`
/// (filtered for legality).
std::vector<std::string> candidates(KernelType k) {
  if (productShape(k) == ProductShape::MatrixMatrix)
    return {
        "nvvm spmm, threads = 64",
        "nvvm spmm, threads = 128",
        "nvvm spmm, threads = 256",
        "nvvm spmm, threads = 1024",
        "nvvm spmm, widths = [32, 32], threads = 128",
        "nvvm spmm, order = [i, j, k], threads = 128",
        "nvvm spmm, order = [j, i, k], threads = 128",
        "nvvm spmm, levels = [i1 : dense, k1 : compressed, i0 : dense, k0 : "
        "dense], split = [2, 2], threads = 128",
        "nvvm spmm, libgen = true",
        "nvvm spmm, widths = [32, 32], libgen = true",
    };
  return {
      "nvvm sddmm, order = [i, k, j], threads = 64",
      "nvvm sddmm, order = [i, k, j], threads = 256",
      "nvvm sddmm, order = [i, k, j], threads = 1024",
      "nvvm sddmm, order = [i, k, j], widths = [32, 32], threads = 256",
      "nvvm sddmm, order = [i, k, j], libgen = true",
      "nvvm sddmm, order = [i, k, j], widths = [32, 32], libgen = true",
      "nvvm sddmm, levels = [i1 : dense, j1 : compressed, i0 : dense, j0 : "
      "dense], split = [2, 2], order = [k, i1, j1, i0, j0], libgen = true",
  };
}

std::string json(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string measurementJson(const NvvmGpuBenchOptions &o,
                            const std::string &matrix, KernelType kernel,
                            const std::string &what, const Measurement &m) {
  return "{\"matrix\":" + json(matrix) +
         ",\"kernel\":" + json(toString(kernel)) +
         ",\"free\":" + std::to_string(o.free) +
         ",\"bits\":" + std::to_string(o.bits) + ",\"what\":" + json(what) +
         ",\"status\":" + json(toString(m.status)) +
         ",\"reason\":" + json(m.reason) +
         ",\"median_s\":" + number(m.medianSeconds) +
         ",\"min_s\":" + number(m.minSeconds) +
         ",\"mad_s\":" + number(m.madSeconds) +
         ",\"reps\":" + std::to_string(m.reps) +
         ",\"compile_s\":" + number(m.compileSeconds) +
         ",\"details\":" + m.detailsJson + "}";
}

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos)
      end = text.size();
    std::string part = text.substr(start, end - start);
    if (part.find_first_not_of(" \t") != std::string::npos)
      out.push_back(part);
    start = end + 1;
  }
  return out;
}

} // namespace

int sptune::runNvvmGpuBench(const NvvmGpuBenchOptions &o) {
  auto errs = [](const std::string &msg) {
    llvm::errs() << "sptune-gpu-bench: error: " << msg << "\n";
  };
  if (o.bits != 32 && o.bits != 64) {
    errs("--bits must be 32 or 64");
    return 1;
  }
  std::vector<KernelType> kinds;
  if (o.kernels == "all") {
    for (KernelType k : allKernelTypes())
      if (benchRuns(k))
        kinds.push_back(k);
  } else if (auto k = parseKernelType(o.kernels); k && benchRuns(*k)) {
    kinds = {*k};
  } else {
    errs("--kernel must be spmm, sddmm or all");
    return 1;
  }
  NvvmMeasurerOptions options;
  options.chip = o.chip;
  NvvmMeasurer measurer(options);

  if (o.emitModule || o.jitOnly) {
    std::string parseError;
    std::optional<Schedule> s =
        takeValue(parseSchedule(o.schedule), parseError);
    if (!s) {
      errs("--schedule: " + parseError);
      return 1;
    }
    KernelSpec spec;
    spec.kernel = s->kernel;
    spec.free = o.free;
    spec.elementBits = o.bits;
    llvm::Error failed = o.jitOnly
                             ? measurer.jitOnly(spec, o.rows, o.cols, *s)
                             : measurer.compileOnly(spec, o.rows, o.cols, *s);
    if (failed) {
      errs(llvm::toString(std::move(failed)));
      return 1;
    }
    if (o.jitOnly)
      llvm::outs() << "sptune-gpu-bench: JIT-compiled, entry points found\n";
    else
      llvm::outs() << measurer.lastModule();
    return 0;
  }

  if (o.matrices.empty()) {
    errs("no matrix given");
    return 1;
  }
  std::string device;
  if (std::string why = measurer.whyUnavailable(&device); !why.empty()) {
    errs(why);
    return 2;
  }
  llvm::errs() << "sptune-gpu-bench: device " << device << "\n";

  std::unique_ptr<llvm::raw_fd_ostream> jsonFile;
  if (!o.jsonPath.empty()) {
    std::error_code ec;
    jsonFile = std::make_unique<llvm::raw_fd_ostream>(o.jsonPath, ec,
                                                      llvm::sys::fs::OF_Text);
    if (ec) {
      errs("cannot write " + o.jsonPath + ": " + ec.message());
      return 1;
    }
  }
  auto emit = [&](const std::string &line) {
    if (jsonFile) {
      *jsonFile << line << "\n";
      jsonFile->flush();
    }
  };

  MeasureOptions mopts;
  mopts.warmups = o.warmups;
  mopts.minReps = o.minReps;
  mopts.maxReps = o.maxReps;
  mopts.minSeconds = o.minSeconds;
  mopts.timeoutSeconds = 60;
  int failures = 0;
  for (const std::string &source : o.matrices) {
    CooMatrix coo;
    MatrixInfo info;
    std::string error;
    if (takeErrorMessage(loadMatrix(source, coo, info), error)) {
      errs(error);
      ++failures;
      continue;
    }
    CsrMatrix m = CsrMatrix::fromCoo(std::move(coo));
    for (KernelType kernel : kinds) {
      KernelSpec spec;
      spec.kernel = kernel;
      spec.free = o.free;
      spec.elementBits = o.bits;
      if (std::string why = whyOverMemoryBudget(
              measurementBytes(spec, m.rows, m.cols, m.nnz()),
              std::string("the dense operands of ") + toString(kernel));
          !why.empty()) {
        errs(info.id + ": " + why);
        ++failures;
        continue;
      }
      Measurement base = measurer.measureCusparse(m, spec, mopts);
      emit(measurementJson(o, info.id, kernel, "cusparse", base));
      llvm::errs() << info.id << " " << toString(kernel)
                   << " cusparse: " << toString(base.status) << " "
                   << base.medianSeconds * 1e6 << " us " << base.reason << "\n";
      std::vector<std::string> list =
          o.schedules.empty() ? candidates(kernel) : split(o.schedules, ';');
      // The untuned choices measured too (unless in the list already): the
      // target's heuristic and its reference (MLIR's code generation).
      std::optional<Schedule> heuristic, reference;
      if (o.schedules.empty()) {
        if (llvm::Expected<const Target &> t =
                TargetRegistry::get(TargetKind::NVVM)) {
          heuristic = t->heuristicSchedule(kernel, nullptr, o.free);
          reference = t->referenceSchedule(kernel);
        } else {
          llvm::consumeError(t.takeError());
        }
      }
      Measurement heuristicM, referenceM;
      for (const auto &[untuned, slot] : {std::pair{&heuristic, &heuristicM},
                                          std::pair{&reference, &referenceM}})
        if (*untuned && llvm::none_of(list, [&](const std::string &text) {
              std::string ignored;
              std::optional<Schedule> p =
                  takeValue(parseSchedule(text), ignored);
              return p && *p == **untuned;
            }))
          list.push_back((*untuned)->str());
      std::string bestText, codegenText;
      Measurement best, codegen;
      for (const std::string &text : list) {
        std::string parseError;
        std::optional<Schedule> s = takeValue(parseSchedule(text), parseError);
        Measurement r;
        if (!s) {
          r.status = MeasureStatus::Illegal;
          r.reason = parseError;
        } else if (s->kernel != kernel) {
          continue;
        } else {
          r = measurer.measure(m, spec, *s, mopts);
        }
        emit(measurementJson(o, info.id, kernel, text, r));
        llvm::errs() << info.id << " " << toString(kernel) << " [" << text
                     << "]: " << toString(r.status) << " "
                     << r.medianSeconds * 1e6 << " us " << r.reason << "\n";
        if (s && heuristic && *s == *heuristic)
          heuristicM = r;
        if (s && reference && *s == *reference)
          referenceM = r;
        if (r.ok() && (!best.ok() || r.medianSeconds < best.medianSeconds)) {
          best = r;
          bestText = text;
        }
        if (r.ok() && !gpuKnobs(*s).libgen &&
            (!codegen.ok() || r.medianSeconds < codegen.medianSeconds)) {
          codegen = r;
          codegenText = text;
        }
      }
      std::string summary =
          "{\"matrix\":" + json(info.id) +
          ",\"kernel\":" + json(toString(kernel)) +
          ",\"rows\":" + std::to_string(m.rows) +
          ",\"cols\":" + std::to_string(m.cols) +
          ",\"nnz\":" + std::to_string(m.nnz()) +
          ",\"free\":" + std::to_string(o.free) +
          ",\"bits\":" + std::to_string(o.bits) +
          ",\"device\":" + json(device) + ",\"summary\":true" +
          ",\"cusparse_s\":" +
          (base.ok() ? number(base.medianSeconds) : "null") +
          ",\"tuned_s\":" + (best.ok() ? number(best.medianSeconds) : "null") +
          ",\"tuned_schedule\":" + json(bestText) + ",\"codegen_s\":" +
          (codegen.ok() ? number(codegen.medianSeconds) : "null") +
          ",\"codegen_schedule\":" + json(codegenText) + ",\"heuristic_s\":" +
          (heuristicM.ok() ? number(heuristicM.medianSeconds) : "null") +
          ",\"heuristic_schedule\":" +
          json(heuristic ? heuristic->str() : std::string()) +
          ",\"reference_s\":" +
          (referenceM.ok() ? number(referenceM.medianSeconds) : "null") +
          ",\"reference_schedule\":" +
          json(reference ? reference->str() : std::string()) + ",\"speedup\":" +
          (base.ok() && best.ok() && best.medianSeconds > 0
               ? number(base.medianSeconds / best.medianSeconds)
               : "null") +
          "}";
      emit(summary);
      llvm::outs() << summary << "\n";
      if (!base.ok() || !best.ok())
        ++failures;
    }
  }
  return failures ? 3 : 0;
}
