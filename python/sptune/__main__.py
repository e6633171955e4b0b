"""sptune's command line: `python3 -m sptune COMMAND ...`.

Commands:
  tune     autotune a kernel for a matrix, print and measure the schedule
  report   turn results JSON into one self-contained HTML page
"""

import argparse
import sys

from sptune import cli_tune, report
from sptune.errors import SptuneError


def parser():
    ap = argparse.ArgumentParser(
        prog="python3 -m sptune",
        description="sptune: learned autotuning of sparse kernels in MLIR (docs/python.md)")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    sub.required = True
    cli_tune.register(sub)
    report.register(sub)
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except SptuneError as e:
        print(f"sptune {args.command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"sptune {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        # A file we were asked to read or write (--json, --save-ir, -o, ...).
        where = f"'{e.filename}': " if e.filename else ""
        print(f"sptune {args.command}: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
