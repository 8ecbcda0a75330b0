// kernels_parity — the .metal-as-C++ kernels against the Java reference's committed vectors.
//
//   kernels_parity <vectors-dir>
//
// For every case and format: encode through the C API and compare with <fmt>.rec (scales identical;
// codes identical except where the value lies within 1e-6 of a rounding tie, counted and bounded), and
// decode <fmt>.rec through the C API and compare with <fmt>.dec (within 1e-6 relative to the vector's
// largest value). Also: the shim's half conversion exhaustively, the C API's error codes, and a
// threaded dispatch with thread-local function constants. Exit 0 only when everything passed; the
// last line is "kernels parity: N passed, M failed".
#include "strata_kernels.h"

#include "metal_shim.h"
#include "kv_kernels.metal"
#include "metal_shim_end.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const std::string &what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAIL %s\n", what.c_str());
  }
}

std::vector<unsigned char> slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "kernels_parity: cannot read %s (run from kernels/, or pass the vectors folder)\n",
                 path.c_str());
    std::exit(2);
  }
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

std::vector<float> floats(const std::vector<unsigned char> &b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);  // little-endian hosts only (x86-64, arm64)
  return v;
}

struct Case {
  std::string category;
  std::string name;
};

std::vector<Case> read_cases(const std::string &path) {
  auto bytes = slurp(path);
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto t1 = line.find('\t');
    auto t2 = line.find('\t', t1 + 1);
    cases.push_back({line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)});
  }
  return cases;
}


// Near a rounding tie: the quantity that is truncated (q4: v·id + 8.5) or rounded (int8: v/d) lies
// within 1e-6 of the block's code range (16 for q4, 127 for int8) of the boundary between codes.
bool near_tie(double t, double range, bool truncating) {
  double frac = truncating ? t - std::floor(t) : std::fabs(t) - std::floor(std::fabs(t)) - 0.5;
  double dist = truncating ? std::min(frac, 1.0 - frac) : std::fabs(frac);
  return dist <= 1e-6 * range;
}

struct CodeStats {
  long codes = 0;
  long tie_mismatches = 0;
  long hard_mismatches = 0;
  long scale_mismatches = 0;
};

// q4_0: compares one produced record with the expected one.
void compare_q4(const float *input, const unsigned char *got, const unsigned char *want, CodeStats &st) {
  float x[256];
  std::memcpy(x, input, sizeof x);
  fwht256(x);
  for (int b = 0; b < 8; ++b) {
    const unsigned char *g = got + 18 * b;
    const unsigned char *w = want + 18 * b;
    if (g[0] != w[0] || g[1] != w[1]) ++st.scale_mismatches;
    float m = signed_max32(x + 32 * b);
    float d = m / -8.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < 32; ++j) {
      int byte = 2 + (j & 15);
      int shift = j < 16 ? 0 : 4;
      int cg = (g[byte] >> shift) & 15;
      int cw = (w[byte] >> shift) & 15;
      ++st.codes;
      if (cg != cw) {
        double t = double(x[32 * b + j]) * double(id) + 8.5;
        (near_tie(t, 16.0, true) && std::abs(cg - cw) == 1 ? st.tie_mismatches : st.hard_mismatches)++;
      }
    }
  }
}

void compare_int8(const float *input, const unsigned char *got, const unsigned char *want, int hd, CodeStats &st) {
  for (int g = 0; g < hd / 64; ++g) {
    const unsigned char *sg = got + hd + 2 * g;
    const unsigned char *sw = want + hd + 2 * g;
    if (sg[0] != sw[0] || sg[1] != sw[1]) ++st.scale_mismatches;
    float amax = 0;
    for (int j = 0; j < 64; ++j) amax = std::max(amax, std::fabs(input[64 * g + j]));
    float d = amax / 127.0f;
    for (int j = 0; j < 64; ++j) {
      ++st.codes;
      int cg = int(static_cast<signed char>(got[64 * g + j]));
      int cw = int(static_cast<signed char>(want[64 * g + j]));
      if (cg != cw) {
        double t = d != 0 ? double(input[64 * g + j]) / double(d) : 0.0;
        (near_tie(t, 127.0, false) && std::abs(cg - cw) == 1 ? st.tie_mismatches : st.hard_mismatches)++;
      }
    }
  }
}

