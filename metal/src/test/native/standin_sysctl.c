/*
 * darwin_standin, libSystem: the recorded sysctl values, in the kernel's type and layout for each name,
 * and sysctlbyname(3) answering from them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "darwin_standin.h"

/* The recorded sysctl values, by the kernel's type. */
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


/* Makes every name absent (ENOENT); the caller holds standin_lock. */
void sysctl_reset(void) {
  for (size_t i = 0; i < N_SYSCTLS; i++) {
    sysctls[i].present = false;
    sysctls[i].size = 0;
  }
}

/* Stores `value` in the kernel's layout for sysctl name `key`: a decimal (int, quad) or text (string);
 * "-" makes the name absent. The caller holds standin_lock. */
int sysctl_set(const char *key, const char *value) {
  sysctl_entry *e = NULL;
  for (size_t i = 0; i < N_SYSCTLS; i++) {
    if (strcmp(sysctls[i].name, key) == 0) {
      e = &sysctls[i];
    }
  }
  if (e == NULL) {
    return 1;
  }
  long long x;
  if (strcmp(value, "-") == 0) {
    e->present = false;
  } else if (e->type == CT_STRING) {
    size_t n = strlen(value) + 1;
    if (n > MAX_VALUE) {
      return -1;
    }
    memcpy(e->value, value, n);
    e->size = n;
    e->present = true;
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
    return -1;
  }
  return 0;
}
