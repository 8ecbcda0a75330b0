// kv_bench — single-thread throughput of the C++-built KV kernels against memcpy, same run, same bytes.
//
// The float side of every kernel is MiB floats (default 64 MiB, above the last-level cache): encode reads
// it, decode writes it. memcpy copies that many bytes between two other buffers of the same size. Each
// figure is the median of `reps` timed repetitions after one warm-up; ratio = memcpy time / kernel time,
// so 0.5 means the kernel moves its floats at half memcpy's bandwidth.
#include "strata_kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double median_seconds(int reps, F f) {
  f();  // warm-up: page faults, caches
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  setenv("STRATA_KERNELS_THREADS", "1", 1);  // one core: the C API reads this at its first call
  const int hd = 256;
  size_t floats = mib * 1024 * 1024 / sizeof(float);
  size_t n = floats / hd;
  size_t bytes = n * hd * sizeof(float);

  std::vector<float> x(floats), y(floats);
  std::vector<unsigned char> a(bytes), b(bytes);
  std::mt19937 rng(42);
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (auto &v : x) v = g(rng);
  std::memcpy(a.data(), x.data(), bytes);
  std::vector<unsigned char> rec(n * strata_kernels_record_bytes(STRATA_KERNELS_FP16, hd));

  std::printf("kv_bench: %zu vectors x %d floats = %zu MiB, median of %d, one thread\n", n, hd,
              bytes >> 20, reps);
  double t_memcpy = median_seconds(reps, [&] {
    std::memcpy(b.data(), a.data(), bytes);
    asm volatile("" ::: "memory");
  });
  std::printf("%-14s %8.2f ms  %7.2f GB/s  ratio 1.000\n", "memcpy", t_memcpy * 1e3, bytes / t_memcpy / 1e9);
  const struct {
    int format;
    const char *name;
  } formats[] = {{STRATA_KERNELS_Q4_0, "q4_0"}, {STRATA_KERNELS_INT8, "int8"}, {STRATA_KERNELS_FP16, "fp16"}};
  for (const auto &f : formats) {
    int rc = 0;
    double te = median_seconds(reps, [&] { rc |= strata_kernels_encode(f.format, x.data(), n, hd, rec.data()); });
    double td = median_seconds(reps, [&] { rc |= strata_kernels_decode(f.format, rec.data(), n, hd, y.data()); });
    if (rc != 0) {
      std::fprintf(stderr, "kv_bench: %s failed: %d\n", f.name, rc);
      return 1;
    }
    double err = 0, ref = 0;
    for (size_t i = 0; i < floats; ++i) {
      err += double(x[i] - y[i]) * double(x[i] - y[i]);
      ref += double(x[i]) * double(x[i]);
    }
    std::printf("%-5s encode   %8.2f ms  %7.2f GB/s  ratio %.3f\n", f.name, te * 1e3, bytes / te / 1e9, t_memcpy / te);
    std::printf("%-5s decode   %8.2f ms  %7.2f GB/s  ratio %.3f   (rel. RMS error %.4f)\n", f.name, td * 1e3,
                bytes / td / 1e9, t_memcpy / td, std::sqrt(err / ref));
  }
  return 0;
}
