//===- NvvmToBinary.cpp - sptune-nvvm-to-binary ---------------------------===//
//
// Upstream's gpu-module-to-binary with checked inputs: the format is one of
// isa/bin/fatbin, the attached NVVM targets name a plausible chip and PTX
// features, and the CUDA tools a cubin or fatbin needs are found before
// serialization starts (upstream reports a missing ptxas only from deep
// inside serialization). The LLVM IR translations serialization needs are
// registered by the pass itself, so any tool linking it can run it.
//
//===----------------------------------------------------------------------===//

#include "nvvm/NvvmPasses.h"
#include "sptune/Support/UpstreamCrash.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_NVVMTOBINARY
#include "nvvm/NvvmPasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {

/// Where a CUDA tool was found: the toolkit root to hand to
/// gpu-module-to-binary (empty when found on PATH only) and the places
/// searched, for the error message.
struct ToolSearch {
  bool found = false;
  std::string toolkit;
  std::vector<std::string> searched;
};

/// Finds `tools` (all in one toolkit's bin folder, or all on PATH).
ToolSearch findCudaTools(ArrayRef<StringRef> tools, StringRef cudaPath) {
  ToolSearch result;
  std::vector<std::string> roots;
  if (!cudaPath.empty()) {
    roots.push_back(cudaPath.str());
  } else {
    for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
      if (const char *value = std::getenv(var); value && *value)
        roots.push_back(value);
    roots.push_back(NVVM::getCUDAToolkitPath().str());
    roots.push_back("/usr/local/cuda");
  }
  for (const std::string &root : roots) {
    if (root.empty() || llvm::is_contained(result.searched, root + "/bin"))
      continue;
    result.searched.push_back(root + "/bin");
    bool all = llvm::all_of(tools, [&](StringRef tool) {
      SmallString<256> path(root);
      llvm::sys::path::append(path, "bin", tool);
      return llvm::sys::fs::can_execute(path);
    });
    if (all) {
      result.found = true;
      result.toolkit = root;
      return result;
    }
  }
  if (!cudaPath.empty())
    return result; // an explicit toolkit is the only place to look
  result.searched.push_back("PATH");
  result.found = llvm::all_of(tools, [](StringRef tool) {
    return static_cast<bool>(llvm::sys::findProgramByName(tool));
  });
  return result;
}

struct NvvmToBinaryPass
    : public mlir::sptune::impl::NvvmToBinaryBase<NvvmToBinaryPass> {
  using NvvmToBinaryBase::NvvmToBinaryBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    NvvmToBinaryBase::getDependentDialects(registry);
    registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    registerBuiltinDialectTranslation(registry);
    registerGPUDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerNVVMDialectTranslation(registry);
    gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string target = llvm::StringSwitch<std::string>(format)
                             .Cases({"isa", "assembly"}, "isa")
                             .Cases({"bin", "binary"}, "bin")
                             .Cases({"fatbin", "fatbinary"}, "fatbin")
                             .Default("");
    if (target.empty()) {
      module.emitError("sptune-nvvm-to-binary: unknown format '")
          << format << "' (expected isa, bin or fatbin)";
      return signalPassFailure();
    }
    if (failed(checkTargets(module)))
      return signalPassFailure();

    GpuModuleToBinaryPassOptions options;
    options.compilationTarget = target;
    // Only device code needs the CUDA tools (the cuSPARSE path has none).
    bool deviceCode = !module.getOps<gpu::GPUModuleOp>().empty();
    if (target != "isa" && deviceCode) {
      SmallVector<StringRef, 2> tools = {"ptxas"};
      if (target == "fatbin")
        tools.push_back("fatbinary");
      ToolSearch search = findCudaTools(tools, cudaPath);
      if (!search.found) {
        InFlightDiagnostic d = module.emitError("sptune-nvvm-to-binary: format=")
                               << target << " needs "
                               << llvm::join(tools, " and ")
                               << " from the CUDA toolkit; not found in ";
        d << llvm::join(search.searched, ", ")
          << " (set cuda-path=<toolkit root>, or use format=isa for PTX, "
             "which needs no CUDA)";
        return signalPassFailure();
      }
      options.toolkitPath = search.toolkit;
    }
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGpuModuleToBinaryPass(options));
    if (failed(::sptune::runContainingCrashes(
            module, "sptune-lower-nvvm: GPU code generation",
            [&] { return runPipeline(pm, module); })))
      signalPassFailure();
  }

  /// Every GPU module must carry NVVM targets with a chip sm_XY[a|f] and
  /// features made of +ptxXY.
  LogicalResult checkTargets(ModuleOp module) {
    llvm::Regex chip("^sm_[0-9]{2,3}[af]?$");
    llvm::Regex feature("^\\+ptx[0-9]{2,3}$");
    bool ok = true;
    module.walk([&](gpu::GPUModuleOp gpuModule) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      if (!targets || targets.empty()) {
        gpuModule.emitError("sptune-nvvm-to-binary: no target attached to "
                            "this GPU module (run nvvm-attach-target first)");
        ok = false;
        return;
      }
      for (Attribute a : targets) {
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(a);
        if (!nvvm)
          continue;
        if (!chip.match(nvvm.getChip())) {
          gpuModule.emitError("sptune-nvvm-to-binary: unknown chip '")
              << nvvm.getChip() << "' (expected sm_XY, e.g. sm_80, sm_90a)";
          ok = false;
        }
        SmallVector<StringRef> features;
        StringRef(nvvm.getFeatures())
            .split(features, ',', -1, /*KeepEmpty=*/false);
        for (StringRef f : features)
          if (!feature.match(f.trim())) {
            gpuModule.emitError("sptune-nvvm-to-binary: unknown feature '")
                << f << "' (expected +ptxXY, e.g. +ptx80)";
            ok = false;
          }
      }
    });
    return success(ok);
  }
};
} // namespace
