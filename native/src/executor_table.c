/* The one list of built-in executors: the only file that names them. core/ reaches an
 * executor by its ozblas_executor id through oz_executor_get, never by its symbol; a new
 * executor is one line here plus its directory. */
#include "core/oz_internal.h"
#include "cpu/cpu_common.h"
#include "cuda/oz_cuda.h"

const oz_executor *oz_executor_get(int id)
{
    if (id == OZBLAS_EXECUTOR_CPU)
        return &oz_cpu_executor;
    if (id == OZBLAS_EXECUTOR_CUDA)
        return oz_cuda_executor(); /* NULL when not built (cuda/no_cuda.c) */
    return NULL;
}
