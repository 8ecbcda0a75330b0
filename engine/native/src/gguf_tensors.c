/* gguf_tensors.c — the GGUF reader's tensor infos (gguf_internal.h): each tensor's bytes from its ggml type, which
 * blocks hold KV, recurrent-state and expert tensors, and where the expert tensors' data lies. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <stdlib.h>
#include <string.h>

#include "gguf_internal.h"

/* ggml tensor types: id, values per block, bytes per block — Java's dev.strata.engine.model.GgmlType, from the
 * ggml_types.def the build writes from it */
static const struct {
    uint32_t id, block, bytes;
} GGML_TYPES[] = {
#define STRATA_GGML_TYPE(id, name, block, bytes) {(id), (block), (bytes)},
#include "ggml_types.def"
#undef STRATA_GGML_TYPE
};

/* "ffn_gate_exps.weight" → X_GATE and is_weight; .bias/.scale too; -1 when not an expert tensor. */
static int expert_kind(const char *rest, int *is_weight) {
    for (int i = 0; i < N_X; i++) {
        size_t l = strlen(EXPERT_TENSORS[i]);
        if (strncmp(rest, EXPERT_TENSORS[i], l) == 0 &&
            (strcmp(rest + l, ".weight") == 0 || strcmp(rest + l, ".bias") == 0 || strcmp(rest + l, ".scale") == 0)) {
            *is_weight = strcmp(rest + l, ".weight") == 0;
            return i;
        }
    }
    return -1;
}

/* "ffn_gate.7.weight" (the legacy per-expert layout): 1, else 0. */
static int legacy_expert(const char *rest) {
    static const char *const L[3] = {"ffn_gate.", "ffn_up.", "ffn_down."};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(L[i]);
        if (strncmp(rest, L[i], l) == 0) {
            const char *p = rest + l;
            int d = 0;
            while (*p >= '0' && *p <= '9' && d < 7) {
                p++;
                d++;
            }
            return d > 0 && strcmp(p, ".weight") == 0;
        }
    }
    return 0;
}

/* Bytes of a tensor of type `type` and dims (Java GgmlType.bytes): the row (dims[0]) in whole blocks. */
static int tensor_bytes(rd *r, const char *name, uint32_t type, const uint64_t *dims, uint32_t n_dims, uint64_t *out) {
    size_t t = 0, nt = sizeof GGML_TYPES / sizeof GGML_TYPES[0];
    while (t < nt && GGML_TYPES[t].id != type) {
        t++;
    }
    if (t == nt) {
        return gguf_fail(r, "tensor %s has ggml type %u, which this reader does not know; update strata or use another "
                       "quantization", name, type);
    }
    if (dims[0] % GGML_TYPES[t].block != 0) {
        return gguf_fail(r, "tensor %s: row of %llu elements is not a multiple of its type's block of %u", name,
                    (unsigned long long)dims[0], GGML_TYPES[t].block);
    }
    uint64_t b = dims[0] / GGML_TYPES[t].block * GGML_TYPES[t].bytes;
    for (uint32_t d = 1; d < n_dims; d++) {
        if (__builtin_mul_overflow(b, dims[d], &b)) {
            return gguf_fail(r, "tensor %s overflows 2^64 bytes", name);
        }
    }
    *out = b;
    return 0;
}

