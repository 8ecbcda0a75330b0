// metal_shim.h — compiles a portable subset of the Metal Shading Language as C++17.
//
// Use:   #include "metal_shim.h"
//        #include "kv_kernels.metal"      // the very file Metal compiles on a Mac
//        #include "metal_shim_end.h"      // drops the shim's macros again
//
// What a portable kernel may use (anything else is a Metal-only construct and breaks the CPU build):
//   - `#ifdef __METAL_VERSION__` around `#include <metal_stdlib>`; `using namespace metal;` unguarded.
//   - Kernels written `kernel void name(...)` with buffer arguments `device T *p [[buffer(n)]]`,
//     `device const T *p [[buffer(n)]]` or `device const S &params [[buffer(n)]]`, and the grid index
//     `uint gid [[thread_position_in_grid]]` (1-D grids only). Kernels must bounds-check gid.
//   - `constant` ONLY in function-constant declarations at program scope:
//     `constant bool name [[function_constant(n)]];` (bool, int or uint). The host always binds them;
//     in C++ they are thread-local variables the host sets before a dispatch (see dispatch() below),
//     so two threads may run different specializations at once. Program-scope constants are #defines.
//   - Address spaces `device` and `thread` on pointers; local arrays (thread memory) of fixed size.
//   - Scalar types bool, uchar, short, ushort, int, uint, float, half (IEEE binary16; conversions
//     from float round to nearest even, exactly, subnormals included; arithmetic goes through float).
//   - `as_type<T>(v)` between same-size scalar types; functional casts `uchar(x)`, `float(x)`, `half(x)`.
//   - Math: fabs, trunc, floor, min, max (int and float), exactly as written: no fast-math on either side
//     (Metal: fastMathEnabled = NO; C++: -ffp-contract=off, no -ffast-math).
//   - `static inline` helper functions taking `thread`/`device` pointers; structs of scalars.
// Not in the subset: `char` (signed on Metal, unsigned in arm64 C++: use uchar and sign-extend by hand),
// threadgroup memory and barriers, simdgroup functions, atomics, textures, vector types and swizzles,
// `constant` buffers, 2-D/3-D grids, `round` (spell the rounding out with trunc, as kv_kernels does).
#ifndef STRATA_METAL_SHIM_H
#define STRATA_METAL_SHIM_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

namespace metal {

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

// IEEE binary16. Conversions are bit-exact round-to-nearest-even (what Metal's float→half does);
// x86-64-v2 has no F16C, so this is integer code, cheap next to the kernels' other work.
class half {
 public:
  half() = default;
  half(float f) : bits_(from_float(f)) {}  // NOLINT: implicit like Metal's
  explicit half(double f) : bits_(from_float(static_cast<float>(f))) {}
  operator float() const { return to_float(bits_); }  // NOLINT

  static half from_bits(uint16_t b) {
    half h;
    h.bits_ = b;
    return h;
  }
  uint16_t bits() const { return bits_; }

  static uint16_t from_float(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) {  // inf, NaN (quiet, payload kept where it fits)
      return static_cast<uint16_t>(sign | (a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u));
    }
    if (a >= 0x477ff000u) {  // ≥ 65520: rounds to infinity
      return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (a >= 0x38800000u) {  // normal half: drop 13 mantissa bits, round to nearest even
      uint32_t h = (a >> 13) - (112u << 10);
      uint32_t rem = a & 0x1fffu;
      if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        h += 1;  // a carry into the exponent is the correct next binade
      }
      return static_cast<uint16_t>(sign | h);
    }
    if (a < 0x33000000u) {  // ≤ 2^-25 (a tie with 0 included): zero
      return static_cast<uint16_t>(sign);
    }
    // subnormal half: value / 2^-24, rounded to nearest even
    uint32_t e = a >> 23;
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    uint32_t s = 126u - e;  // 14..24
    uint32_t h = m >> s;
    uint32_t rem = m & ((1u << s) - 1u);
    uint32_t halfway = 1u << (s - 1u);
    if (rem > halfway || (rem == halfway && (h & 1u))) {
      h += 1;  // 0x400 is the smallest normal: still the right bits
    }
    return static_cast<uint16_t>(sign | h);
  }

  static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    uint32_t x;
    if (e == 0) {
      float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m · 2^-24, exact
      std::memcpy(&x, &v, 4);
      x |= sign;
    } else if (e == 31) {
      x = sign | 0x7f800000u | (m << 13);
    } else {
      x = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }

 private:
  uint16_t bits_;
};
static_assert(sizeof(half) == 2, "half is two bytes");

template <class To, class From>
inline To as_type(From v) {
  static_assert(sizeof(To) == sizeof(From), "as_type needs same-size types");
  if constexpr (std::is_same_v<From, half>) {
    uint16_t b = v.bits();
    To t;
    std::memcpy(&t, &b, sizeof t);
    return t;
  } else if constexpr (std::is_same_v<To, half>) {
    uint16_t b;
    std::memcpy(&b, &v, sizeof b);
    return half::from_bits(b);
  } else {
    To t;
    std::memcpy(&t, &v, sizeof t);
    return t;
  }
}

// Plain compares, so loops over them vectorize (maxps/minps); NaN handling is not part of the subset.
inline float max(float a, float b) { return a > b ? a : b; }
inline float min(float a, float b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline uint max(uint a, uint b) { return a > b ? a : b; }
inline uint min(uint a, uint b) { return a < b ? a : b; }
inline float fabs(float a) { return std::fabs(a); }
inline float trunc(float a) { return std::trunc(a); }
inline float floor(float a) { return std::floor(a); }

}  // namespace metal

namespace metal_shim {

// Runs body(gid) for gid in [0, grid), split into contiguous chunks over up to `threads` std::threads
// (the caller's thread takes the first chunk). bind() runs first on every thread that runs a chunk:
// it sets the function constants, which are thread-local, to the values of this dispatch.
template <class Bind, class Body>
void dispatch(std::size_t grid, unsigned threads, Bind bind, Body body) {
  if (grid == 0) {
    return;
  }
  if (threads < 1) {
    threads = 1;
  }
  if (threads > grid) {
    threads = static_cast<unsigned>(grid);
  }
  std::size_t chunk = (grid + threads - 1) / threads;
  auto run = [&](std::size_t lo, std::size_t hi) {
    bind();
    for (std::size_t g = lo; g < hi; ++g) {
      body(g);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    std::size_t lo = t * chunk;
    std::size_t hi = std::min(grid, lo + chunk);
    if (lo < hi) {
      pool.emplace_back(run, lo, hi);
    }
  }
  run(0, std::min(grid, chunk));
  for (auto &th : pool) {
    th.join();
  }
}

}  // namespace metal_shim

// The MSL spellings. Every C++ header the program needs must be included before this point (the
// names below are macros until metal_shim_end.h).
#define kernel [[maybe_unused]] static inline
#define device
#define thread
#define constant static thread_local
#define buffer(n) maybe_unused
#define thread_position_in_grid maybe_unused
#define function_constant(n) maybe_unused
#define __METAL_SHIM__ 1

#endif  // STRATA_METAL_SHIM_H
