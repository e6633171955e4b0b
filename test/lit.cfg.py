# -*- Python -*-
# lit configuration of the sptune test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SPTUNE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sptune_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# The shipped model's guard trusts the model less on a CPU it was not
# trained on (cost-model/README.md, "The guard"), so release-mode decisions
# depend on the machine. The tests run as on the model's own machine;
# test/Transforms/autotune-guard.test checks another one.
config.environment["SPTUNE_GUARD_MACHINE"] = "Intel(R) Xeon(R) Processor"
# Release mode takes a model `sptune-learn adapt` made for this machine from
# the user's cache: the tests see none (test/Learn/adapt.test makes its own
# in a cache of its own).
config.environment["SPTUNE_ADAPTED_MODELS"] = "0"
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%sptune_src_root", config.sptune_src_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%sptune_build_root", config.sptune_obj_root))
# The configure arguments of a project built against an installed sptune
# (test/Install): sptune's generator, compilers (ccache too), build type,
# MLIR and lit.
cmake_args = [
    '-G "%s"' % config.cmake_generator,
    "-DCMAKE_MAKE_PROGRAM=" + config.cmake_make_program,
    "-DCMAKE_BUILD_TYPE=" + config.cmake_build_type,
    "-DCMAKE_C_COMPILER=" + config.c_compiler,
    "-DCMAKE_CXX_COMPILER=" + config.cxx_compiler,
    "-DMLIR_DIR=" + config.mlir_dir,
    "-DLLVM_EXTERNAL_LIT=" + config.lit_command,
]
if config.ccache_program and not config.ccache_program.endswith("-NOTFOUND"):
    cmake_args += ["-DCMAKE_C_COMPILER_LAUNCHER=" + config.ccache_program,
                   "-DCMAKE_CXX_COMPILER_LAUNCHER=" + config.ccache_program]
config.substitutions.append(("%cmake_project_args", " ".join(cmake_args)))
# After %cmake_project_args: lit substitutes in order, %cmake is its prefix.
config.substitutions.append(("%cmake", config.cmake_command))

# Runtime libraries for executed tests (mlir-runner -shared-libs=...).
lib = config.llvm_lib_dir
config.substitutions.append(("%mlir_lib_dir", lib))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(lib, "libmlir_c_runner_utils.so")))
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(lib, "libmlir_runner_utils.so")))
config.substitutions.append(("%omp_lib", os.path.join(lib, "libomp.so")))
config.substitutions.append(
    ("%shared_matrices",
     os.path.normpath(os.path.join(config.sptune_src_root, "..", "shared",
                                   "matrices"))))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                   "CCACHE_DIR"])
llvm_config.use_default_substitutions()
# `not`, `split-file` & co at the start of a RUN line come from PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.sptune_tools_dir, config.llvm_tools_dir]
tools = [
    "sptune-opt",
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
]
for optional in ["sptune-collect", "sptune-train", "sptune-matrix",
                 "sptune-measure", "spade-sim", "sptune-fuzz",
                 "sptune-learn", "sptune-db", "sptune-guard"]:
    tools.append(ToolSubst(optional, unresolved="ignore"))
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Features.
if os.path.isdir(os.path.normpath(os.path.join(config.sptune_src_root, "..",
                                               "shared", "matrices"))):
    config.available_features.add("shared-matrices")
# Two CPUs this process may run on (not only online: taskset narrows it).
if len(os.sched_getaffinity(0)) >= 2:
    config.available_features.add("multicore")
if config.have_torch:
    config.available_features.add("torch")
if config.have_torch_baseline:
    config.available_features.add("torch-baseline")
if config.have_cuda_toolkit:
    config.available_features.add("cuda-toolkit")
    # A CUDA device exists only if the driver sees one.
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True,
                                 timeout=20)
            if out.returncode == 0 and "GPU" in out.stdout:
                config.available_features.add("cuda-device")
        except (OSError, subprocess.TimeoutExpired):
            pass
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# A running Slurm (scripts/local-slurm.sh start; scripts/test.sh starts one
# before check-sptune): the Slurm backend's integration test.
_slurm_script = os.path.join(config.sptune_src_root, "scripts", "local-slurm.sh")
if shutil.which("sbatch") and shutil.which("squeue"):
    try:
        if subprocess.run(["bash", _slurm_script, "status"],
                          capture_output=True, timeout=30).returncode == 0:
            config.available_features.add("slurm")
    except (OSError, subprocess.TimeoutExpired):
        pass