void check_half_exhaustive() {
  long bad = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = metal::half::to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    if (metal::half::from_float(f) != h) ++bad;
    // the midpoint to the next half up (same sign) must round to the even one of the two
    uint32_t next = h + 1;
    if ((h & 0x7fffu) >= 0x7c00u || (next & 0x7fffu) > 0x7c00u || (next & 0x8000u) != (h & 0x8000u)) continue;
    float fn = metal::half::to_float(static_cast<uint16_t>(next));
    if (std::isinf(fn)) {
      // the midpoint between 65504 and "65536" is 65520: it rounds to infinity
      fn = (h & 0x8000u) ? -65536.0f : 65536.0f;
    }
    double mid = (double(f) + double(fn)) / 2;
    float midf = static_cast<float>(mid);
    if (double(midf) != mid) continue;  // not representable as a float: no tie to test
    uint32_t even = (h & 1u) ? next : h;
    if (metal::half::from_float(midf) != even) ++bad;
  }
  check(bad == 0, "half: every half round-trips and every midpoint rounds to even (" + std::to_string(bad) + " bad)");
}

void check_api_errors() {
  std::vector<float> x(512, 1.0f);
  std::vector<uint8_t> r(2048);
  check(strata_kernels_encode(3, x.data(), 1, 256, r.data()) == STRATA_KERNELS_EBADFORMAT, "k8v4 is not a record format");
  check(strata_kernels_encode(-1, x.data(), 1, 256, r.data()) == STRATA_KERNELS_EBADFORMAT, "format -1");
  check(strata_kernels_decode(7, r.data(), 1, 256, x.data()) == STRATA_KERNELS_EBADFORMAT, "decode format 7");
  check(strata_kernels_encode(2, x.data(), 1, 128, r.data()) == STRATA_KERNELS_EHEADDIM, "q4_0 head_dim 128");
  check(strata_kernels_encode(1, x.data(), 1, 96, r.data()) == STRATA_KERNELS_EHEADDIM, "int8 head_dim 96");
  check(strata_kernels_decode(0, r.data(), 1, 0, x.data()) == STRATA_KERNELS_EHEADDIM, "fp16 head_dim 0");
  check(strata_kernels_encode(2, nullptr, 1, 256, r.data()) == STRATA_KERNELS_ENULL, "NULL src");
  check(strata_kernels_encode(2, nullptr, 0, 256, nullptr) == 0, "zero vectors is a no-op");
  check(strata_kernels_record_bytes(0, 256) == 512 && strata_kernels_record_bytes(1, 256) == 264 &&
            strata_kernels_record_bytes(1, 128) == 132 && strata_kernels_record_bytes(2, 256) == 144 &&
            strata_kernels_record_bytes(2, 64) == 0 && strata_kernels_record_bytes(3, 256) == 0,
        "record bytes");
  // int8 at head_dim 128 is two 64-groups per record: same bytes as the Java layout rule
  std::vector<float> y(256);
  for (int i = 0; i < 256; ++i) y[i] = float(i % 50) - 20.25f;
  std::vector<uint8_t> a(2 * 132), b(264);
  strata_kernels_encode(1, y.data(), 2, 128, a.data());
  strata_kernels_encode(1, y.data(), 1, 256, b.data());
  check(std::memcmp(a.data(), b.data(), 128) == 0 && std::memcmp(a.data() + 128, b.data() + 256, 4) == 0,
        "int8 head_dim 128 records are the 256 record's halves");
}

