/* Names and messages for status codes and fallback reasons. */
#include "oz_internal.h"

const char *ozblas_status_name(ozblas_status s)
{
    switch (s) {
    case OZBLAS_OK: return "OZBLAS_OK";
    case OZBLAS_ERR_INVALID_ARGUMENT: return "OZBLAS_ERR_INVALID_ARGUMENT";
    case OZBLAS_ERR_ALLOCATION: return "OZBLAS_ERR_ALLOCATION";
    case OZBLAS_ERR_NO_HOST_BLAS: return "OZBLAS_ERR_NO_HOST_BLAS";
    case OZBLAS_ERR_EXECUTOR_UNAVAILABLE: return "OZBLAS_ERR_EXECUTOR_UNAVAILABLE";
    case OZBLAS_ERR_DEVICE: return "OZBLAS_ERR_DEVICE";
    case OZBLAS_ERR_INTERNAL: return "OZBLAS_ERR_INTERNAL";
    }
    return "OZBLAS_ERR_UNKNOWN";
}

const char *ozblas_status_message(ozblas_status s)
{
    switch (s) {
    case OZBLAS_OK: return "success";
    case OZBLAS_ERR_INVALID_ARGUMENT: return "an argument or option is out of range";
    case OZBLAS_ERR_ALLOCATION: return "host workspace could not be allocated";
    case OZBLAS_ERR_NO_HOST_BLAS:
        return "no host BLAS (cblas_dgemm or a scipy_/64_ variant) is loaded in this process";
    case OZBLAS_ERR_EXECUTOR_UNAVAILABLE: return "the executor asked for is not available here";
    case OZBLAS_ERR_DEVICE: return "the device reported an error";
    case OZBLAS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *ozblas_fallback_name(int f)
{
    switch (f) {
    case OZBLAS_FALLBACK_NONE: return "none";
    case OZBLAS_FALLBACK_NONFINITE: return "nonfinite input";
    case OZBLAS_FALLBACK_EXPONENT_RANGE: return "exponent range beyond the scaling";
    case OZBLAS_FALLBACK_TOO_LARGE_K: return "k too large for the scaling bounds";
    case OZBLAS_FALLBACK_AUTO_NATIVE: return "auto chose native";
    case OZBLAS_FALLBACK_NOT_IMPLEMENTED: return "method not implemented";
    case OZBLAS_FALLBACK_ACCURACY: return "no count meets DGEMM-level accuracy";
    case OZBLAS_FALLBACK_ENGINE: return "engine not available on this executor or device";
    case OZBLAS_FALLBACK_ALLOCATION: return "workspace could not be allocated";
    }
    return "unknown";
}
