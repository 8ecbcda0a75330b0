/*
 * darwin_standin, Metal: the device object MTLCreateSystemDefaultDevice returns and the selectors it
 * answers (each with Apple's documentation of that method), the StandinArgs object for the trampoline's
 * argument test, the injected faults, and the profile keys that describe them (metal.*, fault,
 * objc.unrecognized).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "darwin_standin.h"

static void fault_if(const char *selector_or_function) {
  if (profile.fault == FAULT_NONE || strcmp(profile.fault_selector, selector_or_function) != 0) {
    return;
  }
  if (profile.fault == FAULT_SEGV) {
    /* A real invalid access, as a driver bug would make: the JVM's handler sees a fault in native code. */
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
  }
  while (!atomic_load(&hang_released)) { /* FAULT_HANG: until the test lets go */
    usleep(1000);
  }
}

/* @property(readonly) NSString *name (MTLDevice): not owned by the caller. The getter returns an
 * autoreleased string, so a caller without an autorelease pool leaks it (counted) and a caller that
 * releases it over-releases it (counted).
 * https://developer.apple.com/documentation/metal/mtldevice/name */
static id m_device_name(id self, SEL cmd) {
  fault_if("name");
  id s = object_new(&nsstring_class);
  s->u.string.utf8 = strdup(profile.name);
  return do_autorelease(s);
}

/* - (BOOL)supportsFamily:(MTLGPUFamily)gpuFamily (MTLGPUFamily is an NSInteger enum).
 * https://developer.apple.com/documentation/metal/mtldevice/supportsfamily(_:)
 * https://developer.apple.com/documentation/metal/mtlgpufamily
 * BOOL is one byte (bool on arm64, signed char on x86-64); the bits above it in the return register
 * are unspecified in both ABIs. This method sets them, so a caller that reads a wider type than BOOL
 * gets a wrong answer here instead of on a Mac. */
static uint64_t m_supports_family(id self, SEL cmd, NSInteger family) {
  fault_if("supportsFamily:");
  bool yes = false;
  for (size_t i = 0; i < profile.family_count; i++) {
    yes |= profile.families[i] == family;
  }
  return UINT64_C(0x5A5A5A5A5A5A5A00) | (yes ? 1u : 0u);
}

/* @property(readonly) uint64_t recommendedMaxWorkingSetSize (MTLDevice).
 * https://developer.apple.com/documentation/metal/mtldevice/recommendedmaxworkingsetsize */
static uint64_t m_working_set(id self, SEL cmd) {
  fault_if("recommendedMaxWorkingSetSize");
  return profile.working_set;
}

/* Not Apple API: one method with more arguments than there are argument registers, integer and
 * floating point, so a test shows objc_msgSend hands every register and stack slot over untouched.
 * - (double)mixA:(long)a b:(long)b c:(long)c d:(long)d e:(long)e f:(long)f g:(long)g h:(long)h
 *   x:(double)x0 ... (double)x8: sum of (i+1)*arg_i over the longs plus sum of (j+1)*x_j. */
static double m_mix(id self, SEL cmd, long a, long b, long c, long d, long e, long f, long g, long h,
                    double x0, double x1, double x2, double x3, double x4, double x5, double x6,
                    double x7, double x8) {
  return (double)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h) + x0 + 2 * x1 + 3 * x2 +
         4 * x3 + 5 * x4 + 6 * x5 + 7 * x6 + 8 * x7 + 9 * x8;
}

static const method device_methods[] = {
    M("name", m_device_name), M("supportsFamily:", m_supports_family),
    M("recommendedMaxWorkingSetSize", m_working_set),
};
/* Apple's device classes are private (AGXG13XFamilyDevice, ...); this name says what it is. */
const standin_class device_class = {NULL, "AGXStandinDevice", &nsobject_class, device_methods,
                                    COUNT(device_methods)};

static const method args_methods[] = {M("mixA:b:c:d:e:f:g:h:x:x:x:x:x:x:x:x:x:", m_mix)};
const standin_class args_class = {NULL, "StandinArgs", &nsobject_class, args_methods, COUNT(args_methods)};

bool device_lacks(SEL sel) {
  for (size_t i = 0; i < profile.missing_count; i++) {
    if (strcmp(profile.missing[i], sel) == 0) {
      return true;
    }
  }
  return false;
}

/* id<MTLDevice> MTLCreateSystemDefaultDevice(void): an owned device (the Create rule), or nil.
 * https://developer.apple.com/documentation/metal/mtlcreatesystemdefaultdevice() */
EXPORT id MTLCreateSystemDefaultDevice(void) {
  fault_if("MTLCreateSystemDefaultDevice");
  if (!profile.device) {
    return NULL;
  }
  atomic_fetch_add(&n_devices, 1);
  return object_new(&device_class);
}

/* The metal.*, fault and objc.unrecognized keys (standin_set lists them); the caller holds standin_lock. */
int metal_set(const char *key, const char *value) {
  int rc = 0;
  long long x;
  if (strcmp(key, "metal.device") == 0) {
    rc = strcmp(value, "yes") == 0 || strcmp(value, "no") == 0 ? 0 : -1;
    profile.device = strcmp(value, "yes") == 0;
  } else if (strcmp(key, "metal.name") == 0 && strlen(value) < MAX_VALUE) {
    strcpy(profile.name, value);
  } else if (strcmp(key, "metal.recommendedMaxWorkingSetSize") == 0 &&
             parse_int(value, 0, INT64_MAX, &x) == 0) {
    profile.working_set = (uint64_t)x;
  } else if (strcmp(key, "metal.families") == 0) {
    profile.family_count = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t != NULL && rc == 0;
         t = strtok_r(NULL, ", ", &save)) {
      rc = profile.family_count < MAX_FAMILIES && parse_int(t, 1, 100000, &x) == 0 ? 0 : -1;
      if (rc == 0) {
        profile.families[profile.family_count++] = (NSInteger)x;
      }
    }
  } else if (strcmp(key, "metal.missing") == 0 && profile.missing_count < MAX_MISSING &&
             strlen(value) < MAX_SELECTOR) {
    strcpy(profile.missing[profile.missing_count++], value);
  } else if (strcmp(key, "fault") == 0 && strlen(value) < MAX_SELECTOR + 5) {
    if (strncmp(value, "segv:", 5) == 0) {
      profile.fault = FAULT_SEGV;
    } else if (strncmp(value, "hang:", 5) == 0) {
      profile.fault = FAULT_HANG;
    } else {
      rc = -1;
    }
    snprintf(profile.fault_selector, sizeof profile.fault_selector, "%s", value + 5);
  } else if (strcmp(key, "objc.unrecognized") == 0) {
    rc = strcmp(value, "abort") == 0 || strcmp(value, "record") == 0 ? 0 : -1;
    profile.abort_unrecognized = strcmp(value, "record") != 0;
  } else {
    rc = 1;
  }
  return rc;
}
