// sptune's Gustavson SpGEMM kernel calls libc's exit(int) when an allocation
// fails; a module whose own `exit` has another type gets an error on it, not
// a call of the wrong function.
//
// RUN: sptune-opt %s --linalg-generalize-named-ops --sptune-cpu-sparsify -verify-diagnostics

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// expected-error @+1 {{sptune: the Gustavson kernel calls libc's exit, but the module defines 'exit' as}}
func.func private @exit(i64)

func.func @spgemm(%a: tensor<5x4xf64, #CSR>, %b: tensor<4x6xf64, #CSR>) -> tensor<5x6xf64, #CSR> {
  %e = tensor.empty() : tensor<5x6xf64, #CSR>
  %r = linalg.matmul ins(%a, %b : tensor<5x4xf64, #CSR>, tensor<4x6xf64, #CSR>)
                     outs(%e : tensor<5x6xf64, #CSR>) -> tensor<5x6xf64, #CSR>
  return %r : tensor<5x6xf64, #CSR>
}
