// kv_kernels.metal — the KV-cache kernels of docs/ENGINE-CONTRACT.md, KV formats, one source for Metal and for C++.
//
// On a Mac this file is compiled by Metal as is (newLibraryWithSource, or the metal compiler). Off the
// Mac, kernels/src/main/cpp/metal_shim.h maps the portable subset used here onto C++17 and the same
// text compiles with g++/clang++ (see the rules at the top of the shim). Java's dev.strata.kernels is the
// reference these kernels are checked against, operation for operation: the float operations below are
// written in the reference's order so a CPU build matches it bit for bit, and a GPU build matches it up
// to FMA contraction near rounding ties (which the parity tests count and bound).
//
// Records (one thread per head vector of head_dim values):
//   fp16: head_dim × half
//   int8: head_dim × int8 codes, then head_dim/64 × half scales (d = amax/127, code = round(x/d))
//   q4_0: FWHT-256 (scaled 1/16), then 8 llama.cpp block_q4_0 of 18 bytes: half d (d = signed max/−8),
//         16 bytes of nibbles (value j in the low nibble of byte j, value j+16 in the high nibble);
//         code = min(15, (int)(x/d + 8.5)) computed as x·(1/d) like quantize_row_q4_0_ref.
// Function constant 25 (kv_q4) selects q4_0 in kv_encode/kv_decode; it is always bound by the host
// (it is a required constant: the pipeline key and the Constants set carry it).

#ifdef __METAL_VERSION__
#include <metal_stdlib>
#endif
using namespace metal;

constant bool kv_q4 [[function_constant(25)]];

// Kernel arguments that are not buffers of records. Bound as a device buffer at index 2.
struct KvParams {
  uint n_vectors;
  uint head_dim;
};

#define KV_Q4_DIM 256
#define KV_Q4_BLOCK 32
#define KV_Q4_BLOCK_BYTES 18
#define KV_Q4_RECORD_BYTES 144
#define KV_INT8_GROUP 64

// ---- helpers --------------------------------------------------------------------------------

// Two butterfly stages of the in-place Walsh–Hadamard transform at once (strides h and 2h), reading
// `in` and writing `out` (which may be the same array) and multiplying by `scale`. The sums are formed
// exactly as two separate stages would form them, so the radix-4 pass changes no rounding; it halves
// the passes over the array and gives the compiler a fixed-stride loop to vectorize.
static inline void fwht_pass(thread const float *in, thread float *out, int h, float scale) {
  for (int i = 0; i < KV_Q4_DIM; i += 4 * h) {
    for (int j = i; j < i + h; ++j) {
      float a = in[j];
      float b = in[j + h];
      float c = in[j + 2 * h];
      float d = in[j + 3 * h];
      float ab = a + b;
      float amb = a - b;
      float cd = c + d;
      float cmd = c - d;
      out[j] = (ab + cd) * scale;
      out[j + h] = (amb + cmd) * scale;
      out[j + 2 * h] = (ab - cd) * scale;
      out[j + 3 * h] = (amb - cmd) * scale;
    }
  }
}

// FWHT-256, Sylvester order, scaled 1/16: orthonormal and its own inverse. Stage order h = 1, 2, …,
// 128, then the exact scale by 1/16 (folded into the last pass: a power of two changes no rounding
// outside the subnormal range, and the Java reference multiplies in the same place). The Java
// reference performs the same operations in the same order.
// Strides 1 and 2 (written out, since a loop of one iteration per group hides the pattern), reading
// in — a device or a thread array — and writing the thread array x.
#define FWHT_FIRST_PASS(in, x)                  \
  for (int i = 0; i < KV_Q4_DIM; i += 4) {      \
    float ab = (in)[i] + (in)[i + 1];           \
    float amb = (in)[i] - (in)[i + 1];          \
    float cd = (in)[i + 2] + (in)[i + 3];       \
    float cmd = (in)[i + 2] - (in)[i + 3];      \
    (x)[i] = ab + cd;                           \
    (x)[i + 1] = amb + cmd;                     \
    (x)[i + 2] = ab - cd;                       \
    (x)[i + 3] = amb - cmd;                     \
  }

// The remaining passes, in place on x.
static inline void fwht256_rest(thread float *x) {
  fwht_pass(x, x, 4, 1.0f);
  fwht_pass(x, x, 16, 1.0f);
  fwht_pass(x, x, 64, 0.0625f);
}

