// kv_q4_simd.h — q4_0 encode/decode (FWHT-256 + block_q4_0) with GCC/Clang vector extensions: the CPU
// fast path beside the portable kernels of kv_kernels.metal.
//
// Why: the portable source is scalar (Metal runs one thread per vector, so its inner loops are plain
// C); GCC vectorizes its FWHT passes only partly, and q4_0 encode ran at 0.33x memcpy on one core.
// Here the transform works on whole vectors of KVS_LANES floats: the stages whose partner is in
// another vector are vertical adds, the ones inside a vector (h < KVS_LANES) a shuffle, a sign flip
// and an add.
//
// Same results, bit for bit, as kv_kernels.metal's encode_q4_record/decode_q4_record (and so as the
// Java reference): every output of every stage is the same IEEE sum or difference of the same two
// inputs (x − y computed as x + (−y), which IEEE defines as the same), stages run in the same order (h = 1, 2,
// …, 128), the 1/16 scale multiplies the last stage's outputs, no FMA (the file is compiled with
// -ffp-contract=off), the signed max uses the same integer order keys, and the code is
// min(15, (int)(x·id + 8.5)) with the same truncating conversion. The parity harness runs over the
// committed vectors once per path (STRATA_KERNELS_ISA), and kernels/src/test/cpp/simd_equivalence.cpp
// compares this path with the portable kernel byte for byte on random and special inputs.
//
// Include inside a namespace, after <cstring> and metal_shim.h, with KVS_LANES defined as 4 (SSE,
// NEON) or 8 (AVX2; the includer compiles that copy for the avx2 target). Defines
//   void q4_encode(const float *in, uint8_t *out);   // one 256-float vector → one 144-byte record
//   void q4_decode(const uint8_t *in, float *out);   // the inverse

#ifndef KVS_LANES
#error "define KVS_LANES (4 or 8) before including kv_q4_simd.h"
#endif

static_assert(KVS_LANES == 4 || KVS_LANES == 8, "KVS_LANES is 4 or 8");

constexpr int kL = KVS_LANES;
constexpr int kNV = 256 / kL;  // vectors per head vector
constexpr int kBV = 32 / kL;   // vectors per q4_0 block

typedef float vf __attribute__((vector_size(KVS_LANES * 4)));
typedef int vi __attribute__((vector_size(KVS_LANES * 4)));
typedef unsigned char vb __attribute__((vector_size(KVS_LANES)));
typedef unsigned char v16b __attribute__((vector_size(16)));
#if KVS_LANES == 8
typedef unsigned char v32b __attribute__((vector_size(32)));
#endif

