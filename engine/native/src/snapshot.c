/* snapshot.c — session snapshots (strata_engine.h, docs/ENGINE-ABI.md "Session snapshots"): one sequence's token ids
 * and the used cells of its pools, exactly as they are in memory, in a file that says which model, which engine and
 * which KV format wrote it.
 *
 * Layout (little-endian; SNAP_FIXED bytes of header, then the token ids, the cells, the checksum):
 *     0  8  magic "STRATASN"
 *     8  4  format version (SNAP_VERSION)
 *    12  4  KV format tag: the upstream's snapshot tag, the format id (0 fp16, 1 int8, 2 q4_0), + 16 for the
 *           rotated-int8 pools of STRATA_KV_ROT=1 (q4_0's rotation is intrinsic and never adds it)
 *    16 32  model identity: SHA-256 over the SHA-256 of every shard, in shard order
 *    48 32  engine name, NUL-padded (informational: the pools' layout is the contract's, not the engine's)
 *    80  4  layers        84  4  KV heads      88  4  head_dim      92  4  cell bytes (one cell of one layer)
 *    96  4  the saving session's --ctx        100  4  cells used (= token ids)
 *   104  8  recurrent state bytes (always 0: strata-ref runs no recurrent layer, and refuses a snapshot with any)
 *   112  8  payload bytes (layers × cells used × cell bytes)        120  8  reserved, 0
 *   128     cells used × 4 bytes of token ids (int32)
 *           then per layer, cells [0, used) of that layer's pool (payload bytes), then the recurrent state (none)
 *   end-32  SHA-256 over every byte before it
 * A load trusts no count before it has checked it: the checksum is taken over the file as it is (its last 32 bytes
 * against the rest), with one fixed buffer, before any field past the version is read; then the counts are checked
 * against the session (model, format, the pools' cells) and the file's size; only then are bytes copied, into buffers the session
 * already has. Nothing is allocated from a count of the file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "session.h"

#define API __attribute__((visibility("default")))

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "snapshots are written as the pools are in memory: LE");

#define SNAP_MAGIC "STRATASN"
#define SNAP_VERSION 1u
#define SNAP_FIXED 128u
#define SNAP_SUM 32u
#define SNAP_ROT_TAG 16u
#define SNAP_BUF (1u << 20)

/* Bytes the last load or save allocated (its one I/O buffer); the fuzz test asserts it never depends on the file. */
size_t strata_snapshot_last_alloc;

/* ---- SHA-256 (FIPS 180-4) ---- */
typedef struct {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t n;
} sha256_ctx;

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) {
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    }
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

static void sha256_init(sha256_ctx *c) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof h0);
    c->len = 0;
    c->n = 0;
}

static void sha256_update(sha256_ctx *c, const void *data, size_t n) {
    const uint8_t *p = data;
    c->len += n;
    if (c->n > 0) {
        size_t take = 64 - c->n < n ? 64 - c->n : n;
        memcpy(c->buf + c->n, p, take);
        c->n += take;
        p += take;
        n -= take;
        if (c->n < 64) {
            return;
        }
        sha256_block(c->h, c->buf);
        c->n = 0;
    }
    for (; n >= 64; p += 64, n -= 64) {
        sha256_block(c->h, p);
    }
    memcpy(c->buf, p, n);
    c->n = n;
}

