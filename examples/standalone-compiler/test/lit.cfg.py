# -*- Python -*-
# lit configuration of standalone-compiler's tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "STANDALONE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.standalone_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%sptune_models", config.sptune_models_dir))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# standalone-opt from this build; FileCheck & co from LLVM. Nothing of
# sptune's own build is used: its libraries are linked into standalone-opt.
llvm_config.add_tool_substitutions(
    ["standalone-opt"], [config.standalone_tools_dir, config.llvm_tools_dir])

if config.sptune_have_torch:
    config.available_features.add("sptune-torch")
