/* Built when the CUDA executor is not compiled in (no nvcc at build time, or turned off): no
 * executor for the table (executor_table.c), so nothing reaches its device entries. */
#include "../core/oz_internal.h"
#include "oz_cuda.h"

const oz_executor *oz_cuda_executor(void) { return NULL; }