static inline __attribute__((always_inline)) vf loadf(const float *p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// every lane = f (not vf{} + f: +0 + −0 is +0, and d = −0 is a real scale of an all-zero block)
static inline __attribute__((always_inline)) vf splat(float f) {
#if KVS_LANES == 8
  return vf{f, f, f, f, f, f, f, f};
#else
  return vf{f, f, f, f};
#endif
}

static inline __attribute__((always_inline)) void storef(float *p, vf v) { std::memcpy(p, &v, sizeof v); }

// The butterfly stages with h < kL: lane l gets lower + upper where bit h of l is clear and
// lower − upper where it is set (lower/upper: the pair's values at l & ~h and l | h). Computed as
// partner + (±self): x − y is x + (−y) and x + y is y + x in IEEE arithmetic, so every non-NaN result
// is the scalar code's bit for bit; which NaN comes out of a NaN operand may differ, as it already does
// between two compilations of the scalar code (GCC commutes a + b).
static inline __attribute__((always_inline)) vf flip(vf v, vi sign) { return (vf)((vi)v ^ sign); }

static inline __attribute__((always_inline)) vf stages_in_vector(vf x) {
  const int s = int(0x80000000u);
#if KVS_LANES == 8
  x = __builtin_shufflevector(x, x, 1, 0, 3, 2, 5, 4, 7, 6) + flip(x, vi{0, s, 0, s, 0, s, 0, s});
  x = __builtin_shufflevector(x, x, 2, 3, 0, 1, 6, 7, 4, 5) + flip(x, vi{0, 0, s, s, 0, 0, s, s});
  x = __builtin_shufflevector(x, x, 4, 5, 6, 7, 0, 1, 2, 3) + flip(x, vi{0, 0, 0, 0, s, s, s, s});
#else
  x = __builtin_shufflevector(x, x, 1, 0, 3, 2) + flip(x, vi{0, s, 0, s});
  x = __builtin_shufflevector(x, x, 2, 3, 0, 1) + flip(x, vi{0, 0, s, s});
#endif
  return x;
}

// Two vertical stages at once (vector strides hv and 2hv), exactly as two radix-2 stages would round.
static inline __attribute__((always_inline)) void pass4(vf *x, int hv) {
  for (int i = 0; i < kNV; i += 4 * hv) {
    for (int j = i; j < i + hv; ++j) {
      vf a = x[j], b = x[j + hv], c = x[j + 2 * hv], d = x[j + 3 * hv];
      vf ab = a + b, amb = a - b, cd = c + d, cmd = c - d;
      x[j] = ab + cd;
      x[j + hv] = amb + cmd;
      x[j + 2 * hv] = ab - cd;
      x[j + 3 * hv] = amb - cmd;
    }
  }
}

// The last stage (vector stride kNV/2, h = 128), its outputs scaled by 1/16.
static inline __attribute__((always_inline)) void last2(vf *x) {
  const vf scale = splat(0.0625f);
  for (int j = 0; j < kNV / 2; ++j) {
    vf a = x[j], b = x[j + kNV / 2];
    x[j] = (a + b) * scale;
    x[j + kNV / 2] = (a - b) * scale;
  }
}

// The vertical stages after the in-vector ones. kL = 8: vector strides 1,2 | 4,8 | 16 (h = 8 … 128);
// kL = 4: 1,2 | 4,8 | 16,32 (h = 4 … 128), the last pair with the scale.
static inline __attribute__((always_inline)) void vertical_stages(vf *x) {
  pass4(x, 1);
  pass4(x, 4);
#if KVS_LANES == 8
  last2(x);
#else
  const vf scale = splat(0.0625f);
  for (int j = 0; j < 16; ++j) {
    vf a = x[j], b = x[j + 16], c = x[j + 32], d = x[j + 48];
    vf ab = a + b, amb = a - b, cd = c + d, cmd = c - d;
    x[j] = (ab + cd) * scale;
    x[j + 16] = (amb + cmd) * scale;
    x[j + 32] = (ab - cd) * scale;
    x[j + 48] = (amb - cmd) * scale;
  }
#endif
}

static inline __attribute__((always_inline)) vi order_keys(vf v) {
  vi b = (vi)v;
  return b ^ ((b >> 31) & 0x7fffffff);
}

static inline __attribute__((always_inline)) vi vmax(vi a, vi b) { return a > b ? a : b; }
static inline __attribute__((always_inline)) vi vmin(vi a, vi b) { return a < b ? a : b; }

// Horizontal reduction of the lanes by Op (vmax or vmin): log2(lanes) butterfly steps, every lane
// ends with the result.
template <vi (*Op)(vi, vi)>
static inline __attribute__((always_inline)) int hreduce(vi v) {
#if KVS_LANES == 8
  v = Op(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3));
  v = Op(v, __builtin_shufflevector(v, v, 2, 3, 0, 1, 6, 7, 4, 5));
  v = Op(v, __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6));
#else
  v = Op(v, __builtin_shufflevector(v, v, 2, 3, 0, 1));
  v = Op(v, __builtin_shufflevector(v, v, 1, 0, 3, 2));
#endif
  return v[0];
}

static inline __attribute__((always_inline)) int hmax(vi v) { return hreduce<vmax>(v); }
static inline __attribute__((always_inline)) int hmin(vi v) { return hreduce<vmin>(v); }

