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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))

typedef long NSInteger; /* LP64: NSInteger is long on both macOS architectures */
typedef const char *SEL; /* an interned selector name, as in Apple's runtime (opaque to callers) */
typedef void (*IMP)(void);

/* ---------------------------------------------------------------------------------------------------
 * Objects and classes: isa first, as in Apple's runtime.
 */
typedef struct method {
  const char *name; /* the selector's name */
  IMP imp;
} method;

typedef struct standin_class {
  const struct standin_class *isa; /* class objects are objects too; their isa is unused */
  const char *name;
  const struct standin_class *super;
  const method *methods;
  size_t method_count;
} standin_class;

typedef struct object {
  const standin_class *isa;
  atomic_long refcount; /* 1 at creation (the creator owns it) */
  bool freed;
  union {
    struct { char *utf8; } string;
  } u;
} object;

typedef object *id;

/* ---------------------------------------------------------------------------------------------------
 * Counters (process-wide) and the injected faults.
 */
static atomic_long n_retains, n_releases, n_autoreleases, n_pushes, n_pops, n_alive, n_created,
    n_overreleased, n_no_pool, n_unrecognized, n_sends, n_bad_pops, n_sysctl_calls, n_devices;
static atomic_int hang_released;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define MAX_VALUE 256
#define MAX_FAMILIES 32

/* The recorded profile: sysctl values (by the kernel's type) and the Metal device. */
typedef enum { CT_INT = 1, CT_QUAD, CT_STRING } ctltype;

typedef struct sysctl_entry {
  const char *name;
  ctltype type;  /* the kernel's CTLTYPE for this name (sizes as on a Mac: int 4 bytes, quad 8) */
  bool present;
  size_t size;   /* bytes the kernel reports, the NUL of a string included */
  unsigned char value[MAX_VALUE];
} sysctl_entry;

/*
 * Every name MacProbe reads (MacProbe.NAMES), with its type on macOS: CTLTYPE_INT (int32_t) for counts,
 * CTLTYPE_QUAD (uint64_t) for hw.memsize, NUL-terminated strings. Sources: xnu bsd/kern/kern_mib.c
 * (hw.ncpu, hw.memsize, hw.physicalcpu, hw.nperflevels, hw.perflevelN.physicalcpu), bsd/kern/kern_sysctl.c
 * (kern.osproductversion), machdep.cpu.brand_string (a string on Apple silicon and Intel), and
 * iogpu.wired_limit_mb (an int per `sysctl -t`; the IOGPU extension's source is not public).
 */
static sysctl_entry sysctls[] = {
    {"hw.ncpu", CT_INT, false, 0, {0}},
    {"hw.memsize", CT_QUAD, false, 0, {0}},
    {"hw.nperflevels", CT_INT, false, 0, {0}},
    {"hw.perflevel0.physicalcpu", CT_INT, false, 0, {0}},
    {"hw.perflevel1.physicalcpu", CT_INT, false, 0, {0}},
    {"hw.physicalcpu", CT_INT, false, 0, {0}},
    {"machdep.cpu.brand_string", CT_STRING, false, 0, {0}},
    {"kern.osproductversion", CT_STRING, false, 0, {0}},
    {"iogpu.wired_limit_mb", CT_INT, false, 0, {0}},
};
#define N_SYSCTLS (sizeof sysctls / sizeof sysctls[0])

static struct {
  bool device;          /* MTLCreateSystemDefaultDevice returns a device */
  char name[MAX_VALUE]; /* -[MTLDevice name] */
  uint64_t working_set; /* -[MTLDevice recommendedMaxWorkingSetSize] */
  NSInteger families[MAX_FAMILIES];
  size_t family_count;
  char missing[8][64]; /* selectors the device does not implement (an older macOS) */
  size_t missing_count;
  char fault_selector[64]; /* a selector (or MTLCreateSystemDefaultDevice) that faults */
  enum { FAULT_NONE, FAULT_SEGV, FAULT_HANG } fault;
  bool abort_unrecognized; /* true (Apple's behaviour) unless a test asks to record instead */
} profile;

/* ---------------------------------------------------------------------------------------------------
 * Selectors: interned names; the same name always gives the same pointer (sel_registerName).
 */
#define MAX_SELECTORS 128
static char *selector_names[MAX_SELECTORS];
static size_t selector_count;

static SEL intern(const char *name) {
  for (size_t i = 0; i < selector_count; i++) {
    if (strcmp(selector_names[i], name) == 0) {
      return selector_names[i];
    }
  }
  if (selector_count == MAX_SELECTORS) {
    fprintf(stderr, "darwin_standin: too many selectors\n");
    abort();
  }
  selector_names[selector_count] = strdup(name);
  return selector_names[selector_count++];
}

