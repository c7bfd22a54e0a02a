/* The one allocator of the library's host workspaces (oz_malloc, oz_calloc; freed with
 * free), the count that the device allocations share (oz_alloc_fault), and the test-only
 * fault injection point: the N-th allocation from now fails (tests/core/test_faults.py).
 * A workspace that cannot be allocated never ends a call: the product or the LAPACK call
 * is completed by the host routine (docs/lapack.md, "When memory runs out"). */
#include <stdio.h>
#include <stdlib.h>

#include "oz_internal.h"

/* Allocations counted since oz_test_fail_allocation, and the one to fail (0: none). */
static int64_t count, fail_at;

int oz_alloc_fault(void)
{
    int64_t at = __atomic_load_n(&fail_at, __ATOMIC_RELAXED);
    int64_t i = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    return at > 0 && i == at;
}

void *oz_malloc(size_t bytes) { return oz_alloc_fault() ? NULL : malloc(bytes); }

void *oz_calloc(size_t n, size_t size) { return oz_alloc_fault() ? NULL : calloc(n, size); }

void oz_alloc_warn(const char *what)
{
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "ozblas: %s: a workspace could not be allocated; such calls are computed "
                        "by the host routine (shown once)\n", what);
}

/* Test-only: the nth allocation from now (host or device) fails, the count restarts; 0: none
 * fails. oz_test_allocations: the allocations since. */
OZ_TEST_HOOK void oz_test_fail_allocation(int64_t nth)
{
    __atomic_store_n(&fail_at, nth > 0 ? nth : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&count, 0, __ATOMIC_RELAXED);
}

OZ_TEST_HOOK int64_t oz_test_allocations(void) { return __atomic_load_n(&count, __ATOMIC_RELAXED); }
