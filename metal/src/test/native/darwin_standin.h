/*
 * darwin_standin's shared declarations: the object model (as Apple's runtime lays it out), the recorded
 * profile, the counters and the functions one part of the stand-in calls in another. The parts:
 *
 *   darwin_standin.c   overview, the profile and counters, and the test controls (standin_*)
 *   standin_objc.c     libobjc: selectors, reference counting, autorelease pools, NSObject and
 *                      NSString, the method lookup objc_msgSend_*.S calls, objc_getClass
 *   standin_metal.c    Metal: the device object and its selectors, MTLCreateSystemDefaultDevice,
 *                      the metal.* and fault keys
 *   standin_sysctl.c   libSystem: the recorded sysctl values and sysctlbyname
 *
 * Everything here is hidden (-fvisibility=hidden and exports.map): only Apple's names and the test
 * controls leave the library.
 */
#ifndef DARWIN_STANDIN_H
#define DARWIN_STANDIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef long NSInteger; /* LP64: NSInteger is long on both macOS architectures */
typedef const char *SEL; /* an interned selector name, as in Apple's runtime (opaque to callers) */
typedef void (*IMP)(void);

/* Objects and classes: isa first, as in Apple's runtime. */
typedef struct method {
  const char *name; /* the selector's name */
  IMP imp;
} method;
#define M(n, f) {n, (IMP)(f)}

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

/* Counters (process-wide; standin_count names them) and the hang a FAULT_HANG method waits on. */
extern atomic_long n_retains, n_releases, n_autoreleases, n_pushes, n_pops, n_alive, n_created,
    n_overreleased, n_no_pool, n_unrecognized, n_sends, n_bad_pops, n_sysctl_calls, n_devices;
extern atomic_int hang_released;

/* Guards the selector table and the profile while a test control writes them. */
extern pthread_mutex_t standin_lock;

#define MAX_VALUE 256
#define MAX_FAMILIES 32
#define MAX_MISSING 8
#define MAX_SELECTOR 64

/* The recorded Metal profile and the injected faults (the sysctl values are in standin_sysctl.c). */
typedef struct standin_profile {
  bool device;          /* MTLCreateSystemDefaultDevice returns a device */
  char name[MAX_VALUE]; /* -[MTLDevice name] */
  uint64_t working_set; /* -[MTLDevice recommendedMaxWorkingSetSize] */
  NSInteger families[MAX_FAMILIES];
  size_t family_count;
  char missing[MAX_MISSING][MAX_SELECTOR]; /* selectors the device does not implement (an older macOS) */
  size_t missing_count;
  char fault_selector[MAX_SELECTOR]; /* a selector (or MTLCreateSystemDefaultDevice) that faults */
  enum { FAULT_NONE, FAULT_SEGV, FAULT_HANG } fault;
  bool abort_unrecognized; /* true (Apple's behaviour) unless a test asks to record instead */
} standin_profile;

extern standin_profile profile;

/* standin_objc.c */
extern const standin_class nsobject_class;
extern const standin_class nsstring_class;
id object_new(const standin_class *cls);
id do_autorelease(id o);
IMP find_method(const standin_class *cls, SEL sel);
size_t pools_open(void); /* the calling thread's open autorelease pools */

/* standin_metal.c */
extern const standin_class device_class;
extern const standin_class args_class;
bool device_lacks(SEL sel);
/* A metal.*, fault or objc.unrecognized key: 0 set, -1 a bad value, 1 not such a key. */
int metal_set(const char *key, const char *value);

/* standin_sysctl.c */
void sysctl_reset(void);
/* A sysctl name: 0 set, -1 a bad value, 1 not a sysctl name. */
int sysctl_set(const char *key, const char *value);

/* darwin_standin.c: a decimal in [min, max], 0, or -1. */
int parse_int(const char *v, long long min, long long max, long long *out);

#endif