static inline void fwht256(thread float *x) {
  FWHT_FIRST_PASS(x, x)
  fwht256_rest(x);
}

static inline void store_half(device uchar *out, float v) {
  ushort bits = as_type<ushort>(half(v));
  out[0] = uchar(bits & 0xff);
  out[1] = uchar(bits >> 8);
}

static inline float load_half(device const uchar *in) {
  ushort bits = ushort(in[0]) | ushort(ushort(in[1]) << 8);
  return float(as_type<half>(bits));
}

// round half away from zero (C roundf), spelled with exact operations and selects (no branches, so
// the loop around it vectorizes) so every target agrees.
static inline float round_away(float v) {
  float t = trunc(v);
  float r = v - t;  // exact: t and v share the exponent range
  return t + (r >= 0.5f ? 1.0f : 0.0f) - (r <= -0.5f ? 1.0f : 0.0f);
}

// Floats as ints that compare like the floats (a total order: -0 sorts just below +0). Max and min
// over these are integer reductions, which vectorize on every target without relaxing float semantics.
static inline int order_key(float v) {
  int b = as_type<int>(v);
  return b ^ ((b >> 31) & 0x7fffffff);
}

static inline float from_order_key(int k) {
  return as_type<float>(k ^ ((k >> 31) & 0x7fffffff));
}

// The value with the largest |x| in a block, first occurrence on a tie, +0 when the block is all
// zero: llama.cpp's `if (amax < fabsf(v)) { amax = fabsf(v); max = v; }` scan, computed from the
// block's max and min and only scanned on an exact ±tie.
static inline float signed_max32(thread const float *v) {
  int kmx = order_key(v[0]);
  int kmn = kmx;
  for (int j = 1; j < KV_Q4_BLOCK; ++j) {
    int k = order_key(v[j]);
    kmx = max(kmx, k);
    kmn = min(kmn, k);
  }
  float mx = from_order_key(kmx);
  float mn = from_order_key(kmn);
  float nmn = -mn;
  if (mx > nmn) {
    return mx;
  }
  if (nmn > mx) {
    return mn;
  }
  if (mx == 0.0f) {
    return 0.0f;
  }
  for (int j = 0; j < KV_Q4_BLOCK; ++j) {
    if (v[j] == mx || v[j] == mn) {
      return v[j];
    }
  }
  return mx;
}

// max |v[j]| over 64 values: |x| as an int (sign bit cleared) orders like |x|.
static inline float amax64(device const float *v) {
  int m = 0;
  for (int j = 0; j < KV_INT8_GROUP; ++j) {
    m = max(m, as_type<int>(v[j]) & 0x7fffffff);
  }
  return as_type<float>(m);
}

// ---- q4_0 ------------------------------------------------------------------------------------

static inline void encode_q4_record(device const float *in, device uchar *out) {
  float x[KV_Q4_DIM];
  FWHT_FIRST_PASS(in, x)  // the load from device memory is the first pass's read
  fwht256_rest(x);
  for (int b = 0; b < KV_Q4_DIM / KV_Q4_BLOCK; ++b) {
    thread const float *v = x + b * KV_Q4_BLOCK;
    device uchar *blk = out + b * KV_Q4_BLOCK_BYTES;
    float m = signed_max32(v);
    float d = m / -8.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    store_half(blk, d);
    // codes first, packing second: two plain loops the compiler vectorizes
    int q[KV_Q4_BLOCK];
    for (int j = 0; j < KV_Q4_BLOCK; ++j) {
      q[j] = min(15, int(v[j] * id + 8.5f));
    }
    for (int j = 0; j < KV_Q4_BLOCK / 2; ++j) {
      blk[2 + j] = uchar(q[j] | (q[j + KV_Q4_BLOCK / 2] << 4));
    }
  }
}

static inline void decode_q4_record(device const uchar *in, device float *out) {
  float x[KV_Q4_DIM];
  for (int b = 0; b < KV_Q4_DIM / KV_Q4_BLOCK; ++b) {
    device const uchar *blk = in + b * KV_Q4_BLOCK_BYTES;
    float d = load_half(blk);
    for (int j = 0; j < KV_Q4_BLOCK / 2; ++j) {
      int q = int(blk[2 + j]);
      x[b * KV_Q4_BLOCK + j] = float((q & 15) - 8) * d;
      x[b * KV_Q4_BLOCK + j + KV_Q4_BLOCK / 2] = float((q >> 4) - 8) * d;
    }
  }
  fwht256(x);
  for (int i = 0; i < KV_Q4_DIM; ++i) {
    out[i] = x[i];
  }
}

