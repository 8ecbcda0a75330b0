// strata_kernels.cpp — the C API over kv_kernels.metal compiled as C++ (metal_shim.h).
#include "strata_kernels.h"

#include "metal_shim.h"
#include "kv_kernels.metal"
#include "metal_shim_end.h"

#include <cstdlib>
#include <cstring>

// The q4_0 fast path (kv_q4_simd.h): 4 lanes at the baseline (SSE4.2 on x86-64-v2, NEON on arm64),
// and on x86-64 also an 8-lane copy compiled for AVX2, picked at run time when the CPU has it. The
// pragmas give only these functions the AVX2 target: everything they call that is defined above (the
// shim's half conversion) is baseline code, inlined into them.
namespace kvs_base {
#define KVS_LANES 4
#include "kv_q4_simd.h"
#undef KVS_LANES
}  // namespace kvs_base

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define STRATA_KERNELS_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
#elif defined(__x86_64__) && defined(__clang__)
#define STRATA_KERNELS_AVX2 1
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#endif
#ifdef STRATA_KERNELS_AVX2
namespace kvs_avx2 {
#define KVS_LANES 8
#include "kv_q4_simd.h"
#undef KVS_LANES
}  // namespace kvs_avx2
#endif
#if defined(STRATA_KERNELS_AVX2) && defined(__clang__)
#pragma clang attribute pop
#elif defined(STRATA_KERNELS_AVX2)
#pragma GCC pop_options
#endif

