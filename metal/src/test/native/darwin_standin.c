/*
 * darwin_standin: a test-only stand-in for the Darwin side of MacProbe, built for Linux (ELF, x86-64 and
 * arm64) by metal/src/test/native/Makefile during Maven's test build. It is never shipped.
 *
 * It exports the symbols MacProbe resolves on a Mac, under their Apple names and with Apple's C
 * signatures, so the probe's own FFM code (Sysctl, ObjC, MetalGpu) runs unchanged against it:
 *
 *   libSystem  sysctlbyname                         (answers from a recorded Mac profile)
 *   libobjc    objc_getClass, sel_registerName, objc_msgSend (assembly: objc_msgSend_*.S),
 *              objc_autoreleasePoolPush/Pop, objc_retain/objc_release/objc_autorelease
 *   Metal      MTLCreateSystemDefaultDevice, and a device object answering the real selectors
 *
 * Every selector a stand-in object answers is listed below with the Apple documentation of that method.
 * What Apple's runtime does and this one copies: objc_msgSend finds the method for (receiver, selector)
 * and jumps to it with the argument registers untouched; a nil receiver returns 0; a selector the object
 * does not implement is an uncaught NSInvalidArgumentException, i.e. the process aborts ("unrecognized
 * selector sent to instance"); autorelease pools are per thread, and popping a token that is not on the
 * thread's stack is fatal. Objects are reference counted and freed at zero; the library counts retains,
 * releases, pool pushes and pops, objects alive, over-releases and autoreleases outside any pool, so a
 * test can show the probe balanced every one.
 *
 * Test controls (not Apple API): standin_reset, standin_load (a profile file), standin_set (one key),
 * standin_count (a counter by name), standin_release_hang. Keys and the profile format: docs/PROBE.md
 * ("The Darwin stand-in") and the profiles in metal/src/test/resources/darwin-standin/.
 *
 * This file holds the profile, the counters and the test controls; darwin_standin.h names the other parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_standin.h"

atomic_long n_retains, n_releases, n_autoreleases, n_pushes, n_pops, n_alive, n_created, n_overreleased,
    n_no_pool, n_unrecognized, n_sends, n_bad_pops, n_sysctl_calls, n_devices;
atomic_int hang_released;
pthread_mutex_t standin_lock = PTHREAD_MUTEX_INITIALIZER;
standin_profile profile;

/* ---------------------------------------------------------------------------------------------------
 * Test controls.
 */
EXPORT void standin_reset(void) {
  pthread_mutex_lock(&standin_lock);
  sysctl_reset();
  memset(&profile, 0, sizeof profile);
  profile.abort_unrecognized = true;
  atomic_long *all[] = {&n_retains, &n_releases, &n_autoreleases, &n_pushes, &n_pops, &n_alive,
                        &n_created, &n_overreleased, &n_no_pool, &n_unrecognized, &n_sends,
                        &n_bad_pops, &n_sysctl_calls, &n_devices};
  for (size_t i = 0; i < COUNT(all); i++) {
    atomic_store(all[i], 0);
  }
  atomic_store(&hang_released, 0);
  pthread_mutex_unlock(&standin_lock);
}

/* A new (owned) StandinArgs object, for the trampoline's argument test. */
EXPORT id standin_new_args(void) { return object_new(&args_class); }

/* Lets a thread stuck in a FAULT_HANG method return. */
EXPORT void standin_release_hang(void) { atomic_store(&hang_released, 1); }

int parse_int(const char *v, long long min, long long max, long long *out) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || x < min || x > max) {
    return -1;
  }
  *out = x;
  return 0;
}

/*
 * Sets one key of the profile. Sysctl names take a decimal (int, quad) or text (string) value and are
 * stored in the kernel's layout for that name; "-" makes the name absent (ENOENT). Metal keys:
 *   metal.device = yes|no                 MTLCreateSystemDefaultDevice returns a device or nil
 *   metal.name = TEXT                     the device's name
 *   metal.recommendedMaxWorkingSetSize = N
 *   metal.families = 1001,1002,...        what supportsFamily: answers YES to
 *   metal.missing = SELECTOR              a selector the device does not implement (repeatable)
 *   fault = segv:SELECTOR | hang:SELECTOR a method (or MTLCreateSystemDefaultDevice) that faults
 *   objc.unrecognized = abort|record      abort (Apple's behaviour, the default) or count and return 0
 * Returns 0, or -1 for an unknown key or a bad value.
 */
EXPORT int standin_set(const char *key, const char *value) {
  pthread_mutex_lock(&standin_lock);
  int rc = sysctl_set(key, value);
  if (rc == 1) {
    rc = metal_set(key, value);
  }
  pthread_mutex_unlock(&standin_lock);
  return rc == 0 ? 0 : -1;
}

/*
 * Resets, then loads a profile file: "key = value" lines, '#' starts a comment. Returns 0, or the
 * 1-based number of the first bad line (-1 when the file cannot be read).
 */
EXPORT int standin_load(const char *path) {
  standin_reset();
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    return -1;
  }
  char line[1024];
  int n = 0;
  int bad = 0;
  while (bad == 0 && fgets(line, sizeof line, f) != NULL) {
    n++;
    char *hash = strchr(line, '#');
    if (hash != NULL) {
      *hash = '\0';
    }
    char *eq = strchr(line, '=');
    char *k = line;
    while (*k == ' ' || *k == '\t') {
      k++;
    }
    if (eq == NULL) {
      bad = strspn(k, " \t\r\n") == strlen(k) ? 0 : n; /* blank or comment-only lines are fine */
      continue;
    }
    char *kend = eq;
    while (kend > k && (kend[-1] == ' ' || kend[-1] == '\t')) {
      kend--;
    }
    *kend = '\0';
    char *v = eq + 1;
    while (*v == ' ' || *v == '\t') {
      v++;
    }
    size_t len = strlen(v);
    while (len > 0 && strchr(" \t\r\n", v[len - 1]) != NULL) {
      v[--len] = '\0';
    }
    if (standin_set(k, v) != 0) {
      bad = n;
    }
  }
  fclose(f);
  return bad;
}

/* A counter by name; -1 for an unknown name. "depth" is the calling thread's open pools. */
EXPORT long standin_count(const char *what) {
  static const struct {
    const char *name;
    atomic_long *v;
  } counters[] = {
      {"retains", &n_retains},         {"releases", &n_releases},   {"autoreleases", &n_autoreleases},
      {"pushes", &n_pushes},           {"pops", &n_pops},           {"alive", &n_alive},
      {"created", &n_created},         {"overreleased", &n_overreleased},
      {"no_pool", &n_no_pool},         {"unrecognized", &n_unrecognized},
      {"sends", &n_sends},             {"bad_pops", &n_bad_pops},   {"sysctl_calls", &n_sysctl_calls},
      {"devices", &n_devices},
  };
  if (strcmp(what, "depth") == 0) {
    return (long)pools_open();
  }
  for (size_t i = 0; i < COUNT(counters); i++) {
    if (strcmp(counters[i].name, what) == 0) {
      return atomic_load(counters[i].v);
    }
  }
  return -1;
}
