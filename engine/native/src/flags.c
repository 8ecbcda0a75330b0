/* flags.c — strata-ref's engine flag parser over the flag list (docs/ENGINE-CONTRACT.md).
 * "--flag value" and "--flag=value"; a flag given twice, an unknown flag, a missing or bad value is an error
 * naming the flag. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

enum kind { PATH, INT, ENUM, SWITCH };

typedef struct {
    const char *flag;
    enum kind kind;
    const char *def;
    long min, max;
    const char *choices;
    const char *backends;
} flag_spec;

static const flag_spec SPECS[] = {
#define REF_FLAG(flag, kind, def, min, max, choices, backends) {flag, kind, def, min, max, choices, backends},
#include "flags_local.def"
#undef REF_FLAG
};
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

static int parse_long(const char *s, long *out) {
    if (*s == '\0' || *s == ' ' || *s == '+') {
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        return -1;
    }
    *out = v;
    return 0;
}

static int apply(strata_opts *o, const flag_spec *f, const char *value, char *err, size_t errlen) {
    long v = 0;
    int c = -1;
    if (f->kind == INT) {
        if (parse_long(value, &v) || v < f->min || v > f->max) {
            snprintf(err, errlen, "flags: %s: bad value '%s' (expected an integer %ld..%ld)", f->flag, value, f->min,
                     f->max);
            return -1;
        }
    } else if (f->kind == ENUM) {
        c = choice_index(f->choices, value);
        if (c < 0) {
            snprintf(err, errlen, "flags: %s: bad value '%s' (expected one of %s)", f->flag, value, f->choices);
            return -1;
        }
    } else if (f->kind == PATH && value[0] == '\0') {
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
        if (SPECS[i].def[0] != '\0' && apply(o, &SPECS[i], SPECS[i].def, err, errlen)) {
            return -1; /* a default that does not parse is a build bug; say so rather than run */
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg == NULL) {
            snprintf(err, errlen, "flags: argument %d is NULL", i);
            return -1;
        }
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        int k = -1;
        for (int s = 0; s < N_SPECS; s++) {
            if (strlen(SPECS[s].flag) == nlen && strncmp(SPECS[s].flag, arg, nlen) == 0) {
                k = s;
                break;
            }
        }
        if (k < 0) {
            snprintf(err, errlen, "flags: unknown flag '%.*s' (see docs/ENGINE-CONTRACT.md for the engine flags)",
                     (int)(nlen > 200 ? 200 : nlen), arg);
            return -1;
        }
        const flag_spec *f = &SPECS[k];
        if (seen[k]) {
            snprintf(err, errlen, "flags: %s given twice", f->flag);
            return -1;
        }
        seen[k] = 1;
        if (strcmp(f->backends, "pc") == 0) {
            snprintf(err, errlen, "flags: %s is a pc-only flag; strata-ref (cpu-reference) does not take it", f->flag);
            return -1;
        }
        if (f->kind == SWITCH) {
            if (eq) {
                snprintf(err, errlen, "flags: %s is a switch and takes no value", f->flag);
                return -1;
            }
            continue;
        }
        const char *value;
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc && argv[i + 1] != NULL) {
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