namespace {

// Which q4_0 code runs: the portable kernel (kv_kernels.metal as C++), the 4-lane vector path, or the
// 8-lane AVX2 path. All three write the same bytes (checked by `make test`, which runs the parity
// harness once per path). STRATA_KERNELS_ISA=portable|simd128|avx2 picks one (for the tests and the
// bench); the default, and a path this CPU cannot run, is the fastest available.
enum class Isa { kPortable, kSimd128, kAvx2 };

bool cpu_has_avx2() {
#ifdef STRATA_KERNELS_AVX2
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

Isa isa() {
  static const Isa chosen = [] {
    const Isa best = cpu_has_avx2() ? Isa::kAvx2 : Isa::kSimd128;
    const char *s = std::getenv("STRATA_KERNELS_ISA");
    if (s != nullptr && std::strcmp(s, "portable") == 0) {
      return Isa::kPortable;
    }
    if (s != nullptr && std::strcmp(s, "simd128") == 0) {
      return Isa::kSimd128;
    }
    return best;
  }();
  return chosen;
}

// Grid indices are 32-bit like Metal's thread_position_in_grid: larger requests run in slices.
constexpr std::size_t kSlice = std::size_t{1} << 24;

// Threads for one call: STRATA_KERNELS_THREADS if set (≥ 1), else one thread below 64K vectors
// (a cell append or a small batch: thread start-up would cost more than the work) and up to the
// hardware's threads above that.
unsigned threads_for(std::size_t n) {
  static const int env = [] {
    const char *s = std::getenv("STRATA_KERNELS_THREADS");
    return s ? std::atoi(s) : 0;
  }();
  if (env >= 1) {
    return static_cast<unsigned>(env);
  }
  if (n < 65536) {
    return 1;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw < 1 ? 1 : hw;
}

int check(int format, int head_dim) {
  if (format != STRATA_KERNELS_FP16 && format != STRATA_KERNELS_INT8 && format != STRATA_KERNELS_Q4_0) {
    return STRATA_KERNELS_EBADFORMAT;
  }
  if (head_dim <= 0 || head_dim > (1 << 20)) {
    return STRATA_KERNELS_EHEADDIM;
  }
  if (format == STRATA_KERNELS_INT8 && head_dim % KV_INT8_GROUP != 0) {
    return STRATA_KERNELS_EHEADDIM;
  }
  if (format == STRATA_KERNELS_Q4_0 && head_dim != KV_Q4_DIM) {
    return STRATA_KERNELS_EHEADDIM;
  }
  return 0;
}

template <class In, class Out, class Kernel>
void run(int format, const In *src, std::size_t n, int head_dim, Out *dst, std::size_t in_per_vec,
         std::size_t out_per_vec, Kernel k) {
  const bool q4 = format == STRATA_KERNELS_Q4_0;
  const unsigned threads = threads_for(n);
  for (std::size_t base = 0; base < n; base += kSlice) {
    KvParams p;
    p.n_vectors = static_cast<uint32_t>(std::min(kSlice, n - base));
    p.head_dim = static_cast<uint32_t>(head_dim);
    const In *s = src + base * in_per_vec;
    Out *d = dst + base * out_per_vec;
    metal_shim::dispatch(
        p.n_vectors, threads, [q4] { kv_q4 = q4; },
        [&](std::size_t gid) { k(s, d, p, static_cast<uint32_t>(gid)); });
  }
}

}  // namespace

extern "C" size_t strata_kernels_record_bytes(int format, int head_dim) {
  if (check(format, head_dim) != 0) {
    return 0;
  }
  std::size_t hd = static_cast<std::size_t>(head_dim);
  switch (format) {
    case STRATA_KERNELS_FP16:
      return 2 * hd;
    case STRATA_KERNELS_INT8:
      return hd + 2 * (hd / KV_INT8_GROUP);
    default:
      return KV_Q4_RECORD_BYTES;
  }
}

namespace {

// Encode and decode differ only in their element types, their kernels and which side holds the
// records: a Direction names those, and one body (convert) checks the arguments and picks the path
// for both. Q4Avx2 is nullptr where there is no AVX2 copy (convert then never asks for it).
template <class InT, class OutT, std::size_t Q4In, std::size_t Q4Out, auto F16, auto Portable,
          void (*Q4Simd128)(const InT *, OutT *), void (*Q4Avx2)(const InT *, OutT *)>
struct Direction {
  using In = InT;
  using Out = OutT;
  static constexpr std::size_t kQ4In = Q4In;
  static constexpr std::size_t kQ4Out = Q4Out;
  static constexpr auto kF16 = F16;
  static constexpr auto kPortable = Portable;
  static constexpr auto q4_simd128 = Q4Simd128;
  static constexpr auto q4_avx2 = Q4Avx2;
};

#ifdef STRATA_KERNELS_AVX2
#define KVS_AVX2(f) kvs_avx2::f
#else
#define KVS_AVX2(f) nullptr
#endif
using Encode = Direction<float, uint8_t, KV_Q4_DIM, KV_Q4_RECORD_BYTES, kv_encode_f16, kv_encode,
                         kvs_base::q4_encode, KVS_AVX2(q4_encode)>;
using Decode = Direction<uint8_t, float, KV_Q4_RECORD_BYTES, KV_Q4_DIM, kv_decode_f16, kv_decode,
                         kvs_base::q4_decode, KVS_AVX2(q4_decode)>;
#undef KVS_AVX2

// One q4_0 vector per grid index through a vector path (Q4 is q4_simd128 or q4_avx2).
template <class Dir, void (*Q4)(const typename Dir::In *, typename Dir::Out *)>
void q4_vector(const typename Dir::In *s, typename Dir::Out *d, const KvParams &, uint32_t gid) {
  Q4(s + std::size_t{gid} * Dir::kQ4In, d + std::size_t{gid} * Dir::kQ4Out);
}

template <class Dir>
int convert(int format, const typename Dir::In *src, size_t n_vectors, int head_dim,
            typename Dir::Out *dst, bool records_in) {
  int rc = check(format, head_dim);
  if (rc != 0) {
    return rc;
  }
  if (n_vectors == 0) {
    return 0;
  }
  if (src == nullptr || dst == nullptr) {
    return STRATA_KERNELS_ENULL;
  }
  const std::size_t rec = strata_kernels_record_bytes(format, head_dim);
  const std::size_t in = records_in ? rec : head_dim;
  const std::size_t out = records_in ? head_dim : rec;
  if (format == STRATA_KERNELS_FP16) {
    run(format, src, n_vectors, head_dim, dst, in, out, Dir::kF16);
  } else if (format == STRATA_KERNELS_Q4_0 && isa() == Isa::kSimd128) {
    run(format, src, n_vectors, head_dim, dst, in, out, q4_vector<Dir, Dir::q4_simd128>);
#ifdef STRATA_KERNELS_AVX2
  } else if (format == STRATA_KERNELS_Q4_0 && isa() == Isa::kAvx2) {
    run(format, src, n_vectors, head_dim, dst, in, out, q4_vector<Dir, Dir::q4_avx2>);
#endif
  } else {
    run(format, src, n_vectors, head_dim, dst, in, out, Dir::kPortable);
  }
  return 0;
}

}  // namespace

extern "C" int strata_kernels_encode(int format, const float *src, size_t n_vectors, int head_dim,
                                     uint8_t *dst) {
  return convert<Encode>(format, src, n_vectors, head_dim, dst, false);
}

extern "C" int strata_kernels_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim,
                                     float *dst) {
  return convert<Decode>(format, src, n_vectors, head_dim, dst, true);
}

extern "C" const char *strata_kernels_isa(void) {
  switch (isa()) {
    case Isa::kPortable:
      return "portable";
    case Isa::kSimd128:
      return "simd128";
    default:
      return "avx2";
  }
}
