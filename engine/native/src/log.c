/* log.c — log lines (log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

void logf_(const logger *lg, int level, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (lg->fn != NULL) {
        lg->fn(lg->user, level, line);
    } else {
        fprintf(stderr, "%s\n", line);
    }
}