/* https://developer.apple.com/documentation/objectivec/1418557-sel_registername */
EXPORT SEL sel_registerName(const char *name) {
  pthread_mutex_lock(&lock);
  SEL s = intern(name);
  pthread_mutex_unlock(&lock);
  return s;
}

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

/* ---------------------------------------------------------------------------------------------------
 * Reference counting and autorelease pools (per thread, as Apple's).
 */
#define POOL_CAPACITY 256
#define POOL_DEPTH 16
static _Thread_local id pool_objects[POOL_CAPACITY];
static _Thread_local size_t pool_size;
static _Thread_local size_t pool_marks[POOL_DEPTH]; /* pool_size at each push */
static _Thread_local size_t pool_depth;
/* Tokens are addresses of this thread's marks, so a token from another thread never matches. */

static void object_free(id o) {
  if (o->isa->name && strcmp(o->isa->name, "NSString") == 0) {
    free(o->u.string.utf8);
    o->u.string.utf8 = NULL;
  }
  o->freed = true; /* kept, not freed: a later message to it is caught as an over-release */
  atomic_fetch_sub(&n_alive, 1);
}

static id object_new(const standin_class *cls) {
  id o = calloc(1, sizeof(object));
  o->isa = cls;
  atomic_store(&o->refcount, 1);
  atomic_fetch_add(&n_alive, 1);
  atomic_fetch_add(&n_created, 1);
  return o;
}

static id do_retain(id o) {
  if (o == NULL) {
    return NULL;
  }
  atomic_fetch_add(&n_retains, 1);
  if (o->freed) {
    atomic_fetch_add(&n_overreleased, 1);
    return o;
  }
  atomic_fetch_add(&o->refcount, 1);
  return o;
}

static void do_release(id o) {
  if (o == NULL) {
    return;
  }
  atomic_fetch_add(&n_releases, 1);
  if (o->freed) {
    atomic_fetch_add(&n_overreleased, 1);
    return;
  }
  if (atomic_fetch_sub(&o->refcount, 1) == 1) {
    object_free(o);
  }
}

static id do_autorelease(id o) {
  if (o == NULL) {
    return NULL;
  }
  atomic_fetch_add(&n_autoreleases, 1);
  if (pool_depth == 0 || pool_size == POOL_CAPACITY) {
    /* Apple: "objc[pid]: MISSING POOLS: ... autoreleased with no pool in place - just leaking" */
    atomic_fetch_add(&n_no_pool, 1);
    return o;
  }
  pool_objects[pool_size++] = o;
  return o;
}

/* https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571946-retain (as a function) */
EXPORT id objc_retain(id o) { return do_retain(o); }
/* https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571957-release (as a function) */
EXPORT void objc_release(id o) { do_release(o); }
/* https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571951-autorelease */
EXPORT id objc_autorelease(id o) { return do_autorelease(o); }

/* The runtime's pool push: a token for the matching pop. Declared in <objc/objc-internal.h>; what
 * @autoreleasepool { } compiles to (clang: https://clang.llvm.org/docs/AutomaticReferenceCounting.html). */
EXPORT void *objc_autoreleasePoolPush(void) {
  atomic_fetch_add(&n_pushes, 1);
  if (pool_depth == POOL_DEPTH) {
    fprintf(stderr, "darwin_standin: autorelease pools nested too deep\n");
    abort();
  }
  pool_marks[pool_depth] = pool_size;
  return &pool_marks[pool_depth++];
}

/* Pops the pool of `token` and every pool pushed after it, releasing what they hold. */
EXPORT void objc_autoreleasePoolPop(void *token) {
  atomic_fetch_add(&n_pops, 1);
  size_t level = POOL_DEPTH;
  for (size_t i = 0; i < pool_depth; i++) {
    if (token == &pool_marks[i]) {
      level = i;
    }
  }
  if (level == POOL_DEPTH) {
    /* Apple: "objc[pid]: Invalid or prematurely-freed autorelease pool 0x...", then a crash. Counted
     * here so a test can report it rather than die. */
    atomic_fetch_add(&n_bad_pops, 1);
    return;
  }
  while (pool_size > pool_marks[level]) {
    do_release(pool_objects[--pool_size]);
  }
  pool_depth = level;
}

/* ---------------------------------------------------------------------------------------------------
 * Methods. Each is the C function objc_msgSend jumps to: (self, _cmd, the method's own arguments).
 */

/* -[NSObject retain]: https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571946-retain */
static id m_retain(id self, SEL cmd) { return do_retain(self); }

