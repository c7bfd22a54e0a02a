/* What the policy's files (policy_profiles.c, policy_model.c, policy_cache.c) share, and its
 * entry for the dispatcher (api.c): not part of the public API. */
#ifndef OZ_POLICY_INTERNAL_H
#define OZ_POLICY_INTERNAL_H

#include <stdio.h>

#include "oz_internal.h"

/* The host BLAS's fixed cost per call, s (the cost model's, and the estimates'). */
#define HOST_CALL_S 5e-6

static inline void oz_copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* ozblas_policy_local for a call being decided: the same profile, and a cache that had to
 * be ignored is reported on stderr (once per process). Returns ozblas_policy_local's code. */
int oz_policy_local_dispatch(ozblas_profile *out);

#endif
