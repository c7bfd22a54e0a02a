/* Built when the CUDA executor is not compiled in (no nvcc at build time). */
#include "oz_internal.h"
#include "../cuda/oz_cuda.h"

const oz_executor *oz_cuda_executor(void) { return NULL; }

const char *oz_cuda_describe(void) { return "not built (no nvcc at build time)"; }
