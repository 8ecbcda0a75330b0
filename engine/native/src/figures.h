/* figures.h — the figures of strata-ref's user-visible lines (a refused plan's GiB and counts), in the Java units and
 * rounding: the parameters are Java's ByteSize.Figure and Units.count, generated into rules.def (RulesDef). */
#ifndef STRATA_FIGURES_H
#define STRATA_FIGURES_H

#include <stddef.h>
#include <stdint.h>

/* bytes / unit with `decimals` decimals, rounded half-up (up = 0) or up (up = 1): Java ByteSize.Figure */
typedef struct {
    uint64_t unit; /* bytes per unit, a power of two to 2^40 */
    int decimals;  /* 1 or 2 */
    int up;
} strata_figure;

extern const strata_figure STRATA_GIB;    /* ByteSize.gib: GiB, two decimals, half-up */
extern const strata_figure STRATA_GIB_UP; /* ByteSize.gibUp: GiB, one decimal, rounded up */

/* bytes in figure f into b (cap n): "10.67", as f's Java format writes it */
void strata_figure_format(char *b, size_t n, const strata_figure *f, uint64_t bytes);

/* a size scaled to the largest unit not above it: "812 B", "88.0 KiB", "2.48 GiB" (Java ByteSize.iec) */
void strata_iec_format(char *b, size_t n, uint64_t bytes);

/* an exact count with thousands separators: "416,858,112" (Java Units.count) */
void strata_count_format(char *b, size_t n, uint64_t v);

#endif