static inline float key_to_float(int k) {
  int b = k ^ ((k >> 31) & 0x7fffffff);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// kv_kernels.metal's signed_max32 from the block's key max/min: the value with the largest |x|,
// first occurrence on an exact ±tie, +0 for an all-zero block.
static inline float signed_max(const vf *xb, int kmx, int kmn) {
  float mx = key_to_float(kmx);
  float mn = key_to_float(kmn);
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
  float v[32];  // an exact tie between +m and -m: rare, scanned in order
  std::memcpy(v, xb, sizeof v);
  for (int j = 0; j < 32; ++j) {
    if (v[j] == mx || v[j] == mn) {
      return v[j];
    }
  }
  return mx;
}

static inline __attribute__((always_inline)) void fwht(vf *x) {
  for (int v = 0; v < kNV; ++v) {
    x[v] = stages_in_vector(x[v]);
  }
  vertical_stages(x);
}

#if KVS_LANES == 8
// Eight vectors → one: lane b holds the max (min) over the lanes of in[b]. A transpose-and-reduce tree;
// the inputs go in as 0,2,1,3,4,6,5,7 because the tree's interleaves leave lanes in that order.
static inline __attribute__((always_inline)) vi reduce8(const vi *in, bool want_max) {
  auto op = [want_max](vi a, vi b) { return want_max ? vmax(a, b) : vmin(a, b); };
  const int order[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  vi t[4];
  for (int i = 0; i < 4; ++i) {
    vi a = in[order[2 * i]], b = in[order[2 * i + 1]];
    t[i] = op(__builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13),
              __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15));
  }
  vi u = op(__builtin_shufflevector(t[0], t[1], 0, 8, 2, 10, 4, 12, 6, 14),
            __builtin_shufflevector(t[0], t[1], 1, 9, 3, 11, 5, 13, 7, 15));
  vi w = op(__builtin_shufflevector(t[2], t[3], 0, 8, 2, 10, 4, 12, 6, 14),
            __builtin_shufflevector(t[2], t[3], 1, 9, 3, 11, 5, 13, 7, 15));
  return op(__builtin_shufflevector(u, w, 0, 1, 2, 3, 8, 9, 10, 11),
            __builtin_shufflevector(u, w, 4, 5, 6, 7, 12, 13, 14, 15));
}

static inline __attribute__((always_inline)) vf keys_to_floats(vi k) { return (vf)(k ^ ((k >> 31) & 0x7fffffff)); }

// metal::half::from_float on eight lanes, branch-free, the same cases and rounding (bits in the low
// 16 bits of each lane).
static inline __attribute__((always_inline)) vi half_bits(vf f) {
  const vi x = (vi)f;
  const vi sign = (x >> 16) & 0x8000;
  const vi a = x & 0x7fffffff;
  // inf / NaN (quiet, payload kept where it fits), and ≥ 65520 → inf
  const vi special = a > 0x7f800000 ? (0x7e00 | ((a >> 13) & 0x3ff)) : 0x7c00;
  // normal half: drop 13 mantissa bits, round to nearest even (a mask is −1: subtracting it adds 1)
  vi hn = ((a >> 13) & 0x3ffff) - (112 << 10);
  const vi rn = a & 0x1fff;
  hn -= (rn > 0x1000) | ((rn == 0x1000) & ((hn & 1) != 0));
  // subnormal half: value / 2^-24, rounded to nearest even (shift clamped to 14..24 where unused)
  vi sh = 126 - ((a >> 23) & 0xff);
  sh = sh < 14 ? 14 : sh;
  sh = sh > 24 ? 24 : sh;
  const vi m = (a & 0x7fffff) | 0x800000;
  vi hs = m >> sh;
  const vi rs = m & ((1 << sh) - 1);
  const vi halfway = 1 << (sh - 1);
  hs -= (rs > halfway) | ((rs == halfway) & ((hs & 1) != 0));
  vi h = a < 0x33000000 ? 0 : hs;
  h = a >= 0x38800000 ? hn : h;
  h = a >= 0x477ff000 ? 0x7c00 : h;
  h = a >= 0x7f800000 ? special : h;
  return sign | h;
}

