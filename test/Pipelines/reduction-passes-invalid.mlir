// sptune-jam-reductions refuses a factor outside 1 to 16.
//
// RUN: sptune-opt %s -verify-diagnostics --sptune-jam-reductions=factor=0 -split-input-file
// RUN: sptune-opt %s -verify-diagnostics --sptune-jam-reductions=factor=17 -split-input-file

// expected-error @+1 {{sptune-jam-reductions: factor must be 1 to 16, got}}
func.func @f() attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  return
}