/* -[NSObject release]: https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571957-release */
static void m_release(id self, SEL cmd) { do_release(self); }

/* -[NSObject autorelease]:
 * https://developer.apple.com/documentation/objectivec/1418956-nsobject/1571951-autorelease */
static id m_autorelease(id self, SEL cmd) { return do_autorelease(self); }

static IMP find_method(const standin_class *cls, SEL sel);
static bool device_lacks(SEL sel);
static const standin_class device_class;

/* - (BOOL)respondsToSelector:(SEL)aSelector:
 * https://developer.apple.com/documentation/objectivec/1418956-nsobject/1418583-respondstoselector */
static bool m_responds(id self, SEL cmd, SEL asked) {
  return find_method(self->isa, asked) != NULL && !(self->isa == &device_class && device_lacks(asked));
}

/* - (const char *)UTF8String (NSString): a pointer valid while the string lives.
 * https://developer.apple.com/documentation/foundation/nsstring/utf8string */
static const char *m_utf8(id self, SEL cmd) { return self->u.string.utf8; }

static const standin_class nsobject_class;
static const standin_class nsstring_class;

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

#define M(n, f) {n, (IMP)(f)}
static const method nsobject_methods[] = {
    M("retain", m_retain), M("release", m_release), M("autorelease", m_autorelease),
    M("respondsToSelector:", m_responds),
};
static const method nsstring_methods[] = {M("UTF8String", m_utf8)};
static const method device_methods[] = {
    M("name", m_device_name), M("supportsFamily:", m_supports_family),
    M("recommendedMaxWorkingSetSize", m_working_set),
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const standin_class nsobject_class = {NULL, "NSObject", NULL, nsobject_methods,
                                             COUNT(nsobject_methods)};
static const standin_class nsstring_class = {NULL, "NSString", &nsobject_class, nsstring_methods,
                                             COUNT(nsstring_methods)};
/* Apple's device classes are private (AGXG13XFamilyDevice, ...); this name says what it is. */
static const standin_class device_class = {NULL, "AGXStandinDevice", &nsobject_class, device_methods,
                                           COUNT(device_methods)};

static const method args_methods[] = {M("mixA:b:c:d:e:f:g:h:x:x:x:x:x:x:x:x:x:", m_mix)};
static const standin_class args_class = {NULL, "StandinArgs", &nsobject_class, args_methods,
                                         COUNT(args_methods)};

static const standin_class *const classes[] = {&nsobject_class, &nsstring_class, &device_class,
                                               &args_class};

static bool device_lacks(SEL sel) {
  for (size_t i = 0; i < profile.missing_count; i++) {
    if (strcmp(profile.missing[i], sel) == 0) {
      return true;
    }
  }
  return false;
}

static IMP find_method(const standin_class *cls, SEL sel) {
  for (; cls != NULL; cls = cls->super) {
    for (size_t i = 0; i < cls->method_count; i++) {
      if (strcmp(cls->methods[i].name, sel) == 0) {
        return cls->methods[i].imp;
      }
    }
  }
  return NULL;
}

static uint64_t m_unrecognized(void) { return 0; }

/*
 * Called by objc_msgSend (assembly) with its first two argument registers: the method for (receiver,
 * selector). The receiver is never nil here (the trampoline answers nil itself).
 */
HIDDEN IMP standin_msg_lookup(id self, SEL sel) {
  atomic_fetch_add(&n_sends, 1);
  IMP imp = NULL;
  for (size_t i = 0; i < COUNT(classes); i++) {
    if ((const void *)self == (const void *)classes[i]) {
      /* A class object: the stand-in's classes have no class methods. */
      atomic_fetch_add(&n_unrecognized, 1);
      if (profile.abort_unrecognized) {
        fprintf(stderr, "*** +[%s %s]: unrecognized selector sent to class\n", classes[i]->name, sel);
        abort();
      }
      return (IMP)m_unrecognized;
    }
  }
  if (self->freed) {
    atomic_fetch_add(&n_overreleased, 1); /* a message to a freed object */
  } else if (!(self->isa == &device_class && device_lacks(sel))) {
    imp = find_method(self->isa, sel);
  }
  if (imp != NULL) {
    return imp;
  }
  atomic_fetch_add(&n_unrecognized, 1);
  if (profile.abort_unrecognized) {
    /* What an uncaught NSInvalidArgumentException from -doesNotRecognizeSelector: does. */
    fprintf(stderr,
            "*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: "
            "'-[%s %s]: unrecognized selector sent to instance %p'\n",
            self->isa->name, sel, (void *)self);
    abort();
  }
  return (IMP)m_unrecognized;
}

/* https://developer.apple.com/documentation/objectivec/1418952-objc_getclass : nil when unknown. */
EXPORT id objc_getClass(const char *name) {
  for (size_t i = 0; i < COUNT(classes); i++) {
    if (strcmp(classes[i]->name, name) == 0) {
      return (id)(void *)classes[i];
    }
  }
  return NULL;
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

/* ---------------------------------------------------------------------------------------------------
 * sysctlbyname(3): int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp,
 * size_t newlen). https://developer.apple.com/documentation/kernel/1387446-sysctlbyname
 * A NULL oldp asks for the size; a buffer smaller than the value is ENOMEM; an unknown name is ENOENT;
 * setting (newp) is EPERM here (the probe only reads).
 */
EXPORT int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
  atomic_fetch_add(&n_sysctl_calls, 1);
  if (name == NULL || oldlenp == NULL) {
    errno = EINVAL;
    return -1;
  }
  if (newp != NULL) {
    errno = EPERM;
    return -1;
  }
  for (size_t i = 0; i < N_SYSCTLS; i++) {
    sysctl_entry *e = &sysctls[i];
    if (strcmp(e->name, name) != 0) {
      continue;
    }
    if (!e->present) {
      break;
    }
    if (oldp == NULL) {
      *oldlenp = e->size;
      return 0;
    }
    if (*oldlenp < e->size) {
      memcpy(oldp, e->value, *oldlenp);
      errno = ENOMEM;
      return -1;
    }
    memcpy(oldp, e->value, e->size);
    *oldlenp = e->size;
    return 0;
  }
  errno = ENOENT;
  return -1;
}

/* ---------------------------------------------------------------------------------------------------
 * Test controls.
 */
EXPORT void standin_reset(void) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < N_SYSCTLS; i++) {
    sysctls[i].present = false;
    sysctls[i].size = 0;
  }
  memset(&profile, 0, sizeof profile);
  profile.abort_unrecognized = true;
  atomic_long *all[] = {&n_retains, &n_releases, &n_autoreleases, &n_pushes, &n_pops, &n_alive,
                        &n_created, &n_overreleased, &n_no_pool, &n_unrecognized, &n_sends,
                        &n_bad_pops, &n_sysctl_calls, &n_devices};
  for (size_t i = 0; i < COUNT(all); i++) {
    atomic_store(all[i], 0);
  }
  atomic_store(&hang_released, 0);
  pthread_mutex_unlock(&lock);
}

