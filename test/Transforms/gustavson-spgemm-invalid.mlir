// RUN: sptune-opt %s --sptune-cpu-sparsify=gustavson-one-pass-bytes=-1 -verify-diagnostics
// RUN: not sptune-opt %s --sptune-cpu-sparsify=threads=-2 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: sptune-cpu-sparsify: threads must be -1 (from the schedules) or in [0, {{[0-9]+}}], got -2

// expected-error @+1 {{gustavson-one-pass-bytes must not be negative, got -1}}
module {
}