// Specializations are per dispatch: a threaded dispatch gives the same bytes as the C API, and two
// callers running q4_0 and int8 at the same time (different kv_q4 values) do not disturb each other.
void check_threaded_dispatch(const std::vector<float> &input, size_t n) {
  std::vector<uint8_t> want_q4(n * 144), want_i8(n * 264), got(n * 144);
  strata_kernels_encode(2, input.data(), n, 256, want_q4.data());
  strata_kernels_encode(1, input.data(), n, 256, want_i8.data());
  KvParams p{static_cast<uint32_t>(n), 256};
  metal_shim::dispatch(n, 3, [] { kv_q4 = true; },
                       [&](size_t gid) { kv_encode(input.data(), got.data(), p, static_cast<uint32_t>(gid)); });
  check(want_q4 == got, "threaded dispatch (3 threads) equals the C API");
  bool same = true;
  for (int round = 0; round < 20 && same; ++round) {
    std::vector<uint8_t> a(n * 144), b(n * 264);
    std::thread t1([&] { for (int k = 0; k < 10; ++k) strata_kernels_encode(2, input.data(), n, 256, a.data()); });
    std::thread t2([&] { for (int k = 0; k < 10; ++k) strata_kernels_encode(1, input.data(), n, 256, b.data()); });
    t1.join();
    t2.join();
    same = a == want_q4 && b == want_i8;
  }
  check(same, "concurrent q4_0 and int8 callers each get their own specialization");
}

}  // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : "src/test/resources/vectors";
  auto cases = read_cases(dir + "/cases.tsv");
  auto input = floats(slurp(dir + "/input.f32"));
  size_t n = cases.size();
  if (input.size() != n * 256) {
    std::fprintf(stderr, "kernels_parity: input.f32 holds %zu floats, cases.tsv names %zu vectors\n", input.size(), n);
    return 2;
  }
  const struct {
    int id;
    const char *label;
  } formats[] = {{0, "fp16"}, {1, "int8"}, {2, "q4_0"}};
  for (const auto &f : formats) {
    auto want_rec = slurp(dir + "/" + f.label + ".rec");
    auto want_dec = floats(slurp(dir + "/" + f.label + ".dec"));
    size_t rb = strata_kernels_record_bytes(f.id, 256);
    std::vector<uint8_t> rec(n * rb);
    std::vector<float> dec(n * 256);
    int rc = strata_kernels_encode(f.id, input.data(), n, 256, rec.data());
    int rc2 = strata_kernels_decode(f.id, want_rec.data(), n, 256, dec.data());
    check(rc == 0 && rc2 == 0 && want_rec.size() == n * rb, std::string(f.label) + ": API calls");
    CodeStats st;
    long exact_dec = 0;
    for (size_t i = 0; i < n; ++i) {
      const std::string what = std::string(f.label) + " case " + std::to_string(i) + " (" + cases[i].name + ")";
      const uint8_t *g = rec.data() + i * rb;
      const uint8_t *w = want_rec.data() + i * rb;
      CodeStats one;
      if (f.id == 2) {
        compare_q4(input.data() + i * 256, g, w, one);
      } else if (f.id == 1) {
        compare_int8(input.data() + i * 256, g, w, 256, one);
      } else {
        one.codes = 256;
        one.hard_mismatches = std::memcmp(g, w, rb) != 0;
      }
      check(one.hard_mismatches == 0 && one.scale_mismatches == 0,
            what + " encode: " + std::to_string(one.hard_mismatches) + " codes and " +
                std::to_string(one.scale_mismatches) + " scales differ");
      st.codes += one.codes;
      st.tie_mismatches += one.tie_mismatches;
      double vmax = 0;
      for (int k = 0; k < 256; ++k) vmax = std::max(vmax, std::fabs(double(want_dec[i * 256 + k])));
      bool ok = true;
      for (int k = 0; k < 256; ++k) {
        double a = dec[i * 256 + k], b = want_dec[i * 256 + k];
        ok = ok && std::fabs(a - b) <= 1e-6 * vmax;
        exact_dec += std::memcmp(&dec[i * 256 + k], &want_dec[i * 256 + k], 4) == 0;
      }
      check(ok, what + " decode within 1e-6 of the vector's largest value");
    }
    // ties are allowed to fall either way, but only rarely: at most 1 code in 1000
    check(st.tie_mismatches * 1000 <= st.codes, std::string(f.label) + ": near-tie code differences bounded");
    std::printf("%-5s %zu vectors: %ld codes, %ld differ at a near-tie; decoded values bit-identical: %ld of %zu\n",
                f.label, n, st.codes, st.tie_mismatches, exact_dec, n * 256);
  }
  check_half_exhaustive();
  check_api_errors();
  check_threaded_dispatch(input, n);
  std::printf("kernels parity: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
