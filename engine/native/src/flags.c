/* flags.c — strata-ref's engine flag parser over src/flags.def, the X-macro list generated from the Java flag
 * table (dev.strata.engine.flags.EngineFlags), so the two never drift. "--flag value" only, as the table renders
 * them; a flag given twice, an unknown flag, a flag of another backend, a missing or bad value is an error
 * naming the flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

enum kind { KIND_PATH, KIND_INT, KIND_ENUM, KIND_SWITCH };

typedef struct {
    const char *flag;
    enum kind kind;
    long min, max;
    const char *choices;
    const char *def;
    unsigned backends;
} flag_spec;

#define STRATA_KIND_INT(mn, mx) KIND_INT, (mn), (mx), NULL
#define STRATA_KIND_ENUM(c) KIND_ENUM, 0, 0, (c)
#define STRATA_KIND_PATH KIND_PATH, 0, 0, NULL
#define STRATA_KIND_SWITCH KIND_SWITCH, 0, 0, NULL
#define STRATA_FLAG(name, kind, def, backends) {(name), kind, (def), (backends)},
static const flag_spec SPECS[] = {
#include "flags.def"
};
#undef STRATA_FLAG
enum { N_SPECS = sizeof SPECS / sizeof SPECS[0] };

/* Index of value in a '|'-separated list, or -1. */
static int choice_index(const char *choices, const char *value) {
    int idx = 0;
    size_t vlen = strlen(value);
    const char *p = choices;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && strncmp(p, value, len) == 0) {
            return idx;
        }
        idx++;
        if (!bar) {
            break;
        }
        p = bar + 1;
    }
    return -1;
}

/* ASCII digits only (no sign, no blank, no other script's digits: '４０９６' is refused, as the launcher's flag
 * table refuses it — dev.strata.engine.flags.ValueKind.IntRange), at most 18 of them like the table. */
static int parse_long(const char *s, long *out) {
    size_t n = strlen(s);
    if (n == 0 || n > 18) {
        return -1;
    }
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int apply(strata_opts *o, const flag_spec *f, const char *value, char *err, size_t errlen) {
    long v = 0;
    int c = -1;
    if (f->kind == KIND_INT) {
        if (parse_long(value, &v) || v < f->min || v > f->max) {
            snprintf(err, errlen, "flags: %s: bad value '%s' (expected an integer %ld..%ld)", f->flag, value, f->min,
                     f->max);
            return -1;
        }
    } else if (f->kind == KIND_ENUM) {
        c = choice_index(f->choices, value);
        if (c < 0) {
            snprintf(err, errlen, "flags: %s: bad value '%s' (expected one of %s)", f->flag, value, f->choices);
            return -1;
        }
    } else if (f->kind == KIND_PATH && value[0] == '\0') {
        snprintf(err, errlen, "flags: %s: empty path", f->flag);
        return -1;
    }
    const char *n = f->flag;
    if (!strcmp(n, "--model")) o->model = value;
    else if (!strcmp(n, "--ctx")) o->ctx = v;
    else if (!strcmp(n, "--experts")) o->experts_resident = c == 1;
    else if (!strcmp(n, "--threads")) o->threads = v;
    else if (!strcmp(n, "--mem-budget-mb")) o->mem_budget_mb = v;
    else if (!strcmp(n, "--kv")) o->kv = c; /* fp16|int8|q4_0|k8v4 are the format ids 0..3 */
    else if (!strcmp(n, "--spec")) o->spec = v;
    else if (!strcmp(n, "--suffix-draft")) o->suffix_draft = v;
    else if (!strcmp(n, "--parallel")) o->parallel = v;
    else if (!strcmp(n, "--prompt-tokens")) o->prompt_tokens = v;
    else if (!strcmp(n, "--n-predict")) o->n_predict = v;
    else if (!strcmp(n, "--fault")) o->fault = c + 1;
    return 0;
}

int strata_parse_flags(int argc, const char *const *argv, strata_opts *o, char *err, size_t errlen) {
    char seen[N_SPECS];
    memset(seen, 0, sizeof seen);
    memset(o, 0, sizeof *o);
    o->kv = KV_NONE;
    for (int i = 0; i < N_SPECS; i++) {
        if (SPECS[i].def != NULL && apply(o, &SPECS[i], SPECS[i].def, err, errlen)) {
            return -1; /* a default that does not parse is a build bug; say so rather than run */
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg == NULL) {
            snprintf(err, errlen, "flags: argument %d is NULL", i);
            return -1;
        }
        int k = -1;
        for (int s = 0; s < N_SPECS; s++) {
            if (strcmp(SPECS[s].flag, arg) == 0) {
                k = s;
                break;
            }
        }
        if (k < 0) {
            snprintf(err, errlen, "flags: unknown flag '%.200s' (docs/FLAGS.md lists the engine flags)", arg);
            return -1;
        }
        const flag_spec *f = &SPECS[k];
        if (seen[k]) {
            snprintf(err, errlen, "flags: %s given twice", f->flag);
            return -1;
        }
        seen[k] = 1;
        if ((f->backends & STRATA_BACKEND_CPU_REFERENCE) == 0) {
            snprintf(err, errlen, "flags: %s is not a flag of strata-ref (cpu-reference): %s", f->flag,
                     f->backends == STRATA_BACKEND_PC ? "pc only" : "other backends only");
            return -1;
        }
        if (f->kind == KIND_SWITCH) {
            continue;
        }
        const char *value;
        if (i + 1 < argc && argv[i + 1] != NULL) {
            value = argv[++i];
        } else {
            snprintf(err, errlen, "flags: %s needs a value", f->flag);
            return -1;
        }
        if (apply(o, f, value, err, errlen)) {
            return -1;
        }
    }
    if (o->model == NULL) {
        snprintf(err, errlen, "flags: --model is required (the first .gguf shard of the model)");
        return -1;
    }
    return 0;
}
