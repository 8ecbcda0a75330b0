// kv_bench — single-thread throughput of the C++-built KV kernels against memcpy, same run, same bytes.
//
// The float side of every kernel is MiB floats (default 64 MiB, above the last-level cache): encode reads
// it, decode writes it. memcpy copies that many bytes between two other buffers of the same size. Each
// repetition times memcpy right before the kernel (paired: a busy machine slows both); figures are
// medians over `reps` repetitions after one warm-up; ratio = memcpy time / kernel time,
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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

  std::printf("kv_bench: %zu vectors x %d floats = %zu MiB, %d repetitions, one thread, q4_0 path %s\n", n, hd,
              bytes >> 20, reps, strata_kernels_isa());
  std::printf("ratio = memcpy time / kernel time over the same %zu MiB of floats; each repetition times\n"
              "memcpy right before the kernel (paired), figures are medians\n", bytes >> 20);
  auto copy = [&] {
    std::memcpy(b.data(), a.data(), bytes);
    asm volatile("" ::: "memory");
  };
  const struct {
    int format;
    const char *name;
  } formats[] = {{STRATA_KERNELS_Q4_0, "q4_0"}, {STRATA_KERNELS_INT8, "int8"}, {STRATA_KERNELS_FP16, "fp16"}};
  std::printf("%-12s %10s %10s %9s %10s %12s\n", "kernel", "ms", "GB/s", "memcpy ms", "memcpy GB/s", "ratio");
  for (const auto &f : formats) {
    int rc = 0;
    for (int dir = 0; dir < 2; ++dir) {
      auto kernel = [&] {
        if (dir == 0) {
          rc |= strata_kernels_encode(f.format, x.data(), n, hd, rec.data());
        } else {
          rc |= strata_kernels_decode(f.format, rec.data(), n, hd, y.data());
        }
      };
      copy();
      kernel();  // warm-up: page faults, caches
      std::vector<double> tk, tm, ratio;
      for (int r = 0; r < reps; ++r) {
        double t0 = now();
        copy();
        double t1 = now();
        kernel();
        double t2 = now();
        tm.push_back(t1 - t0);
        tk.push_back(t2 - t1);
        ratio.push_back((t1 - t0) / (t2 - t1));
      }
      if (rc != 0) {
        std::fprintf(stderr, "kv_bench: %s failed: %d\n", f.name, rc);
        return 1;
      }
      double k = median(tk), m = median(tm);
      std::printf("%-5s %-6s %10.2f %10.2f %9.2f %10.2f %12.3f\n", f.name, dir == 0 ? "encode" : "decode",
                  k * 1e3, bytes / k / 1e9, m * 1e3, bytes / m / 1e9, median(ratio));
    }
    double err = 0, ref = 0;
    for (size_t i = 0; i < floats; ++i) {
      err += double(x[i] - y[i]) * double(x[i] - y[i]);
      ref += double(x[i]) * double(x[i]);
    }
    std::printf("%-5s round trip: relative RMS error %.4f\n", f.name, std::sqrt(err / ref));
  }
  return 0;
}
