/* The library's version (the package's, set at build time). */
#include "ozblas.h"

#ifndef OZBLAS_VERSION
#define OZBLAS_VERSION "0.0.0"
#endif

const char *ozblas_version(void) { return OZBLAS_VERSION; }
