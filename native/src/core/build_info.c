/* What this library was compiled with: facts of the build, passed by native/CMakeLists.txt
 * as definitions of this file alone (so that `ozblas info` names the CUDA architectures
 * even where no driver is present). The defaults describe a build made without CMake. */
#include <stdio.h>
#include <string.h>

#include "oz_internal.h"

#ifndef OZ_BUILD_CUDA
#define OZ_BUILD_CUDA 0
#endif
#ifndef OZ_BUILD_CUDA_ARCHS
#define OZ_BUILD_CUDA_ARCHS ""
#endif
#ifndef OZ_BUILD_CUDA_VERSION
#define OZ_BUILD_CUDA_VERSION ""
#endif
#ifndef OZ_BUILD_CUDA_SOURCE
#define OZ_BUILD_CUDA_SOURCE ""
#endif
#ifndef OZ_BUILD_CUDA_COMPILER
#define OZ_BUILD_CUDA_COMPILER ""
#endif
#ifndef OZ_BUILD_CUDA_NOTE
#define OZ_BUILD_CUDA_NOTE "built without CMake"
#endif
#ifndef OZ_BUILD_C_COMPILER
#define OZ_BUILD_C_COMPILER ""
#endif
#ifndef OZ_BUILD_NATIVE_ARCH
#define OZ_BUILD_NATIVE_ARCH 0
#endif

void ozblas_build_get(ozblas_build_info *out)
{
    memset(out, 0, sizeof *out);
    out->cuda = OZ_BUILD_CUDA;
    snprintf(out->cuda_archs, sizeof out->cuda_archs, "%s", OZ_BUILD_CUDA_ARCHS);
    snprintf(out->cuda_version, sizeof out->cuda_version, "%s", OZ_BUILD_CUDA_VERSION);
    snprintf(out->cuda_source, sizeof out->cuda_source, "%s", OZ_BUILD_CUDA_SOURCE);
    snprintf(out->cuda_compiler, sizeof out->cuda_compiler, "%s", OZ_BUILD_CUDA_COMPILER);
    snprintf(out->cuda_note, sizeof out->cuda_note, "%s", OZ_BUILD_CUDA_NOTE);
    snprintf(out->c_compiler, sizeof out->c_compiler, "%s", OZ_BUILD_C_COMPILER);
    out->native_arch = OZ_BUILD_NATIVE_ARCH;
}

const char *oz_build_not_built(void) { return "not built: " OZ_BUILD_CUDA_NOTE; }
