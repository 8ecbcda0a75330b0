/*
 * The stand-in's own check, in C, run by the Makefile after each build (and under qemu for arm64, see
 * the arm64-check target): objc_msgSend reaches each method with its arguments untouched (eight integer
 * and nine floating-point arguments, so some travel on the stack), BOOL and uint64_t come back, pools
 * release what they hold, sysctlbyname keeps the kernel's sizes and errors. The Java tests
 * (DarwinStandinTest, MacProbeStandinTest) then run the probe itself through FFM.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void *id;
typedef const void *SEL;
id objc_getClass(const char *);
SEL sel_registerName(const char *);
void objc_msgSend(void);
void *objc_autoreleasePoolPush(void);
void objc_autoreleasePoolPop(void *);
id MTLCreateSystemDefaultDevice(void);
int sysctlbyname(const char *, void *, size_t *, void *, size_t);
void standin_reset(void);
int standin_set(const char *, const char *);
long standin_count(const char *);
id standin_new_args(void);

static int failures;
#define CHECK(c)                                                   \
  do {                                                             \
    if (!(c)) {                                                    \
      fprintf(stderr, "standin_selftest:%d: %s\n", __LINE__, #c);  \
      failures++;                                                  \
    }                                                              \
  } while (0)

int main(void) {
  standin_reset();
  CHECK(standin_set("hw.memsize", "51539607552") == 0);
  CHECK(standin_set("hw.ncpu", "14") == 0);
  CHECK(standin_set("machdep.cpu.brand_string", "Apple M4 Pro") == 0);
  CHECK(standin_set("hw.ncpu.nope", "1") == -1);
  CHECK(standin_set("hw.ncpu", "1x") == -1);
  CHECK(standin_set("metal.device", "yes") == 0);
  CHECK(standin_set("metal.name", "Apple M4 Pro") == 0);
  CHECK(standin_set("metal.families", "1001,1009,5002") == 0);
  CHECK(standin_set("metal.recommendedMaxWorkingSetSize", "38654705664") == 0);

  size_t n = 0;
  CHECK(sysctlbyname("hw.memsize", NULL, &n, NULL, 0) == 0 && n == 8);
  uint64_t mem = 0;
  CHECK(sysctlbyname("hw.memsize", &mem, &n, NULL, 0) == 0 && mem == 51539607552ull);
  int32_t ncpu = 0;
  n = sizeof ncpu;
  CHECK(sysctlbyname("hw.ncpu", &ncpu, &n, NULL, 0) == 0 && n == 4 && ncpu == 14);
  CHECK(sysctlbyname("machdep.cpu.brand_string", NULL, &n, NULL, 0) == 0 && n == 13);
  char small[4];
  n = sizeof small;
  CHECK(sysctlbyname("machdep.cpu.brand_string", small, &n, NULL, 0) == -1 && errno == ENOMEM);
  CHECK(sysctlbyname("iogpu.wired_limit_mb", NULL, &n, NULL, 0) == -1 && errno == ENOENT);
  CHECK(sysctlbyname("no.such.name", NULL, &n, NULL, 0) == -1 && errno == ENOENT);

  CHECK(objc_getClass("NSObject") != NULL);
  CHECK(objc_getClass("NoSuchClass") == NULL);
  CHECK(sel_registerName("name") == sel_registerName("name"));

  void *pool = objc_autoreleasePoolPush();
  id dev = MTLCreateSystemDefaultDevice();
  CHECK(dev != NULL);
  bool (*supports)(id, SEL, long) = (bool (*)(id, SEL, long))objc_msgSend;
  CHECK(supports(dev, sel_registerName("supportsFamily:"), 1009));
  CHECK(!supports(dev, sel_registerName("supportsFamily:"), 1010));
  CHECK(supports(dev, sel_registerName("supportsFamily:"), 5002));
  uint64_t (*u64)(id, SEL) = (uint64_t (*)(id, SEL))objc_msgSend;
  CHECK(u64(dev, sel_registerName("recommendedMaxWorkingSetSize")) == 38654705664ull);
  id (*get)(id, SEL) = (id (*)(id, SEL))objc_msgSend;
  id name = get(dev, sel_registerName("name"));
  const char *(*utf8)(id, SEL) = (const char *(*)(id, SEL))objc_msgSend;
  CHECK(strcmp(utf8(name, sel_registerName("UTF8String")), "Apple M4 Pro") == 0);
  bool (*responds)(id, SEL, SEL) = (bool (*)(id, SEL, SEL))objc_msgSend;
  CHECK(responds(dev, sel_registerName("respondsToSelector:"), sel_registerName("supportsFamily:")));
  CHECK(!responds(dev, sel_registerName("respondsToSelector:"), sel_registerName("noSuchMethod")));
  CHECK(u64(NULL, sel_registerName("recommendedMaxWorkingSetSize")) == 0); /* nil receiver */
  double (*mix)(id, SEL, long, long, long, long, long, long, long, long, double, double, double, double,
                double, double, double, double, double) =
      (double (*)(id, SEL, long, long, long, long, long, long, long, long, double, double, double,
                  double, double, double, double, double, double))objc_msgSend;
  id args = standin_new_args();
  double got = mix(args, sel_registerName("mixA:b:c:d:e:f:g:h:x:x:x:x:x:x:x:x:x:"), 1, 2, 3, 4, 5, 6, 7,
                   8, 0.5, 0.25, 0.125, 1, 2, 3, 4, 5, 6);
  CHECK(got == 204 + 0.5 + 0.5 + 0.375 + 4 + 10 + 18 + 28 + 40 + 54);
  void (*rel)(id, SEL) = (void (*)(id, SEL))objc_msgSend;
  rel(args, sel_registerName("release"));
  rel(dev, sel_registerName("release"));
  CHECK(standin_count("alive") == 1); /* the name, still in the pool */
  objc_autoreleasePoolPop(pool);
  CHECK(standin_count("alive") == 0);
  CHECK(standin_count("pushes") == 1 && standin_count("pops") == 1 && standin_count("depth") == 0);
  CHECK(standin_count("overreleased") == 0 && standin_count("no_pool") == 0);
  CHECK(standin_count("unrecognized") == 0);

  if (failures == 0) {
    printf("standin_selftest: ok\n");
  }
  return failures == 0 ? 0 : 1;
}
