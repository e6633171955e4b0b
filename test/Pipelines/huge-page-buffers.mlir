// sptune-huge-page-buffers: a scheduled kernel's buffers of at least
// min-bytes start on a 2 MiB boundary and are advised onto transparent huge
// pages; smaller ones, and functions without a schedule (but for the
// allocations marked sptune.huge_page_buffer), are left alone.
//
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-huge-page-buffers | FileCheck %s
// RUN: sptune-opt %s -split-input-file -verify-diagnostics --sptune-huge-page-buffers=min-bytes=1024 | FileCheck %s --check-prefix=SMALL

// A dynamic size: the choice is made at run time (4 bytes x n x 64 against
// 4 MiB), and madvise covers [round up(base), round down(base + bytes)).
// CHECK:       func.func private @madvise(!llvm.ptr, i64, i32) -> i32
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[N:.*]]: index)
// CHECK:         %[[EB:.*]] = arith.constant 4 : index
// CHECK:         %[[E:.*]] = arith.muli %[[EB]], %[[N]] : index
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[BYTES:.*]] = arith.muli %[[E]], %[[C64]] : index
// CHECK:         %[[MIN:.*]] = arith.constant 4194304 : index
// CHECK:         %[[LARGE:.*]] = arith.cmpi sge, %[[BYTES]], %[[MIN]] : index
// CHECK:         %[[BUF:.*]] = scf.if %[[LARGE]] -> (memref<?x64xf32>) {
// CHECK:           memref.alloc(%[[N]]) {alignment = 2097152 : i64}
// CHECK:         } else {
// CHECK:           memref.alloc(%[[N]]) {alignment = 64 : i64}
// CHECK:         }
// CHECK:         %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK:         %[[LESS1:.*]] = arith.constant 2097151 : index
// CHECK:         %[[MASK:.*]] = arith.constant -2097152 : index
// CHECK:         %[[UP:.*]] = arith.addi %[[BASE]], %[[LESS1]]
// CHECK:         %[[START:.*]] = arith.andi %[[UP]], %[[MASK]] :
// CHECK:         %[[ENDB:.*]] = arith.addi %[[BASE]], %[[BYTES]]
// CHECK:         %[[END:.*]] = arith.andi %[[ENDB]], %[[MASK]] :
// CHECK:         %[[PAGES:.*]] = arith.cmpi ugt, %[[END]], %[[START]]
// CHECK:         %[[GO:.*]] = arith.andi %[[LARGE]], %[[PAGES]]
// CHECK:         scf.if %[[GO]] {
// CHECK:           %[[S64:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK:           %[[PTR:.*]] = llvm.inttoptr %[[S64]] : i64 to !llvm.ptr
// CHECK:           %[[DIFF:.*]] = arith.subi %[[END]], %[[START]]
// CHECK:           %[[LEN:.*]] = arith.index_cast %[[DIFF]] : index to i64
// CHECK:           %[[ADV:.*]] = arith.constant 14 : i32
// CHECK:           func.call @madvise(%[[PTR]], %[[LEN]], %[[ADV]])
// CHECK:         memref.dealloc %[[BUF]]
// A static size under the threshold: unchanged (over it with min-bytes 1024,
// where it is aligned without a choice).
// CHECK-LABEL: func.func @small
// CHECK-NEXT:    memref.alloc() : memref<16x16xf32>
// CHECK-NOT:     madvise
// SMALL-LABEL: func.func @small
// SMALL:         memref.alloc() {alignment = 2097152 : i64} : memref<16x16xf32>
// SMALL:         func.call @madvise
// No schedule: unchanged.
// CHECK-LABEL: func.func @unscheduled
// CHECK-NEXT:    memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:     madvise
// An output sptune's own kernels allocate (MTTKRP's A, batched SpMM's C),
// marked sptune.huge_page_buffer in a function without a schedule: advised,
// the mark dropped; the function's other buffers are not.
// CHECK-LABEL: func.func @own_kernel
// CHECK:         memref.alloc(%{{.*}}) {alignment = 2097152 : i64} : memref<?x32xf64>
// CHECK-NOT:     sptune.huge_page_buffer
// CHECK:         func.call @madvise
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NOT:     madvise
// CHECK:         return
// A Gustavson SpGEMM kernel (sptune.gustavson_kernel): C's buffers are
// advised; its blocks' workspaces, allocated in its parallel loop, are not.
// CHECK-LABEL: func.func @gustavson
// CHECK:         memref.alloc(%{{.*}}) {alignment = 2097152 : i64} : memref<?xf32>
// CHECK:         func.call @madvise
// CHECK:         scf.parallel
// CHECK-NEXT:      memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:       madvise
// CHECK:         scf.reduce
func.func @dynamic(%n: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x64xf32>
  memref.dealloc %b : memref<?x64xf32>
  return
}
func.func @small() attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %b = memref.alloc() : memref<16x16xf32>
  memref.dealloc %b : memref<16x16xf32>
  return
}
func.func @unscheduled(%n: index) {
  %b = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}
func.func @own_kernel(%n: index) -> memref<?x32xf64> {
  %a = memref.alloc(%n) {alignment = 64 : i64, sptune.huge_page_buffer} : memref<?x32xf64>
  %t = memref.alloc(%n) : memref<?xf64>
  memref.dealloc %t : memref<?xf64>
  return %a : memref<?x32xf64>
}
func.func @gustavson(%n: index) attributes {sptune.gustavson_kernel} {
  %b = memref.alloc(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%t) = (%c0) to (%c2) step (%c1) {
    %w = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %w : memref<?xf32>
    scf.reduce
  }
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

// A module whose `madvise` is something else is refused.
// expected-error @+1 {{sptune-huge-page-buffers: the module's 'madvise' is not int madvise(void *, size_t, int)}}
func.func private @madvise(i32) -> i32
func.func @f(%n: index) attributes {sptune.schedule = #sptune.schedule<cpu sddmm>} {
  %b = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}
