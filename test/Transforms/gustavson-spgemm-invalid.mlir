// RUN: sptune-opt %s --sptune-cpu-sparsify=gustavson-one-pass-bytes=-1 -verify-diagnostics

// expected-error @+1 {{gustavson-one-pass-bytes must not be negative, got -1}}
module {
}