static void sha256_final(sha256_ctx *c, uint8_t out[32]) {
    uint64_t bits = c->len * 8;
    uint8_t pad[72] = {0x80};
    size_t padn = (c->n < 56 ? 56 : 120) - c->n;
    for (int i = 0; i < 8; i++) {
        pad[padn + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    }
    sha256_update(c, pad, padn + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

/* One-shot SHA-256 (hidden; the tests build snapshots with it). */
void strata_snapshot_sha256(const void *data, size_t n, uint8_t out[32]);
void strata_snapshot_sha256(const void *data, size_t n, uint8_t out[32]) {
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, data, n);
    sha256_final(&c, out);
}

/* ---- helpers ---- */
static void hex8(const uint8_t *id, char out[17]) {
    for (int i = 0; i < 8; i++) {
        snprintf(out + 2 * i, 3, "%02x", id[i]);
    }
}

static int write_all(int fd, const void *data, size_t n, sha256_ctx *sum) {
    const uint8_t *p = data;
    if (sum != NULL) {
        sha256_update(sum, data, n);
    }
    while (n > 0) {
        ssize_t w = write(fd, p, n > SNAP_BUF ? SNAP_BUF : n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static const char *tag_name(uint32_t tag) {
    switch (tag) {
    case KV_FP16: return "fp16";
    case KV_INT8: return "int8";
    case KV_Q4_0: return "q4_0";
    case KV_K8V4: return "k8v4";
    case KV_INT8 + SNAP_ROT_TAG: return "int8+rot";
    default: return "unknown";
    }
}

/* The session's tag: strata-ref never rotates int8 pools (STRATA_KV_ROT=1 with --kv int8 is refused at startup),
 * so it is the format id. */
static uint32_t session_tag(const strata_session *s) { return (uint32_t)s->kv.format; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The model's identity, once per session: SHA-256 over the shards' SHA-256s (each over the whole file, read with
 * pread so the hashing does not fault the mapping in). 0, or -1 logged. */
static int model_identity(strata_session *s, uint8_t *buf) {
    if (s->have_model_id) {
        return 0;
    }
    const strata_gguf_map *m = &s->st.map;
    sha256_ctx all;
    sha256_init(&all);
    uint64_t total = 0;
    double t0 = now_s();
    for (uint32_t k = 0; k < m->n_shards; k++) {
        sha256_ctx one;
        sha256_init(&one);
        for (uint64_t off = 0; off < m->shards[k].size;) {
            size_t n = m->shards[k].size - off < SNAP_BUF ? (size_t)(m->shards[k].size - off) : SNAP_BUF;
            if (strata_pread_full(m->shards[k].fd, buf, n, off) != 0) {
                logf_(&s->lg, 2, "snapshot: cannot read the model shard %s to identify it (%s)", m->shards[k].path,
                      errno != 0 ? strerror(errno) : "it is shorter than when it was opened");
                return -1;
            }
            sha256_update(&one, buf, n);
            off += n;
        }
        uint8_t d[32];
        sha256_final(&one, d);
        sha256_update(&all, d, sizeof d);
        total += m->shards[k].size;
    }
    sha256_final(&all, s->model_id);
    s->have_model_id = 1;
    char hx[17];
    hex8(s->model_id, hx);
    logf_(&s->lg, 0, "snapshot: model identity=%s... shards=%u bytes=%llu seconds=%.3f", hx, m->n_shards,
          (unsigned long long)total, now_s() - t0);
    return 0;
}

static uint8_t *io_buffer(strata_session *s) {
    uint8_t *buf = malloc(SNAP_BUF);
    strata_snapshot_last_alloc = buf != NULL ? SNAP_BUF : 0;
    if (buf == NULL) {
        logf_(&s->lg, 2, "snapshot: out of memory allocating a %u-byte buffer", SNAP_BUF);
    }
    return buf;
}

/* What save and load check first: the sequence exists, a file is named, the I/O buffer and the model's identity
 * (computed into it once per session). The buffer, or NULL after logging why (RC_USAGE). */
static uint8_t *begin(strata_session *s, int32_t seq, const char *path) {
    if (seq < 0 || seq >= s->n_seq || path == NULL || path[0] == 0) {
        logf_(&s->lg, 2, "snapshot: sequence %d does not exist (the session has %d), or no file was named", seq,
              s->n_seq);
        return NULL;
    }
    uint8_t *buf = io_buffer(s);
    if (buf != NULL && model_identity(s, buf) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- save ---- */
API int strata_session_save(strata_session *s, int32_t seq, const char *path) {
    uint8_t *buf = begin(s, seq, path);
    if (buf == NULL) {
        return RC_USAGE;
    }
    const strata_kv *kv = &s->kv;
    uint32_t used = (uint32_t)kv->n_past[seq];
    uint64_t payload = (uint64_t)kv->n_layer * used * kv->cell_bytes;
    uint8_t *h = buf; /* the header is built in the buffer's first bytes, written before the buffer is reused */
    memset(h, 0, SNAP_FIXED);
    memcpy(h, SNAP_MAGIC, 8);
    strata_wr32(h + 8, SNAP_VERSION);
    strata_wr32(h + 12, session_tag(s));
    memcpy(h + 16, s->model_id, 32);
    strncpy((char *)h + 48, STRATA_REF_NAME, 31);
    strata_wr32(h + 80, (uint32_t)kv->n_layer);
    strata_wr32(h + 84, (uint32_t)kv->kv_heads);
    strata_wr32(h + 88, (uint32_t)kv->hd);
    strata_wr32(h + 92, (uint32_t)kv->cell_bytes);
    strata_wr32(h + 96, (uint32_t)s->st.o.ctx);
    strata_wr32(h + 100, used);
    strata_wr64(h + 104, 0);
    strata_wr64(h + 112, payload);

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp) {
        logf_(&s->lg, 2, "snapshot: cannot write %s: the path is too long", path);
        free(buf);
        return RC_USAGE;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) { /* left by a crashed process of this pid */
        unlink(tmp);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    }
    if (fd < 0) {
        logf_(&s->lg, 2, "snapshot: cannot write %s (%s)", path, strerror(errno));
        free(buf);
        return RC_USAGE;
    }
    sha256_ctx sum;
    sha256_init(&sum);
    uint8_t digest[32];
    int bad = write_all(fd, h, SNAP_FIXED, &sum) != 0 ||
              write_all(fd, s->tokens + (size_t)seq * s->st.cells, (size_t)used * 4, &sum) != 0;
    for (int l = 0; l < kv->n_layer && !bad; l++) {
        bad = write_all(fd, strata_kv_cells(kv, seq, l), (size_t)used * kv->cell_bytes, &sum) != 0;
    }
    if (!bad) {
        sha256_final(&sum, digest);
        bad = write_all(fd, digest, sizeof digest, NULL) != 0 || fsync(fd) != 0;
    }
    int err = errno;
    if (close(fd) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        unlink(tmp);
        logf_(&s->lg, 2, "snapshot: cannot write %s (%s)", path, strerror(err));
        free(buf);
        return RC_USAGE;
    }
    /* the rename itself is durable once the folder is synced */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == dir) {
        dir[1] = 0;
    } else {
        *slash = 0;
    }
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(buf);
    uint64_t bytes = SNAP_FIXED + (uint64_t)used * 4 + payload + SNAP_SUM;
    logf_(&s->lg, 0, "snapshot: saved %s kv=%s tag=%u cells=%u cell_bytes=%zu layers=%d payload=%llu bytes=%llu", path,
          tag_name(session_tag(s)), session_tag(s), used, kv->cell_bytes, kv->n_layer, (unsigned long long)payload,
          (unsigned long long)bytes);
    return RC_OK;
}

/* ---- load ---- */

/* Hashes [0, size - 32) of fd with buf and compares with the last 32 bytes. 1 equal, 0 not, -1 read error. */
static int checksum_ok(int fd, uint64_t size, uint8_t *buf) {
    sha256_ctx sum;
    sha256_init(&sum);
    uint64_t body = size - SNAP_SUM;
    for (uint64_t off = 0; off < body;) {
        size_t n = body - off < SNAP_BUF ? (size_t)(body - off) : SNAP_BUF;
        if (strata_pread_full(fd, buf, n, off) != 0) {
            return -1;
        }
        sha256_update(&sum, buf, n);
        off += n;
    }
    uint8_t want[32], got[32];
    sha256_final(&sum, want);
    if (strata_pread_full(fd, got, sizeof got, body) != 0) {
        return -1;
    }
    return memcmp(want, got, sizeof want) == 0;
}

static int load_file(strata_session *s, int32_t seq, const char *path, int fd, uint8_t *buf) {
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        logf_(&s->lg, 2, "snapshot: %s is not a regular file", path);
        return RC_USAGE;
    }
    uint64_t size = (uint64_t)sb.st_size;
    uint8_t h[SNAP_FIXED];
    size_t got = size < SNAP_FIXED ? (size_t)size : SNAP_FIXED;
    if (strata_pread_full(fd, h, got, 0) != 0) {
        logf_(&s->lg, 2, "snapshot: cannot read %s (%s)", path, errno != 0 ? strerror(errno) : "it shrank");
        return RC_USAGE;
    }
    if (memcmp(h, SNAP_MAGIC, got < 8 ? got : 8) != 0 || got == 0) {
        logf_(&s->lg, 2, "snapshot: %s is not a Strata session snapshot", path);
        return RC_USAGE;
    }
    if (got < 12) {
        logf_(&s->lg, 2, "snapshot: %s is truncated (%llu bytes, before the end of its header)", path,
              (unsigned long long)size);
        return RC_USAGE;
    }
    uint32_t version = strata_rd32(h + 8);
    if (version > SNAP_VERSION) {
        logf_(&s->lg, 2, "snapshot: %s is format version %u, newer than the version %u this engine reads", path,
              version, SNAP_VERSION);
        return RC_REFUSED;
    }
    if (size < SNAP_FIXED + SNAP_SUM) {
        logf_(&s->lg, 2, "snapshot: %s is truncated (%llu bytes, before the end of its header)", path,
              (unsigned long long)size);
        return RC_USAGE;
    }
    /* the counts, only to say "truncated" rather than "corrupted" when the checksum fails */
    uint32_t used = strata_rd32(h + 100);
    uint64_t state = strata_rd64(h + 104), payload = strata_rd64(h + 112), need = 0;
    int need_ok = !__builtin_mul_overflow((uint64_t)used, 4u, &need) && !__builtin_add_overflow(need, payload, &need) &&
                  !__builtin_add_overflow(need, state, &need) &&
                  !__builtin_add_overflow(need, (uint64_t)(SNAP_FIXED + SNAP_SUM), &need);
    int ok = checksum_ok(fd, size, buf);
    if (ok < 0) {
        logf_(&s->lg, 2, "snapshot: cannot read %s (%s)", path, errno != 0 ? strerror(errno) : "it shrank");
        return RC_USAGE;
    }
    if (!ok) {
        if (need_ok && need > size) {
            logf_(&s->lg, 2, "snapshot: %s is truncated (%llu bytes, its header describes %llu)", path,
                  (unsigned long long)size, (unsigned long long)need);
        } else {
            logf_(&s->lg, 2, "snapshot: %s is corrupted (its checksum does not match its contents)", path);
        }
        return RC_USAGE;
    }
    if (version == 0) {
        logf_(&s->lg, 2, "snapshot: %s is corrupted (format version 0)", path);
        return RC_USAGE;
    }
    /* an intact snapshot: does it fit this session? */
    const strata_kv *kv = &s->kv;
    char hx_file[17], hx_own[17];
    hex8(h + 16, hx_file);
    hex8(s->model_id, hx_own);
    if (memcmp(h + 16, s->model_id, 32) != 0) {
        logf_(&s->lg, 2, "snapshot: %s was saved from another model (identity %s..., this model's %s...)", path, hx_file,
              hx_own);
        return RC_REFUSED;
    }
    uint32_t tag = strata_rd32(h + 12);
    if (tag != session_tag(s)) {
        logf_(&s->lg, 2, "snapshot: %s holds KV format %s (tag %u); this session's pools are %s (tag %u)", path,
              tag_name(tag), tag, tag_name(session_tag(s)), session_tag(s));
        return RC_REFUSED;
    }
    if (strata_rd32(h + 80) != (uint32_t)kv->n_layer || strata_rd32(h + 84) != (uint32_t)kv->kv_heads ||
        strata_rd32(h + 88) != (uint32_t)kv->hd || strata_rd32(h + 92) != (uint32_t)kv->cell_bytes) {
        logf_(&s->lg, 2, "snapshot: %s describes pools of another shape (%u layers, %u KV heads, head_dim %u, %u-byte "
              "cells; this session's: %d, %d, %d, %zu)", path, strata_rd32(h + 80), strata_rd32(h + 84), strata_rd32(h + 88),
              strata_rd32(h + 92), kv->n_layer, kv->kv_heads, kv->hd, kv->cell_bytes);
        return RC_REFUSED;
    }
    if (state != 0) {
        logf_(&s->lg, 2, "snapshot: %s holds %llu bytes of recurrent state; strata-ref runs no recurrent layer", path,
              (unsigned long long)state);
        return RC_REFUSED;
    }
    /* a sequence holds up to the pools' ctx + 128 cells (session.c's eval), so a session filled past --ctx reloads
     * its own save into the same --ctx: the rule is the cells, not the context */
    if ((uint64_t)used > (uint64_t)s->st.cells) {
        logf_(&s->lg, 2, "snapshot: %s holds %u cells, more than this session's pools of %zu (--ctx %ld + 128; --ctx "
              "%u or more loads it)", path, used, s->st.cells, s->st.o.ctx, used > 128 ? used - 128 : 1);
        return RC_REFUSED;
    }
    /* used <= the pools' cells, the shape is the session's: these products are bounded by the session's own pools */
    uint64_t want_payload = (uint64_t)kv->n_layer * used * kv->cell_bytes;
    if (payload != want_payload || size != SNAP_FIXED + (uint64_t)used * 4 + payload + SNAP_SUM) {
        logf_(&s->lg, 2, "snapshot: %s is corrupted (its header's sizes disagree: payload %llu for %u cells, file %llu "
              "bytes)", path, (unsigned long long)payload, used, (unsigned long long)size);
        return RC_USAGE;
    }
    /* Every check passed: copy in place, hashing again, so a file changed since the check is caught. */
    int32_t *toks = s->tokens + (size_t)seq * s->st.cells;
    sha256_ctx sum;
    sha256_init(&sum);
    sha256_update(&sum, h, SNAP_FIXED);
    int bad = strata_pread_full(fd, toks, (size_t)used * 4, SNAP_FIXED) != 0;
    if (!bad) {
        sha256_update(&sum, toks, (size_t)used * 4);
    }
    uint64_t off = SNAP_FIXED + (uint64_t)used * 4;
    for (int l = 0; l < kv->n_layer && !bad; l++) {
        size_t n = (size_t)used * kv->cell_bytes;
        uint8_t *cells = strata_kv_cells(kv, seq, l);
        bad = strata_pread_full(fd, cells, n, off) != 0;
        if (!bad) {
            sha256_update(&sum, cells, n);
        }
        off += n;
    }
    uint8_t want[32], got_sum[32];
    if (!bad) {
        sha256_final(&sum, want);
        bad = strata_pread_full(fd, got_sum, sizeof got_sum, off) != 0 || memcmp(want, got_sum, sizeof want) != 0;
    }
    for (uint32_t i = 0; i < used && !bad; i++) {
        bad = toks[i] < 0 || toks[i] >= (int32_t)s->st.md.n_vocab;
    }
    if (bad) {
        s->kv.n_past[seq] = 0;
        logf_(&s->lg, 2, "snapshot: %s changed while it was read, or holds a token outside the vocabulary; sequence %d "
              "is now empty", path, seq);
        return RC_USAGE;
    }
    s->kv.n_past[seq] = (int32_t)used;
    logf_(&s->lg, 0, "snapshot: loaded %s kv=%s tag=%u cells=%u payload=%llu bytes=%llu engine=%.31s", path,
          tag_name(tag), tag, used, (unsigned long long)payload, (unsigned long long)size, (const char *)h + 48);
    return RC_OK;
}

API int strata_session_load(strata_session *s, int32_t seq, const char *path) {
    uint8_t *buf = begin(s, seq, path);
    if (buf == NULL) {
        return RC_USAGE;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        logf_(&s->lg, 2, "snapshot: cannot read %s (%s)", path, strerror(errno));
        free(buf);
        return RC_USAGE;
    }
    int rc = load_file(s, seq, path, fd, buf);
    close(fd);
    free(buf);
    return rc;
}

API int64_t strata_session_tokens(const strata_session *s, int32_t seq, int32_t *out, size_t cap) {
    if (seq < 0 || seq >= s->n_seq) {
        return -1;
    }
    size_t n = (size_t)s->kv.n_past[seq];
    if (out != NULL) {
        memcpy(out, s->tokens + (size_t)seq * s->st.cells, (n < cap ? n : cap) * sizeof *out);
    }
    return (int64_t)n;
}