// ---- int8 ------------------------------------------------------------------------------------

static inline void encode_int8_record(device const float *in, device uchar *out, uint head_dim) {
  uint groups = head_dim / KV_INT8_GROUP;
  for (uint g = 0; g < groups; ++g) {
    device const float *v = in + g * KV_INT8_GROUP;
    float amax = amax64(v);
    float d = amax / 127.0f;
    // d == 0 only when every value is ±0: dividing by 1 then gives the code 0 all the same
    float dd = d != 0.0f ? d : 1.0f;
    device uchar *codes = out + g * KV_INT8_GROUP;
    for (int j = 0; j < KV_INT8_GROUP; ++j) {
      codes[j] = uchar(int(round_away(v[j] / dd)) & 0xff);  // two's complement byte
    }
    store_half(out + head_dim + 2 * g, d);
  }
}

static inline void decode_int8_record(device const uchar *in, device float *out, uint head_dim) {
  uint groups = head_dim / KV_INT8_GROUP;
  for (uint g = 0; g < groups; ++g) {
    float d = load_half(in + head_dim + 2 * g);
    device const uchar *codes = in + g * KV_INT8_GROUP;
    for (int j = 0; j < KV_INT8_GROUP; ++j) {
      int c = int(codes[j]);
      c = c - ((c & 0x80) << 1);  // sign-extend: char's signedness differs between targets
      out[g * KV_INT8_GROUP + j] = float(c) * d;
    }
  }
}

// ---- kernels ---------------------------------------------------------------------------------

// Encode: one thread per head vector. kv_q4 selects q4_0 (head_dim must be 256), else int8.
kernel void kv_encode(device const float *src [[buffer(0)]],
                      device uchar *dst [[buffer(1)]],
                      device const KvParams &p [[buffer(2)]],
                      uint gid [[thread_position_in_grid]]) {
  if (gid >= p.n_vectors) {
    return;
  }
  if (kv_q4) {
    encode_q4_record(src + gid * KV_Q4_DIM, dst + gid * KV_Q4_RECORD_BYTES);
  } else {
    uint record = p.head_dim + 2 * (p.head_dim / KV_INT8_GROUP);
    encode_int8_record(src + gid * p.head_dim, dst + gid * record, p.head_dim);
  }
}

// Decode: the inverse of kv_encode for the same kv_q4.
kernel void kv_decode(device const uchar *src [[buffer(0)]],
                      device float *dst [[buffer(1)]],
                      device const KvParams &p [[buffer(2)]],
                      uint gid [[thread_position_in_grid]]) {
  if (gid >= p.n_vectors) {
    return;
  }
  if (kv_q4) {
    decode_q4_record(src + gid * KV_Q4_RECORD_BYTES, dst + gid * KV_Q4_DIM);
  } else {
    uint record = p.head_dim + 2 * (p.head_dim / KV_INT8_GROUP);
    decode_int8_record(src + gid * record, dst + gid * p.head_dim, p.head_dim);
  }
}

// fp16 records: head_dim × half, round to nearest even.
kernel void kv_encode_f16(device const float *src [[buffer(0)]],
                          device uchar *dst [[buffer(1)]],
                          device const KvParams &p [[buffer(2)]],
                          uint gid [[thread_position_in_grid]]) {
  if (gid >= p.n_vectors) {
    return;
  }
  device const float *in = src + gid * p.head_dim;
  device uchar *out = dst + gid * (2 * p.head_dim);
  for (uint i = 0; i < p.head_dim; ++i) {
    store_half(out + 2 * i, in[i]);
  }
}

kernel void kv_decode_f16(device const uchar *src [[buffer(0)]],
                          device float *dst [[buffer(1)]],
                          device const KvParams &p [[buffer(2)]],
                          uint gid [[thread_position_in_grid]]) {
  if (gid >= p.n_vectors) {
    return;
  }
  device const uchar *in = src + gid * (2 * p.head_dim);
  device float *out = dst + gid * p.head_dim;
  for (uint i = 0; i < p.head_dim; ++i) {
    out[i] = load_half(in + 2 * i);
  }
}
