#!/usr/bin/python3
"""Runs every fenced command of the user-facing docs on a built tree.

The docs checked are README.md, docs/torch.md and docs/python.md. Each fenced
block is one of:

- a command block (info string `sh`, `bash`, `python` or `cmake`): it is run
  as written, in a scratch copy of the checkout (symbolic links to the
  sources and to the build under test, so files the commands write land in
  the scratch directory), unless EQUIVALENTS below names a documented
  equivalent for it;
- a transcript (an untagged block whose first line starts with `$ `): its
  `$` command is run and must succeed (the output shown is one run's, not
  compared);
- anything else untagged (a synopsis, an output) is not a command.

Commands run with a `python3` first on PATH that is *not* Debian's (it
exits 1 with a message), the situation users meet with another Python
installed: a documented command must not depend on which `python3` comes
first. HOME and SPTUNE_CACHE point into the scratch directory.

An equivalent whose command no longer appears in the docs is an error too,
so the table cannot go stale; `--table` prints it as Markdown for
docs/doc-commands.md, which the lit test compares with this table.

Exit status: 0 when every block ran (or its equivalent did) and succeeded,
1 otherwise, with each failure's command, exit status and output tail.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

DOCS = ("README.md", "docs/torch.md", "docs/python.md")
COMMAND_INFOS = {"sh": "sh", "bash": "sh", "python": "python",
                 "cmake": "cmake"}

# The definitions docs/torch.md's snippet leaves to the reader (`adjacency`,
# B, x, P, Q), and afterwards a check of its results against torch's.
TORCH_PRELUDE = """\
import torch
torch.manual_seed(0)
adjacency = (torch.rand(300, 200) < 0.05).float() * torch.rand(300, 200)
B = torch.randn(200, 16)
x = torch.randn(200)
P = torch.randn(300, 16)
Q = torch.randn(16, 200)
"""
TORCH_EPILOGUE = """\
D = adjacency
assert torch.allclose(C, D @ B, rtol=1e-4, atol=1e-4), "spmm"
assert torch.allclose(y, D @ x, rtol=1e-4, atol=1e-4), "spmv"
assert torch.allclose(X.to_dense(), D * (P @ Q), rtol=1e-4, atol=1e-4), \\
    "sddmm"
print("docs/torch.md snippet: spmm, spmv, sddmm agree with torch")
"""

# Blocks that are not run verbatim, keyed by (doc, the start of the block's
# first command line). Each says what runs instead ("run": a shell script;
# "cmake-project": the block inside a CMake project; "python-prelude" /
# "python-epilogue": code around the block) and why.
EQUIVALENTS = {
    ("README.md", "bash scripts/run-example.sh"): {
        "run": "SPTUNE_SKIP_SETUP=1 bash scripts/run-example.sh",
        "why": "command 1 without its set-up (apt-get and the build: the "
               "build under test is already there); command 2 is the test "
               "suite this test is part of",
    },
    ("README.md", "cmake --install build --prefix /opt/sptune"): {
        "run": "cmake --install build --prefix \"$PWD/prefix\" >/dev/null && "
               "test -x prefix/bin/sptune-opt && "
               "prefix/bin/sptune --help >/dev/null",
        "why": "installs into the scratch directory instead of /opt, and "
               "checks that the installed sptune-opt is there and the "
               "installed sptune command runs",
    },
    ("README.md", "find_package(Sptune REQUIRED CONFIG)"): {
        "cmake-project": True,
        "why": "a CMake fragment: it becomes the body of a project whose "
               "my-opt.cpp registers sptune (sptune/InitAll.h) in "
               "MlirOptMain; configured against the install of the block "
               "before with LibTorch hidden "
               "(-DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON), built, and run "
               "(its --help lists --sptune-autotune)",
    },
    ("docs/python.md", "/usr/lib/llvm-22/bin/lit -v build/test/Python"): {
        "run": "PYTHONPATH=python /usr/bin/python3 -m unittest "
               "tests.test_cli tests.test_report",
        "why": "the block's second command (the same tests without lit); "
               "its first, lit on build/test/Python, is part of the suite "
               "this test belongs to",
    },
    ("docs/torch.md", "import torch"): {
        "python-prelude": TORCH_PRELUDE,
        "python-epilogue": TORCH_EPILOGUE,
        "why": "the snippet leaves `adjacency`, B, x, P and Q to the reader: "
               "a prelude defines them (300 x 200, 5% dense, float32) and an "
               "epilogue compares the three results with torch's",
    },
}

# The project around the README's CMake fragment (EQUIVALENTS, "cmake-
# project"): @FRAGMENT@ is the block, verbatim.
CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(my-compiler LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
add_executable(my-opt my-opt.cpp)
@FRAGMENT@
"""
MY_OPT_CPP = """\
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "sptune/InitAll.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::sptune::registerAllSptuneDialects(registry);
  mlir::sptune::registerAllSptunePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "my-opt", registry));
}
"""
CMAKE_SCRIPT = """\
rm -rf my-compiler && mkdir -p my-compiler
cp "$DOC_CMAKE_LISTS" my-compiler/CMakeLists.txt
cp "$DOC_MY_OPT_CPP" my-compiler/my-opt.cpp
cmake -S my-compiler -B my-compiler/build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PWD/prefix" -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON \
  > my-compiler/configure.log 2>&1 || { tail -30 my-compiler/configure.log; exit 1; }
cmake --build my-compiler/build > my-compiler/build.log 2>&1 \
  || { tail -30 my-compiler/build.log; exit 1; }
my-compiler/build/my-opt --help > my-compiler/help.txt
grep -q -- --sptune-autotune my-compiler/help.txt
"""

