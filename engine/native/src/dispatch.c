/* dispatch.c — picks the fused-kernel variant this CPU runs. */
#include "ref_internal.h"

const strata_fused_ops *strata_fused_best(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
        return &strata_fused_avx2;
    }
#endif
    return &strata_fused_base;
}
