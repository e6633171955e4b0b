//===- NvvmPasses.td - Passes of the NVVM target ------------*- tablegen -*-===//

#ifndef SPTUNE_TARGETS_NVVM_NVVMPASSES_TD
#define SPTUNE_TARGETS_NVVM_NVVMPASSES_TD

include "mlir/Pass/PassBase.td"

def NvvmLibgenForm : Pass<"sptune-nvvm-libgen-form", "ModuleOp"> {
  let summary = "Give cuSPARSE-bound kernels the form upstream's matcher "
                "expects";
  let description = [{
    For each kernel whose `#sptune.schedule` asks for the cuSPARSE path
    (`nvvm ..., libgen = true`): sptune-apply-schedule left it in level space
    (sparse operands behind `sparse_tensor.reinterpret_map`) with its loops
    in the scheduled order, while upstream's library matcher
    (sparse-gpu-codegen with zero threads) recognizes only the dimension-space
    op with canonical loops (output loops first, then the reduction). This
    pass rebuilds that op exactly: every dimension of every operand is
    re-expressed through the encoding's lvlToDim map, each distinct index
    expression becomes one loop again, and the body is kept. The kernel's
    meaning does not change; the library picks its own loop order. Kernels
    that cannot be rebuilt (tiled loops, `linalg.index` in the body) get an
    error.
  }];
}

def NvvmSparsify : Pass<"sptune-nvvm-sparsify", "ModuleOp"> {
  let summary = "Sparsify, bufferize and outline GPU kernels or cuSPARSE "
                "calls with the settings of the schedules";
  let description = [{
    Checks every `nvvm` schedule with the GPU rules (`whyIllegalForNvvm`),
    then runs upstream's sparsification-and-bufferization mini-pipeline
    (outer-loop parallelization; the cuSPARSE matcher when the schedules ask
    for the library path) followed by sparse-gpu-codegen, which outlines each
    outermost parallel loop into a `gpu.func` in `gpu.module
    @sparse_kernels`. GPU code generation and library calls are module-wide
    settings of the sparsifier: when the schedules ask for both, both are
    on, and each kernel scheduled for code generation gets an unread scalar
    operand that keeps upstream's cuSPARSE matcher off it.

    Afterwards each function must have as many cuSPARSE calls as kernels
    scheduled for them and a launch per kernel scheduled for code
    generation; one that does not is an error that says why, instead of a
    silent host fallback.
    Remaining parallel loops of unscheduled functions get a warning.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"-1",
           "GPU threads of sparse-gpu-codegen (-1 = from the schedules)">,
    Option<"enableRuntimeLibrary", "enable-runtime-library", "bool",
           /*default=*/"false",
           "Lower sparse tensors through MLIR's sparse runtime library "
           "(needed by the cuSPARSE path for COO)">,
  ];
}

def NvvmCopyBack : Pass<"sptune-nvvm-copy-back", "ModuleOp"> {
  let summary = "Copy back the buffers outlined GPU kernels write";
  let description = [{
    Upstream's sparse-gpu-codegen (mlir 22.1) assumes that the first buffer
    passed to an outlined kernel is its output: it copies that buffer back
    to the host after the launch and frees the others. The first buffer is
    usually the positions array, so the real output (the dense C of an
    SpMM, the values of an in-place SDDMM) never comes back. This pass
    decides from the kernel body which buffer arguments the kernel writes
    and, for each launch, copies exactly those back to the host buffer they
    were uploaded from (after the launch, before the device buffer is
    freed), and drops the copies of buffers the kernel only reads. Upstream
    also frees the other buffers on fresh streams unordered with the kernel;
    every free of a kernel buffer is made to wait for the launch.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def NvvmLaunchConfig : Pass<"sptune-nvvm-launch-config", "ModuleOp"> {
  let summary = "Set block and grid sizes of outlined sparse kernels";
  let description = [{
    Upstream launches each outlined sparse kernel as one block of
    `num-threads` threads, which occupies a single multiprocessor. The
    kernels iterate their outer loop with a grid-stride loop, so any grid is
    correct: this pass sets the block size of each launch to the thread
    count sptune-nvvm-sparsify recorded on it from its kernel's schedule,
    else that of the function's `#sptune.schedule` (or the option),
    and the grid to enough blocks for one outer iteration per thread
    (ceil(N / threads), at least 1), or to a fixed block count. The
    function's schedule attribute is consumed (removed), so the lowered
    module does not depend on sptune.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"-1",
           "Threads per block (-1 = from the schedule, else 1..1024)">,
    Option<"blocks", "blocks", "int", /*default=*/"-1",
           "Blocks per launch (-1 = cover the outer loop, else a fixed "
           "count; 1 = upstream's single block)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
}

def NvvmToBinary : Pass<"sptune-nvvm-to-binary", "ModuleOp"> {
  let summary = "Serialize the GPU modules to PTX, cubin or fatbin";
  let description = [{
    Runs upstream's gpu-module-to-binary on the module with a checked
    format. `isa` (PTX text) needs nothing but LLVM's NVPTX backend; `bin`
    (cubin) and `fatbin` need the CUDA toolkit's `ptxas` (and `fatbinary`
    for fatbin). The tools are looked up in `cuda-path`/bin when that option
    is set (and only there), else in $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH,
    /usr/local/cuda (their bin folders) and PATH; when they are missing the
    pass fails with a message naming the places it looked.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "isa (PTX), bin (cubin) or fatbin">,
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"\"",
           "CUDA toolkit root to take ptxas from (default: search)">,
  ];
}

#endif // SPTUNE_TARGETS_NVVM_NVVMPASSES_TD