# docs/python.md: "Below, `python3 -m sptune` stands for either" (the
# build's `sptune` command or the package run by hand): the test takes the
# build's command, since bare `python3` is not Debian's here.
SUBSTITUTIONS = {
    "docs/python.md": [("python3 -m sptune", "build/bin/sptune")],
}


class Block:
    def __init__(self, doc, line, info, text):
        self.doc, self.line, self.info, self.text = doc, line, info, text

    @property
    def first_command(self):
        for line in self.text.splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return stripped.lstrip("$ ").strip()
        return ""

    @property
    def kind(self):
        if self.info in COMMAND_INFOS:
            return COMMAND_INFOS[self.info]
        first = self.text.lstrip("\n").splitlines()[0] if self.text.strip() \
            else ""
        if not self.info and first.startswith("$ "):
            return "transcript"
        return None


def fenced_blocks(source, doc):
    """The fenced blocks of one Markdown file, in order."""
    blocks, inside, info, start, lines = [], False, "", 0, []
    with open(os.path.join(source, doc), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = re.match(r"^\s*```\s*([\w+-]*)\s*$", line)
            if fence and not inside:
                inside, info, start, lines = True, fence.group(1), number, []
            elif fence and inside and not fence.group(1):
                blocks.append(Block(doc, start, info, "".join(lines)))
                inside = False
            elif inside:
                lines.append(line)
    if inside:
        raise SystemExit(f"doc_commands: {doc}:{start}: unterminated fence")
    return blocks


def transcript_command(text):
    """The `$` command of a transcript, continuation lines joined."""
    out, taking = [], False
    for line in text.splitlines():
        if line.startswith("$ "):
            out, taking = [line[2:]], line.rstrip().endswith("\\")
        elif taking:
            out.append(line)
            taking = line.rstrip().endswith("\\")
        elif out:
            break
    return "\n".join(out)


def substitute(doc, text):
    """The doc's substitutions, of a bare command word only (not the end of
    a path such as /usr/bin/python3)."""
    for old, new in SUBSTITUTIONS.get(doc, []):
        text = re.sub(r"(?<![/\w.-])" + re.escape(old), new, text)
    return text


def scratch_checkout(source, build, shared, work):
    """work/repo: links to every top-level entry of the checkout and to the
    build under test; work/shared: the shared matrices, or generated ones
    of the names the docs use when there are none."""
    source, work = os.path.abspath(source), os.path.abspath(work)
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    for name in os.listdir(source):
        if name in ("build", ".git", ".cache") or name.startswith("."):
            continue
        os.symlink(os.path.join(source, name), os.path.join(repo, name))
    os.symlink(os.path.abspath(build), os.path.join(repo, "build"))
    if shared and os.path.isdir(os.path.join(shared, "matrices")):
        os.symlink(os.path.abspath(shared), os.path.join(work, "shared"))
    else:
        matrices = os.path.join(work, "shared", "matrices")
        os.makedirs(matrices)
        # HB_bcsstk13 (docs/python.md) is a 2003 x 2003 structural
        # stiffness matrix; a banded matrix of that size stands in for it.
        subprocess.run([os.path.join(build, "bin", "sptune-matrix"), "gen",
                        "gen:banded:rows=2003,nnz=83883,bw=40,seed=1",
                        "-o", os.path.join(matrices, "HB_bcsstk13.mtx")],
                       check=True, stdout=subprocess.DEVNULL)
    fake = os.path.join(work, "not-debian-python")
    os.makedirs(fake)
    with open(os.path.join(fake, "python3"), "w") as f:
        f.write("#!/bin/sh\necho 'python3: this is not Debian'\"'\"'s "
                "python3 (doc_commands puts it first on PATH)' >&2\n"
                "exit 1\n")
    os.chmod(os.path.join(fake, "python3"), 0o755)
    env = dict(os.environ)
    env["PATH"] = fake + os.pathsep + env.get("PATH", "")
    env["HOME"] = os.path.join(work, "home")
    env["SPTUNE_CACHE"] = os.path.join(work, "cache")
    for var in ("PYTHONPATH", "SPTUNE_BIN", "SPTUNE_AUTOTUNE"):
        env.pop(var, None)
    os.makedirs(env["HOME"])
    return repo, env


def equivalent_key(block):
    """The EQUIVALENTS key of a block, or None."""
    for doc, start in EQUIVALENTS:
        if doc == block.doc and block.first_command.startswith(start):
            return doc, start
    return None


def script_of(block):
    """(interpreter, script text, note) for a block, or None for a block
    that is not a command; the note says when it is not run verbatim."""
    key = equivalent_key(block)
    equivalent = EQUIVALENTS.get(key) if key else None
    kind = block.kind
    if equivalent and "run" in equivalent:
        return ("sh", equivalent["run"], equivalent["why"])
    if equivalent and equivalent.get("cmake-project"):
        return ("cmake", block.text, equivalent["why"])
    if kind == "python":
        text = block.text
        note = None
        if equivalent:
            text = (equivalent.get("python-prelude", "") + text +
                    equivalent.get("python-epilogue", ""))
            note = equivalent["why"]
        return ("python", text, note)
    if kind == "sh":
        return ("sh", substitute(block.doc, block.text), None)
    if kind == "transcript":
        return ("sh", substitute(block.doc, transcript_command(block.text)),
                "the transcript's $ command")
    if kind == "cmake":
        raise SystemExit(f"doc_commands: {block.doc}:{block.line}: a cmake "
                         f"block without an equivalent in EQUIVALENTS")
    return None


def run_block(block, how, repo, env, timeout):
    interpreter, text, _ = how
    if interpreter == "python":
        env = dict(env, PYTHONPATH=os.path.join(repo, "python"))
        argv = ["/usr/bin/python3", "-c", text]
    elif interpreter == "cmake":
        lists = os.path.join(repo, "doc-CMakeLists.txt")
        source = os.path.join(repo, "doc-my-opt.cpp")
        with open(lists, "w") as f:
            f.write(CMAKE_PROJECT.replace("@FRAGMENT@", text))
        with open(source, "w") as f:
            f.write(MY_OPT_CPP)
        env = dict(env, DOC_CMAKE_LISTS=lists, DOC_MY_OPT_CPP=source)
        argv = ["bash", "-e", "-o", "pipefail", "-c", CMAKE_SCRIPT]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", text]
    try:
        done = subprocess.run(argv, cwd=repo, env=env, timeout=timeout,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s"
    tail = "\n".join(done.stdout.splitlines()[-25:])
    return done.returncode == 0, f"exit status {done.returncode}\n{tail}"


def markdown_table():
    rows = ["| doc | command in the doc | what the test runs instead | why |",
            "|---|---|---|---|"]
    for (doc, command), eq in EQUIVALENTS.items():
        if eq.get("cmake-project"):
            instead = "a CMake project around it, configured, built, run"
        elif "run" in eq:
            instead = f"`{eq['run']}`"
        else:
            instead = "the snippet between a prelude and an epilogue"
        rows.append(f"| {doc} | `{command}` | {instead.replace('|', '&#124;')}"
                    f" | {eq['why']} |")
    for doc, subs in SUBSTITUTIONS.items():
        for old, new in subs:
            rows.append(f"| {doc} | every `{old}` | `{new}` | the doc says "
                        f"`{old}` stands for either |")
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the checkout")
    parser.add_argument("--build", help="the build under test")
    parser.add_argument("--shared", help="the shared data (../shared)")
    parser.add_argument("--work", help="an empty scratch directory")
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds per block (default 900)")
    parser.add_argument("--table", action="store_true",
                        help="print the equivalents as Markdown and exit")
    parser.add_argument("--list", action="store_true",
                        help="print what would run and exit")
    args = parser.parse_args(argv)
    if args.table:
        sys.stdout.write(markdown_table())
        return 0

    blocks = [b for doc in DOCS for b in fenced_blocks(args.source, doc)]
    seen = {equivalent_key(b) for b in blocks}
    stale = [k for k in EQUIVALENTS if k not in seen]
    plan = [(b, script_of(b)) for b in blocks]
    plan = [(b, how) for b, how in plan if how is not None]
    if args.list:
        for b, (interp, text, note) in plan:
            print(f"{b.doc}:{b.line} [{interp}] {b.first_command}"
                  + (f"  -- {note}" if note else ""))
        for k in stale:
            print(f"STALE equivalent: {k}")
        return 1 if stale else 0
    if not (args.build and args.work):
        parser.error("--build and --work are needed to run the commands")
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    repo, env = scratch_checkout(args.source, args.build, args.shared,
                                 args.work)
    failures = [f"{doc}: no block starts with `{cmd}` any more (stale "
                f"equivalent in doc_commands.py)" for doc, cmd in stale]
    for i, (b, how) in enumerate(plan, 1):
        start = time.monotonic()
        ok, detail = run_block(b, how, repo, env, args.timeout)
        seconds = time.monotonic() - start
        status = "ok" if ok else "FAILED"
        note = f" ({how[2]})" if how[2] else ""
        print(f"[{i}/{len(plan)}] {status} {b.doc}:{b.line} "
              f"`{b.first_command}`{note} in {seconds:.1f} s", flush=True)
        if not ok:
            failures.append(f"{b.doc}:{b.line}: `{b.first_command}`: "
                            + textwrap.indent(detail, "    ").lstrip())
    if failures:
        print("\n".join(["", "doc_commands: failures:"] + failures),
              file=sys.stderr)
        return 1
    print(f"doc_commands: all {len(plan)} command blocks of "
          f"{', '.join(DOCS)} ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