/* A new (owned) StandinArgs object, for the trampoline's argument test. */
EXPORT id standin_new_args(void) { return object_new(&args_class); }

/* Lets a thread stuck in a FAULT_HANG method return. */
EXPORT void standin_release_hang(void) { atomic_store(&hang_released, 1); }

static int parse_int(const char *v, long long min, long long max, long long *out) {
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
  int rc = 0;
  long long x;
  pthread_mutex_lock(&lock);
  sysctl_entry *e = NULL;
  for (size_t i = 0; i < N_SYSCTLS; i++) {
    if (strcmp(sysctls[i].name, key) == 0) {
      e = &sysctls[i];
    }
  }
  if (e != NULL) {
    if (strcmp(value, "-") == 0) {
      e->present = false;
    } else if (e->type == CT_STRING) {
      size_t n = strlen(value) + 1;
      rc = n > MAX_VALUE ? -1 : 0;
      if (rc == 0) {
        memcpy(e->value, value, n);
        e->size = n;
        e->present = true;
      }
    } else if (e->type == CT_INT && parse_int(value, INT32_MIN, INT32_MAX, &x) == 0) {
      int32_t v = (int32_t)x;
      memcpy(e->value, &v, sizeof v); /* little-endian, as every Mac */
      e->size = sizeof v;
      e->present = true;
    } else if (e->type == CT_QUAD && parse_int(value, 0, INT64_MAX, &x) == 0) {
      uint64_t v = (uint64_t)x;
      memcpy(e->value, &v, sizeof v);
      e->size = sizeof v;
      e->present = true;
    } else {
      rc = -1;
    }
  } else if (strcmp(key, "metal.device") == 0) {
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
  } else if (strcmp(key, "metal.missing") == 0 && profile.missing_count < 8 && strlen(value) < 64) {
    strcpy(profile.missing[profile.missing_count++], value);
  } else if (strcmp(key, "fault") == 0 && strlen(value) < 64 + 5) {
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
    rc = -1;
  }
  pthread_mutex_unlock(&lock);
  return rc;
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
    return (long)pool_depth;
  }
  for (size_t i = 0; i < COUNT(counters); i++) {
    if (strcmp(counters[i].name, what) == 0) {
      return atomic_load(counters[i].v);
    }
  }
  return -1;
}
