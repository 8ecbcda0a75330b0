/* log.h — the engine's log lines go to the caller's strata_log_fn (level 0 info, 1 warn, 2 error, 3 generated text),
 * or to stderr when there is none. Lines are at most 1,023 bytes. */
#ifndef STRATA_LOG_H
#define STRATA_LOG_H

#include "strata_engine.h"

typedef struct {
    strata_log_fn fn;
    void *user;
} logger;

__attribute__((format(printf, 3, 4))) void logf_(const logger *lg, int level, const char *fmt, ...);

#endif