int gguf_read_tensor_infos(rd *r, uint64_t n_tensors, layers_seen *ls, const char *arch, uint64_t block_count,
                             uint64_t experts, uint32_t shard) {
    char name[NAME_MAX_LEN + 1];
    for (uint64_t i = 0; i < n_tensors; i++) {
        int fits;
        uint32_t n_dims, type;
        uint64_t offset, dims[4] = {1, 1, 1, 1}, bytes = 0;
        if (gguf_rstr(r, name, sizeof name, &fits, "a tensor name") || gguf_ru32(r, &n_dims, "a tensor rank")) {
            return -1;
        }
        const char *shown = fits ? name : "(long name)";
        if (n_dims > LIM_MAX_DIMS) {
            return gguf_fail(r, "tensor %s has rank %u (GGUF allows up to %llu)", shown, n_dims,
                        (unsigned long long)LIM_MAX_DIMS);
        }
        for (uint32_t d = 0; d < n_dims; d++) {
            if (gguf_ru64(r, &dims[d], "a tensor dimension")) {
                return -1;
            }
        }
        if (gguf_ru32(r, &type, "a tensor type") || gguf_ru64(r, &offset, "a tensor offset")) {
            return -1;
        }
        if (tensor_bytes(r, shown, type, dims, n_dims == 0 ? 1 : n_dims, &bytes)) {
            return -1;
        }
        ls->tensors++;
        const char *p = NULL;
        uint64_t n = 0;
        if (fits && strncmp(name, "blk.", 4) == 0) {
            p = name + 4;
            int digits = 0;
            while (*p >= '0' && *p <= '9' && digits < 10) {
                n = n * 10 + (uint64_t)(*p - '0');
                p++;
                digits++;
            }
            p = digits > 0 && *p == '.' ? p + 1 : NULL;
        }
        if (p == NULL) {
            if (__builtin_add_overflow(ls->outside, bytes, &ls->outside)) {
                return gguf_fail(r, "tensor bytes overflow; the file is damaged");
            }
            continue;
        }
        if (n >= ls->cap) {
            return gguf_fail(r, "holds tensor %s but %s.block_count is %llu; the file is damaged", name, arch,
                        (unsigned long long)block_count);
        }
        ls->highest = (int64_t)n > ls->highest ? (int64_t)n : ls->highest;
        blockinfo *b = &ls->bi[n];
        int is_weight = 0;
        int x = expert_kind(p, &is_weight);
        if (x >= 0) {
            if (experts == 0) {
                return gguf_fail(r, "holds expert tensor %s but has no %s.expert_count; the file is damaged", name, arch);
            }
            if (n_dims == 0 || dims[n_dims - 1] != experts) {
                return gguf_fail(r, "tensor %s has its last dimension %llu but it must be the expert count %llu; the file is "
                               "damaged", name, (unsigned long long)dims[n_dims ? n_dims - 1 : 0],
                            (unsigned long long)experts);
            }
            b->per_expert[x] += bytes / experts;
            if (is_weight) {
                b->has[x] = 1;
                b->where[x].shard = shard;
                b->where[x].offset = offset; /* relative to the data section until place_data adds its start */
                b->where[x].bytes_per_expert = bytes / experts;
            }
            continue;
        }
        if (experts > 0 && legacy_expert(p)) {
            b->legacy_bytes += bytes;
            continue;
        }
        b->other_bytes += bytes;
        for (size_t k = 0; k < COUNT(KV_TENSORS); k++) {
            if (strcmp(p, KV_TENSORS[k]) == 0) {
                ls->kv[n] |= (uint8_t)(1u << k);
            }
        }
        for (size_t k = 0; k < COUNT(STATE_TENSORS); k++) {
            if (strcmp(p, STATE_TENSORS[k].name) == 0) {
                ls->state[n] = (uint8_t)STATE_TENSORS[k].kind;
            }
        }
    }
    return 0;
}

/* The data section of a file starts at the end of the tensor infos, aligned up (general.alignment, default 32);
 * adds it to the expert tensor offsets of this shard. */
int gguf_place_data(rd *r, const meta *m, layers_seen *ls, uint32_t shard) {
    uint64_t align = m->have_alignment ? m->alignment : DEFAULT_ALIGNMENT;
    if (align == 0 || align > (1u << 30) || (align & (align - 1)) != 0) {
        return gguf_fail(r, "general.alignment is %llu; it must be a power of two up to 2^30; the file is damaged",
                    (unsigned long long)align);
    }
    uint64_t data = (r->pos + align - 1) & ~(align - 1);
    for (uint64_t n = 0; n < ls->cap; n++) {
        for (int i = 0; i < N_X; i++) {
            blockinfo *b = &ls->bi[n];
            if (b->has[i] && b->where[i].shard == shard && !(b->where[i].offset & (1ull << 63)) &&
                __builtin_add_overflow(b->where[i].offset, data, &b->where[i].offset)) {
                return gguf_fail(r, "tensor offset overflows; the file is damaged");
            }
        }
    }
    return 0;
}
