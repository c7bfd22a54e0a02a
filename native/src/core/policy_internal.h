/* The policy's entry for the dispatcher (api.c): not part of the public API. */
#ifndef OZ_POLICY_INTERNAL_H
#define OZ_POLICY_INTERNAL_H

#include "ozblas.h"

/* ozblas_policy_local for a call being decided: the same profile, and a cache that had to
 * be ignored is reported on stderr (once per process). Returns ozblas_policy_local's code. */
int oz_policy_local_dispatch(ozblas_profile *out);

#endif
