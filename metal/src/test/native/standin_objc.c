/*
 * darwin_standin, libobjc: interned selectors (sel_registerName), reference counting (objc_retain,
 * objc_release, objc_autorelease and the NSObject methods), per-thread autorelease pools
 * (objc_autoreleasePoolPush/Pop), the NSObject and NSString classes, objc_getClass, and
 * standin_msg_lookup, the method lookup objc_msgSend_*.S calls. What Apple's runtime does and this
 * copies is in darwin_standin.c's header comment.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_standin.h"

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
  pthread_mutex_lock(&standin_lock);
  SEL s = intern(name);
  pthread_mutex_unlock(&standin_lock);
  return s;
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

id object_new(const standin_class *cls) {
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

id do_autorelease(id o) {
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

size_t pools_open(void) { return pool_depth; }

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

/* - (BOOL)respondsToSelector:(SEL)aSelector:
 * https://developer.apple.com/documentation/objectivec/1418956-nsobject/1418583-respondstoselector */
static bool m_responds(id self, SEL cmd, SEL asked) {
  return find_method(self->isa, asked) != NULL && !(self->isa == &device_class && device_lacks(asked));
}

/* - (const char *)UTF8String (NSString): a pointer valid while the string lives.
 * https://developer.apple.com/documentation/foundation/nsstring/utf8string */
static const char *m_utf8(id self, SEL cmd) { return self->u.string.utf8; }

static const method nsobject_methods[] = {
    M("retain", m_retain), M("release", m_release), M("autorelease", m_autorelease),
    M("respondsToSelector:", m_responds),
};
static const method nsstring_methods[] = {M("UTF8String", m_utf8)};

const standin_class nsobject_class = {NULL, "NSObject", NULL, nsobject_methods, COUNT(nsobject_methods)};
const standin_class nsstring_class = {NULL, "NSString", &nsobject_class, nsstring_methods,
                                      COUNT(nsstring_methods)};

static const standin_class *const classes[] = {&nsobject_class, &nsstring_class, &device_class,
                                               &args_class};

IMP find_method(const standin_class *cls, SEL sel) {
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
