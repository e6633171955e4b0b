//===- AlignedVector.h - Cache-line aligned vectors -------------*- C++ -*-===//
//
// Part of sptune. The dense operands of a measured kernel are read a row at a
// time; a 256-byte row of B (N = 64, f32) is four cache lines when the buffer
// starts on a line and five when it starts where malloc puts a large block
// (16 bytes past a page). Eigen allocates its matrices 64-byte aligned, so a
// kernel fed std::vector buffers moved 25% more lines than the library it is
// compared with.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SUPPORT_ALIGNEDVECTOR_H
#define SPTUNE_SUPPORT_ALIGNEDVECTOR_H

#include <cstddef>
#include <new>
#include <vector>

namespace sptune {

/// The alignment of every dense buffer a measurement feeds a kernel.
inline constexpr std::size_t kDenseAlignment = 64;

/// A std::allocator that starts every block on a kDenseAlignment boundary.
template <typename T> struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U> CacheLineAllocator(const CacheLineAllocator<U> &) {}
  T *allocate(std::size_t n) {
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(kDenseAlignment)));
  }
  void deallocate(T *p, std::size_t) {
    ::operator delete(p, std::align_val_t(kDenseAlignment));
  }
  template <typename U> bool operator==(const CacheLineAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const CacheLineAllocator<U> &) const {
    return false;
  }
};

/// A vector whose data start on a cache line.
template <typename T> using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

} // namespace sptune

#endif // SPTUNE_SUPPORT_ALIGNEDVECTOR_H
