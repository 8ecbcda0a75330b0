// simd_equivalence — the C API's q4_0 path (whichever STRATA_KERNELS_ISA selects) against the portable
// kernel of kv_kernels.metal, byte for byte, on inputs the committed vectors do not reach in numbers:
// 20,000 random vectors over 60 decades of scale, blocks with exact ±ties, zeros of both signs,
// subnormals, values that overflow in the transform, infinities and NaNs; and decode of 20,000 random
// records (every half scale pattern, NaN and infinite scales included), compared bit for bit.
//
// NaN is the one exception, and it is not the vector path's: which NaN an IEEE add returns depends on
// operand order, and GCC commutes a + b freely, so the portable kernel compiled twice (here and in the
// library) already disagrees on NaN signs and payloads. So decoded values compare as equal bits or
// both NaN, and an encoded vector whose rotated values hold a NaN (the signed max then depends on the
// NaN's sign) is counted apart and not compared; every other vector must match byte for byte.
//
//   simd_equivalence            (prints the path it checked; exit 0 only when every byte matched)
#include "strata_kernels.h"

#include "metal_shim.h"
#include "kv_kernels.metal"
#include "metal_shim_end.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

// One input vector of a kind chosen by `kind`, from `rng`.
void fill(std::mt19937 &rng, int kind, float *v) {
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::uniform_int_distribution<int> pos(0, 255);
  std::uniform_real_distribution<float> decade(-30.0f, 30.0f);
  const float scale = std::pow(10.0f, decade(rng));
  for (int i = 0; i < 256; ++i) {
    v[i] = g(rng) * scale;
  }
  switch (kind) {
    case 0:  // Gaussian at a random scale (subnormal to near overflow)
      break;
    case 1: {  // exact ±ties within blocks, after the rotation too: a vector on one Walsh function
      int k = pos(rng);
      for (int i = 0; i < 256; ++i) {
        v[i] = (__builtin_popcount(i & k) & 1) ? -scale : scale;
      }
      break;
    }
    case 2:  // signed zeros and a few values
      for (int i = 0; i < 256; ++i) {
        v[i] = (rng() & 1) ? -0.0f : 0.0f;
      }
      v[pos(rng)] = g(rng);
      break;
    case 3:  // subnormal inputs
      for (int i = 0; i < 256; ++i) {
        v[i] = g(rng) * 1e-40f;
      }
      break;
    case 4:  // overflow inside the transform, infinities, NaNs of both signs
      v[pos(rng)] = 3e38f;
      v[pos(rng)] = -3e38f;
      v[pos(rng)] = std::numeric_limits<float>::infinity();
      v[pos(rng)] = -std::numeric_limits<float>::infinity();
      v[pos(rng)] = std::numeric_limits<float>::quiet_NaN();
      v[pos(rng)] = -std::numeric_limits<float>::quiet_NaN();
      break;
    case 5:  // a block holding the value 8·d exactly and its negative
      v[pos(rng) & ~31] = 8.0f;
      v[(pos(rng) & ~31) | 1] = -8.0f;
      break;
    default: {  // exact ±ties after the rotation: small integers y with a +5/−5 pair per block (or an
                // all-zero block), rotated back exactly (the transform is its own inverse and these
                // sums are exact), so the kernel's rotation yields y again and the tie scan runs
      std::uniform_int_distribution<int> small(-4, 4);
      float y[256];
      for (int b = 0; b < 8; ++b) {
        bool zero = (rng() % 5) == 0;
        for (int j = 0; j < 32; ++j) {
          y[b * 32 + j] = zero ? 0.0f : static_cast<float>(small(rng));
        }
        if (!zero) {
          int i = static_cast<int>(rng() % 32), k = static_cast<int>(rng() % 31);
          k = k >= i ? k + 1 : k;
          y[b * 32 + i] = 5.0f;
          y[b * 32 + k] = -5.0f;
        }
      }
      fwht256(y);
      std::memcpy(v, y, sizeof y);
      break;
    }
  }
}

}  // namespace

int main() {
  const char *isa = strata_kernels_isa();
  const std::size_t n = 20000;
  std::mt19937 rng(20261129);
  std::vector<float> in(n * 256);
  for (std::size_t i = 0; i < n; ++i) {
    fill(rng, static_cast<int>(i % 7), in.data() + i * 256);
  }
  std::vector<uint8_t> got(n * 144), want(n * 144);
  std::vector<float> dgot(n * 256), dwant(n * 256);
  long bad = 0;

  // encode: C API (the selected path) vs the portable kernel
  strata_kernels_encode(STRATA_KERNELS_Q4_0, in.data(), n, 256, got.data());
  KvParams p{static_cast<uint32_t>(n), 256};
  kv_q4 = true;
  for (uint32_t gid = 0; gid < n; ++gid) {
    kv_encode(in.data(), want.data(), p, gid);
  }
  long enc_bad = 0;
  long enc_nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float x[256];
    std::memcpy(x, in.data() + i * 256, sizeof x);
    fwht256(x);
    bool nan = false;
    for (float f : x) {
      nan = nan || std::isnan(f);
    }
    if (nan) {
      ++enc_nan;
      continue;
    }
    if (std::memcmp(got.data() + i * 144, want.data() + i * 144, 144) != 0) {
      if (enc_bad++ < 5) {
        std::printf("FAIL encode vector %zu (kind %zu) differs\n", i, i % 7);
      }
    }
  }

  // decode: the records just written, then random records (every scale bit pattern is fair game)
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      for (auto &b : want) {
        b = static_cast<uint8_t>(rng());
      }
    }
    strata_kernels_decode(STRATA_KERNELS_Q4_0, want.data(), n, 256, dgot.data());
    for (uint32_t gid = 0; gid < n; ++gid) {
      kv_decode(want.data(), dwant.data(), p, gid);
    }
    for (std::size_t i = 0; i < n; ++i) {
      bool same = true;
      for (int k = 0; k < 256; ++k) {
        float a = dgot[i * 256 + k], b = dwant[i * 256 + k];
        same = same && ((std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0);
      }
      if (!same) {
        if (bad++ < 5) {
          for (int k = 0; k < 256; ++k) {
            if (std::memcmp(&dgot[i * 256 + k], &dwant[i * 256 + k], 4) != 0) {
              std::printf("  value %d: %a, portable %a\n", k, dgot[i * 256 + k], dwant[i * 256 + k]);
              break;
            }
          }
          std::printf("FAIL decode (%s records) vector %zu differs\n", round ? "random" : "encoded", i);
        }
      }
    }
  }
  std::printf("simd equivalence (%s): q4_0 encode %zu vectors (%ld with NaN after the rotation, not compared), "
              "%ld differ; decode %zu records, %ld differ\n",
              isa, n, enc_nan, enc_bad, 2 * n, bad);
  return enc_bad == 0 && bad == 0 ? 0 : 1;
}
