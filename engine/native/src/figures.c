/* figures.c — the figures of strata-ref's user-visible lines (figures.h): the unit, decimals, rounding, separator
 * and group are rules.def's (Java ByteSize.Figure, Units.count); only the exact integer arithmetic is here, the same
 * steps as ByteSize.decimal. FiguresParityTest formats a spread of sizes through both and fails on any difference. */
#include "figures.h"

#include <stdio.h>
#include <stdlib.h>

#include "ref_internal.h"

const strata_figure STRATA_GIB = STRATA_FIGURE_GIB;
const strata_figure STRATA_GIB_UP = STRATA_FIGURE_GIB_UP;

void strata_figure_format(char *b, size_t n, const strata_figure *f, uint64_t bytes) {
    uint64_t whole = bytes / f->unit, rest = bytes % f->unit;
    uint64_t tenths = 1;
    for (int i = 0; i < f->decimals; i++) {
        tenths *= 10;
    }
    uint64_t digits = rest * tenths / f->unit; /* rest < unit <= 2^40, tenths <= 100: no overflow */
    uint64_t left = rest * tenths % f->unit;
    int up = f->up ? left > 0 : 2 * left >= f->unit; /* half-up: a half rounds away from zero */
    if (up && ++digits == tenths) {
        digits = 0;
        whole++;
    }
    snprintf(b, n, "%llu.%0*llu", (unsigned long long)whole, f->decimals, (unsigned long long)digits);
}

static const struct {
    const char *name;
    strata_figure figure;
} IEC[STRATA_IEC_N_UNITS] = STRATA_IEC_UNITS;

void strata_iec_format(char *b, size_t n, uint64_t bytes) {
    if (bytes < IEC[0].figure.unit) {
        snprintf(b, n, "%llu %s", (unsigned long long)bytes, STRATA_IEC_BYTES);
        return;
    }
    size_t u = 0;
    while (u + 1 < STRATA_IEC_N_UNITS && bytes >= IEC[u + 1].figure.unit) {
        u++;
    }
    char v[32];
    strata_figure_format(v, sizeof v, &IEC[u].figure, bytes);
    if (u + 1 < STRATA_IEC_N_UNITS && strtoull(v, NULL, 10) >= IEC[u + 1].figure.unit / IEC[u].figure.unit) {
        strata_iec_format(b, n, IEC[u + 1].figure.unit); /* 1023.96 MiB rounds to 1024.0: 1.00 GiB */
        return;
    }
    snprintf(b, n, "%s %s", v, IEC[u].name);
}

void strata_count_format(char *b, size_t n, uint64_t v) {
    char d[32];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < n; i++) {
        if (i > 0 && (len - i) % STRATA_COUNT_GROUP == 0) {
            b[o++] = STRATA_COUNT_SEPARATOR;
        }
        b[o++] = d[i];
    }
    b[o] = '\0';
}
