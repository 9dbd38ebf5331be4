#pragma once
// Replaces the global operator new/delete with counting versions, to measure
// what a piece of code allocates (benchmarks, the allocation test). Include
// it in exactly one source file of a program; not under sanitizers, which own
// the allocator.
#include <cstddef>
#include <cstdlib>
#include <new>

namespace luztar::app {
inline std::size_t g_allocations = 0;  // heap allocations so far (not thread-safe: single-threaded programs)
}

void* operator new(std::size_t n) {
  ++luztar::app::g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
