#!/usr/bin/env python3
"""Lists the public headers whose functions report failure through a string
out-parameter (`std::string &error`, `std::string *why = nullptr`, ...)
instead of llvm::Error / llvm::Expected, the convention at sptune's library
edges (../shared/DESIGN.md, issue 30). Public: what `cmake --install` ships,
include/, cost-model/include/ and the targets' headers.

  check-error-convention.py [--root DIR] [--max N]

Prints one line per parameter (`path:line: text`), then the number of headers;
exits 1 when there are more than N (default: no limit)."""
import argparse
import os
import re
import sys

# A non-const std::string reference or pointer parameter whose name says it
# carries a failure's message.
PARAM = re.compile(
    r'(?<!const )std::string\s*[&*]\s*'
    r'(\w*(?:err|Err|why|Why|message|Message|reason|Reason|diag)\w*)'
    r'\s*(?:=\s*nullptr)?\s*[,)]')

def public_headers(root):
    for top in ('include', os.path.join('cost-model', 'include'), 'targets'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith('.h'):
                    yield os.path.join(dirpath, f)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--max', type=int, default=None)
    args = ap.parse_args()
    root = os.path.normpath(args.root)
    offenders = []
    for path in sorted(public_headers(root)):
        text = open(path, encoding='utf-8').read()
        # Join declarations split over lines; keep line numbers by offset.
        hits = [m for m in PARAM.finditer(text)]
        if not hits:
            continue
        rel = os.path.relpath(path, root)
        offenders.append(rel)
        for m in hits:
            line = text.count('\n', 0, m.start()) + 1
            print(f'{rel}:{line}: {m.group(0).strip()}')
    print(f'{len(offenders)} public headers with string error out-parameters')
    if args.max is not None and len(offenders) > args.max:
        sys.stdout.flush()
        print(f'error: more than {args.max}', file=sys.stderr)
        return 1
    return 0

if __name__ == '__main__':
    sys.exit(main())
