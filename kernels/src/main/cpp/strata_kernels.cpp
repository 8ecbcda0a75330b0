// strata_kernels.cpp — the C API over kv_kernels.metal compiled as C++ (metal_shim.h).
#include "strata_kernels.h"

#include "metal_shim.h"
#include "kv_kernels.metal"
#include "metal_shim_end.h"

#include <cstdlib>

namespace {

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

extern "C" int strata_kernels_encode(int format, const float *src, size_t n_vectors, int head_dim,
                                     uint8_t *dst) {
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
  std::size_t rec = strata_kernels_record_bytes(format, head_dim);
  if (format == STRATA_KERNELS_FP16) {
    run(format, src, n_vectors, head_dim, dst, head_dim, rec, kv_encode_f16);
  } else {
    run(format, src, n_vectors, head_dim, dst, head_dim, rec, kv_encode);
  }
  return 0;
}

extern "C" int strata_kernels_decode(int format, const uint8_t *src, size_t n_vectors, int head_dim,
                                     float *dst) {
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
  std::size_t rec = strata_kernels_record_bytes(format, head_dim);
  if (format == STRATA_KERNELS_FP16) {
    run(format, src, n_vectors, head_dim, dst, rec, head_dim, kv_decode_f16);
  } else {
    run(format, src, n_vectors, head_dim, dst, rec, head_dim, kv_decode);
  }
  return 0;
}
