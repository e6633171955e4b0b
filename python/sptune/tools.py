"""Where sptune's executables are, for the Python side.

Looked up in this order:
  1. the directory in the SPTUNE_BIN environment variable;
  2. a build tree: <repository>/build/bin next to this package's source;
  3. an installed prefix: <prefix>/bin when the package is installed under
     <prefix>/lib/python3/dist-packages/sptune (what `cmake --install` does);
  4. the PATH.
"""

import os
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))


class ToolNotFound(RuntimeError):
    pass


def _candidate_dirs():
    env = os.environ.get("SPTUNE_BIN")
    if env:
        yield env
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "build", "bin"))
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "..", "..", "bin"))


def tool(name):
    """The absolute path of sptune executable `name` (e.g. "sptune-opt")."""
    for d in _candidate_dirs():
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise ToolNotFound(
        f"sptune: cannot find '{name}' (set SPTUNE_BIN to the directory of "
        f"sptune's executables, build the repository with scripts/build.sh, or "
        f"put an installed sptune's bin/ on the PATH)")


def llvm_tool(name):
    """An LLVM 22 executable (mlir-translate, clang, ...): Debian's
    /usr/lib/llvm-22/bin, else `<name>-22` or `<name>` on the PATH."""
    path = os.path.join("/usr/lib/llvm-22/bin", name)
    if os.path.isfile(path):
        return path
    for candidate in (name + "-22", name):
        found = shutil.which(candidate)
        if found:
            return found
    raise ToolNotFound(f"sptune: cannot find LLVM 22's '{name}' "
                       f"(Debian package llvm-22 / clang-22 / mlir-22-tools)")


def llvm_lib_dir():
    """The directory of libmlir_c_runner_utils.so and libomp.so."""
    return "/usr/lib/llvm-22/lib"


def clang_builtins_flags(clang=None):
    """clang's flags to link its runtime builtins (compiler-rt) into a
    library, when installed for its target (Debian package
    libclang-rt-22-dev): code on bf16 calls __truncsfbf2 on CPUs without
    AVX512-BF16, and libgcc before GCC 13 (Debian 12's) does not define it.
    [] when they are not installed (libgcc's builtins then, as before).
    Asked of `clang` itself (default: llvm_tool("clang")), which names the
    archive it would link."""
    clang = clang or llvm_tool("clang")
    try:
        p = subprocess.run([clang, "--rtlib=compiler-rt", "-print-libgcc-file-name"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    archive = p.stdout.strip()
    if p.returncode == 0 and archive and os.path.isfile(archive):
        return ["--rtlib=compiler-rt"]
    return []
