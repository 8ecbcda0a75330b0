/* fileio.h — the engine's little-endian field access and whole reads (fileio.c), shared by the GGUF reader
 * (gguf_map.c), the expert arena (arena.c) and session snapshots (snapshot.c). No dependency on any other file of
 * the engine, so no file that includes it can close a call cycle through it. */
#ifndef STRATA_REF_FILEIO_H
#define STRATA_REF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A little-endian field at p (GGUF and snapshots are little-endian; so is every host strata-ref builds for). */
static inline uint32_t strata_rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t strata_rd64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline void strata_wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void strata_wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Reads exactly n bytes of fd at offset off into dst (pread, retried on EINTR and short reads, at most 1 GiB a
 * call). 0; or -1 with errno set by pread, or errno 0 when the file ended first. */
int strata_pread_full(int fd, void *dst, uint64_t n, uint64_t off);

/* The figure of the "KEY: N kB" line of a /proc file (e.g. /proc/self/status "VmRSS", /proc/meminfo "MemTotal"), in
 * bytes (the files say kB and mean KiB); 0 where the file or the line is absent (macOS has no /proc). */
uint64_t strata_proc_kb_field(const char *path, const char *key);

#endif
