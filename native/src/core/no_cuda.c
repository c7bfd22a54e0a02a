/* Built when the CUDA executor is not compiled in (no nvcc at build time). */
#include "oz_internal.h"

const oz_executor *oz_cuda_executor(void) { return NULL; }