// d (as fp16 bits) and 1/d of the 8 blocks at once: the signed max from the key max/min, then
// d = m / −8 and id = 1/d (0 when d is 0), lane b = block b. An exact ±tie (or NaN) goes the scalar way.
static inline __attribute__((always_inline)) void block_scales(const vf *x, uint16_t *dbits, float *ids) {
  vi kmx[8], kmn[8];
  for (int b = 0; b < 8; ++b) {
    const vf *xb = x + b * kBV;
    vi k0 = order_keys(xb[0]), k1 = order_keys(xb[1]), k2 = order_keys(xb[2]), k3 = order_keys(xb[3]);
    kmx[b] = vmax(vmax(k0, k1), vmax(k2, k3));
    kmn[b] = vmin(vmin(k0, k1), vmin(k2, k3));
  }
  const vi KMX = reduce8(kmx, true);
  const vi KMN = reduce8(kmn, false);
  const vf mx = keys_to_floats(KMX);
  const vf mn = keys_to_floats(KMN);
  const vf nmn = -mn;
  const vi gt = mx > nmn;
  const vi lt = nmn > mx;
  const vi zero = mx == 0.0f;
  vf m = gt ? mx : mn;
  m = (zero & ~(gt | lt)) != 0 ? splat(0.0f) : m;
  const vi tie = ~(gt | lt | zero);
  vi any = tie | __builtin_shufflevector(tie, tie, 4, 5, 6, 7, 0, 1, 2, 3);
  any |= __builtin_shufflevector(any, any, 2, 3, 0, 1, 6, 7, 4, 5);
  any |= __builtin_shufflevector(any, any, 1, 0, 3, 2, 5, 4, 7, 6);
  if (__builtin_expect(any[0] != 0, 0)) {
    for (int b = 0; b < 8; ++b) {
      if (tie[b] != 0) {
        m[b] = signed_max(x + b * kBV, KMX[b], KMN[b]);
      }
    }
  }
  const vf d = m / splat(-8.0f);
  const vf r = splat(1.0f) / d;  // ±inf where d is 0: not used
  const vf id = d != 0.0f ? r : splat(0.0f);
  const vi hb = half_bits(d);
  for (int b = 0; b < 8; ++b) {
    dbits[b] = uint16_t(hb[b]);
  }
  std::memcpy(ids, &id, sizeof id);
}
#else
static inline void block_scales(const vf *x, uint16_t *dbits, float *ids) {
  for (int b = 0; b < 8; ++b) {
    const vf *xb = x + b * kBV;
    vi kmx = order_keys(xb[0]);
    vi kmn = kmx;
    for (int k = 1; k < kBV; ++k) {
      vi key = order_keys(xb[k]);
      kmx = vmax(kmx, key);
      kmn = vmin(kmn, key);
    }
    float m = signed_max(xb, hmax(kmx), hmin(kmn));
    float d = m / -8.0f;
    ids[b] = d != 0.0f ? 1.0f / d : 0.0f;
    dbits[b] = metal::half(d).bits();
  }
}
#endif

static inline void q4_encode(const float *in, uint8_t *out) {
  vf x[kNV];
  for (int v = 0; v < kNV; ++v) {
    x[v] = stages_in_vector(loadf(in + v * kL));
  }
  vertical_stages(x);
  uint16_t dbits[8];
  float ids[8];
  block_scales(x, dbits, ids);
  for (int b = 0; b < 8; ++b) {
    const vf *xb = x + b * kBV;
    uint8_t *blk = out + b * 18;
    blk[0] = uint8_t(dbits[b] & 0xff);
    blk[1] = uint8_t(dbits[b] >> 8);
    const vf idv = splat(ids[b]);
    const vf half8 = splat(8.5f);
    vi q[kBV];
    for (int k = 0; k < kBV; ++k) {
      vf t = xb[k] * idv;  // two roundings, as in the reference: no FMA here
      t = t + half8;
      vi c = __builtin_convertvector(t, vi);  // truncation toward zero, like int(float)
      q[k] = c < 15 ? c : 15;
    }
    // value j in the low nibble of byte j, value j+16 in the high nibble; each int's low byte
    // (little-endian: byte 0 of the lane) is the packed byte
#if KVS_LANES == 8
    v32b lo = (v32b)(q[0] | (q[2] << 4));
    v32b hi = (v32b)(q[1] | (q[3] << 4));
    v16b bytes = __builtin_shufflevector(lo, hi, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60);
#else
    v16b p0 = (v16b)(q[0] | (q[4] << 4));
    v16b p1 = (v16b)(q[1] | (q[5] << 4));
    v16b p2 = (v16b)(q[2] | (q[6] << 4));
    v16b p3 = (v16b)(q[3] | (q[7] << 4));
    v16b p01 = __builtin_shufflevector(p0, p1, 0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
    v16b p23 = __builtin_shufflevector(p2, p3, 0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
    v16b bytes = __builtin_shufflevector(p01, p23, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
#endif
    std::memcpy(blk + 2, &bytes, sizeof bytes);
  }
}

static inline void q4_decode(const uint8_t *in, float *out) {
  vf x[kNV];
  for (int b = 0; b < 8; ++b) {
    const uint8_t *blk = in + b * 18;
    float d = metal::half::to_float(uint16_t(blk[0] | (blk[1] << 8)));
    const vf dv = splat(d);
    for (int k = 0; k < kBV / 2; ++k) {
      vb bytes;
      std::memcpy(&bytes, blk + 2 + k * kL, sizeof bytes);
      vi c = __builtin_convertvector(bytes, vi);
      x[b * kBV + k] = __builtin_convertvector((c & 15) - 8, vf) * dv;
      x[b * kBV + k + kBV / 2] = __builtin_convertvector((c >> 4) - 8, vf) * dv;
    }
  }
  fwht(x);
  for (int v = 0; v < kNV; ++v) {
    storef(out + v * kL, x[v]);
  }
}
