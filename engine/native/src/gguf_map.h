/* gguf_map.h — a GGUF split set mapped read-only (mmap) and indexed: every key of the first shard and every
 * tensor of every shard, with the address of its data inside the mapping. The weights are read in place.
 *
 * Format: GGUF v3 (ggml/docs/gguf.md): header (magic "GGUF", version, n_tensors, n_kv), key/value pairs,
 * tensor infos (name, n_dims, ne[], type, offset), then the data at general.alignment (default 32).
 * Every count and length is checked against the bytes left before it is used; a tensor's data must lie
 * inside its shard. Failure: one line in err, naming the file and what is wrong. */
#ifndef STRATA_GGUF_MAP_H
#define STRATA_GGUF_MAP_H

#include <stddef.h>
#include <stdint.h>

/* GGUF value types (gguf.md). */
enum {
    GGUF_T_U8 = 0, GGUF_T_I8 = 1, GGUF_T_U16 = 2, GGUF_T_I16 = 3, GGUF_T_U32 = 4, GGUF_T_I32 = 5,
    GGUF_T_F32 = 6, GGUF_T_BOOL = 7, GGUF_T_STRING = 8, GGUF_T_ARRAY = 9, GGUF_T_U64 = 10, GGUF_T_I64 = 11,
    GGUF_T_F64 = 12
};

/* Bytes of a scalar of GGUF value type t; 0 for a string, an array or an unknown type (gguf_read.c). */
uint64_t strata_gguf_scalar_bytes(uint32_t t);

typedef struct {
    const char *key;        /* NUL-terminated copy */
    uint32_t type;          /* GGUF_T_* */
    uint32_t atype;         /* element type of an array */
    uint64_t n;             /* array: elements; string: bytes */
    const uint8_t *data;    /* scalar / string bytes / first array element, inside the mapping (unaligned) */
    const uint64_t *str_off; /* array of strings: offset of element i's u64 length from data (n entries) */
} strata_gguf_kv;

typedef struct {
    const char *name;       /* NUL-terminated copy */
    uint32_t type;          /* ggml type id (quant.h) */
    uint32_t n_dims;
    int64_t ne[4];          /* ne[0] = values per row (ggml order), unused dims 1 */
    uint32_t shard;         /* 0-based */
    uint64_t offset;        /* absolute file offset of the data in its shard */
    uint64_t bytes;         /* size of the data */
    const uint8_t *data;    /* the data inside the mapping */
} strata_gguf_tensor;

typedef struct {
    uint32_t n_shards;
    struct { const char *path; int fd; const uint8_t *map; uint64_t size; } *shards;
    uint64_t n_kv;
    strata_gguf_kv *kv;     /* keys of shard 0 */
    uint64_t n_tensors;
    strata_gguf_tensor *tensors; /* every shard's, in file order */
    void *priv;             /* name hash index */
} strata_gguf_map;

/* Maps and indexes the split set whose first shard is path. 0, or -1 with one line in err. */
int strata_gguf_map_open(const char *path, strata_gguf_map *m, char *err, size_t errlen);
void strata_gguf_map_close(strata_gguf_map *m);

const strata_gguf_kv *strata_gguf_map_key(const strata_gguf_map *m, const char *key);
const strata_gguf_tensor *strata_gguf_map_tensor(const strata_gguf_map *m, const char *name);

/* Typed readers: 1 when the key is present with a matching type (integers of any width/sign that fit), else 0. */
int strata_gguf_kv_u64(const strata_gguf_map *m, const char *key, uint64_t *v);
int strata_gguf_kv_f32(const strata_gguf_map *m, const char *key, float *v);
int strata_gguf_kv_bool(const strata_gguf_map *m, const char *key, int *v);
/* A string value: pointer into the mapping (not NUL-terminated) and its length. */
int strata_gguf_kv_str(const strata_gguf_map *m, const char *key, const char **s, size_t *len);
/* Element i of an array of strings. */
void strata_gguf_arr_str(const strata_gguf_kv *kv, uint64_t i, const char **s, size_t *len);
/* Element i of a numeric array, converted. */
int64_t strata_gguf_arr_int(const strata_gguf_kv *kv, uint64_t i);
float strata_gguf_arr_f32(const strata_gguf_kv *kv, uint64_t i);

#endif
