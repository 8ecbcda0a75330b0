/* fileio.c — whole reads and /proc figures (fileio.h). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

int strata_pread_full(int fd, void *dst, uint64_t n, uint64_t off) {
    uint8_t *p = dst;
    while (n > 0) {
        ssize_t r = pread(fd, p, (size_t)(n > (1u << 30) ? (1u << 30) : n), (off_t)off);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            if (r == 0) {
                errno = 0;
            }
            return -1;
        }
        p += r;
        n -= (uint64_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

uint64_t strata_proc_kb_field(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    char line[256];
    size_t klen = strlen(key);
    unsigned long long kib = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        found = strncmp(line, key, klen) == 0 && line[klen] == ':' && sscanf(line + klen + 1, " %llu kB", &kib) == 1;
    }
    fclose(f);
    return found ? (uint64_t)kib * 1024 : 0;
}
