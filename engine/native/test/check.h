/* check.h — the self tests' CHECK(cond, fmt, ...): counts a check in `checks`, and when cond is false a failure in
 * `fails` with the file, line and message on stderr (the including file defines both ints). */
#ifndef STRATA_TEST_CHECK_H
#define STRATA_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        checks++;                                                                                                     \
        if (!(cond)) {                                                                                                \
            fails++;                                                                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                                             \
            fputc('\n', stderr);                                                                                      \
        }                                                                                                             \
    } while (0)

#endif
