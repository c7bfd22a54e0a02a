/* Finds and opens cuBLAS at run time; see cublas_dyn.h for the search order. */
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../core/oz_internal.h"
}
#include "cublas_dyn.h"

static_assert(OZ_CUDA_R_64F == (int)CUDA_R_64F, "cudaDataType ABI value");
static_assert(OZ_CUDA_R_8I == (int)CUDA_R_8I, "cudaDataType ABI value");
static_assert(OZ_CUDA_C_64F == (int)CUDA_C_64F, "cudaDataType ABI value");
static_assert(OZ_CUDA_R_32I == (int)CUDA_R_32I, "cudaDataType ABI value");
static_assert(OZ_LIB_MAJOR_VERSION == (int)MAJOR_VERSION, "libraryPropertyType ABI value");
static_assert(OZ_LIB_PATCH_LEVEL == (int)PATCH_LEVEL, "libraryPropertyType ABI value");

static pthread_once_t once = PTHREAD_ONCE_INIT;
static oz_cublas cub;
static int cub_ok;
static char cub_why[1024];

/* strcat that truncates */
static void append(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf), m = strlen(s);
    if (n + 1 >= len)
        return;
    if (m > len - n - 1)
        m = len - n - 1;
    memcpy(buf + n, s, m);
    buf[n + m] = '\0';
}

/* dlopen one candidate and resolve the entry points; 1 on success. */
static int try_open(const char *path, char *err, size_t err_len)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        if (err && err_len)
            snprintf(err, err_len, "%s", e ? e : "dlopen failed");
        return 0;
    }
    oz_cublas c;
    memset(&c, 0, sizeof c);
    c.lib = h;
    /* dlsym on the handle, never RTLD_DEFAULT: a handle searches libcublas and its
     * dependencies only, so these are libcublas's own functions even where the preload
     * shim (shim/shim_cublas.c) defines the same names in the global scope. */
    c.create = (oz_cublasCreate_t)dlsym(h, "cublasCreate_v2");
    c.destroy = (oz_cublasDestroy_t)dlsym(h, "cublasDestroy_v2");
    c.set_stream = (oz_cublasSetStream_t)dlsym(h, "cublasSetStream_v2");
    c.set_math_mode = (oz_cublasSetMathMode_t)dlsym(h, "cublasSetMathMode");
    c.get_version = (oz_cublasGetVersion_t)dlsym(h, "cublasGetVersion_v2");
    c.gemm_ex = (oz_cublasGemmEx_t)dlsym(h, "cublasGemmEx");
    c.dgemm = (oz_cublasDgemm_t)dlsym(h, "cublasDgemm_v2");
    c.zgemm = (oz_cublasZgemm_t)dlsym(h, "cublasZgemm_v2");
    c.gemm_ex_64 = (oz_cublasGemmEx64_t)dlsym(h, "cublasGemmEx_64");
    c.dgemm_64 = (oz_cublasDgemm64_t)dlsym(h, "cublasDgemm_v2_64");
    c.zgemm_64 = (oz_cublasZgemm64_t)dlsym(h, "cublasZgemm_v2_64");
    c.gemm_sb_ex = (oz_cublasGemmSBEx_t)dlsym(h, "cublasGemmStridedBatchedEx");
    c.gemm_sb_ex_64 = (oz_cublasGemmSBEx64_t)dlsym(h, "cublasGemmStridedBatchedEx_64");
    if (!c.create || !c.destroy || !c.set_stream || !c.gemm_ex || !c.dgemm || !c.zgemm) {
        if (err && err_len)
            snprintf(err, err_len, "%s lacks cublasCreate_v2/GemmEx/Dgemm_v2/Zgemm_v2", path);
        dlclose(h);
        return 0;
    }
    oz_cublasGetProperty_t prop = (oz_cublasGetProperty_t)dlsym(h, "cublasGetProperty");
    int ma = 0, mi = 0, pa = 0;
    if (prop && prop(OZ_LIB_MAJOR_VERSION, &ma) == 0 && prop(OZ_LIB_MINOR_VERSION, &mi) == 0 &&
        prop(OZ_LIB_PATCH_LEVEL, &pa) == 0)
        c.version = ma * 10000 + mi * 100 + pa;
    /* The path actually opened (a plain name resolves through the loader's search). */
    Dl_info info;
    if (dladdr((void *)c.create, &info) && info.dli_fname && info.dli_fname[0])
        snprintf(c.path, sizeof c.path, "%s", info.dli_fname);
    else
        snprintf(c.path, sizeof c.path, "%s", path);
    cub = c;
    return 1;
}

/* A loaded object whose file name starts with prefix ("libcublas.so", "libcublasLt.so"). */
typedef struct {
    const char *prefix;
    char path[PATH_MAX];
} loaded_lib;

static int loaded_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    loaded_lib *l = (loaded_lib *)data;
    const char *name = info->dlpi_name;
    if (!name || !name[0])
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, l->prefix, strlen(l->prefix)) == 0) {
        snprintf(l->path, sizeof l->path, "%s", name);
        return 1;
    }
    return 0;
}

/* The path of a loaded object named prefix*, "" for none. */
static const char *loaded_path(loaded_lib *l, const char *prefix)
{
    l->prefix = prefix;
    l->path[0] = '\0';
    dl_iterate_phdr(loaded_cb, l);
    return l->path;
}

static int try_cublas(const char *path) { return try_open(path, NULL, 0); }

/* Tries every match of pattern with open_fn, highest name first; 1 on success. */
static int try_glob(const char *pattern, int (*open_fn)(const char *))
{
    glob_t g;
    int found = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = g.gl_pathc; i-- > 0 && !found;)
            found = open_fn(g.gl_pathv[i]);
        globfree(&g);
    }
    return found;
}

static void load(void)
{
    char tried[768] = "";
    char buf[PATH_MAX + 64];

    const char *env = oz_env_cublas_lib();
    if (env) {
        char err[512];
        if (try_open(env, err, sizeof err)) {
            cub_ok = 1;
        } else {
            snprintf(cub_why, sizeof cub_why, "cuBLAS not found: OZBLAS_CUBLAS_LIB=%s: %s", env,
                     err);
        }
        return;
    }

    loaded_lib ll;
    const char *loaded = loaded_path(&ll, "libcublas.so");
    if (loaded[0] && try_open(loaded, NULL, 0)) {
        cub_ok = 1;
        return;
    }
    append(tried, sizeof tried, "loaded objects");

    /* The site-packages that holds libozblas (<sp>/ozblas/libozblas.so). */
    Dl_info self;
    if (dladdr((void *)&oz_cublas_get, &self) && self.dli_fname && self.dli_fname[0] == '/') {
        char sp[PATH_MAX];
        snprintf(sp, sizeof sp, "%s", self.dli_fname);
        for (int up = 0; up < 2; up++) {
            char *s = strrchr(sp, '/');
            if (s)
                *s = '\0';
        }
        if (sp[0]) {
            static const char *subdirs[] = {"nvidia/cublas/lib", "nvidia/cu13/lib"};
            for (int i = 0; i < 2; i++) {
                snprintf(buf, sizeof buf, "%s/%s/libcublas.so.*", sp, subdirs[i]);
                if (try_glob(buf, try_cublas)) {
                    cub_ok = 1;
                    return;
                }
            }
            append(tried, sizeof tried, ", ");
            append(tried, sizeof tried, sp);
            append(tried, sizeof tried, "/nvidia/{cublas,cu13}/lib");
        }
    }

    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        snprintf(buf, sizeof buf, "%s/lib64/libcublas.so.*", home);
        if (try_glob(buf, try_cublas)) {
            cub_ok = 1;
            return;
        }
        snprintf(buf, sizeof buf, "%s/lib64/libcublas.so", home);
        if (try_open(buf, NULL, 0)) {
            cub_ok = 1;
            return;
        }
        append(tried, sizeof tried, ", $CUDA_HOME/lib64");
    }

    static const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    for (int i = 0; i < 3; i++) {
        if (try_open(names[i], NULL, 0)) {
            cub_ok = 1;
            return;
        }
    }
    append(tried, sizeof tried, ", libcublas.so.13, libcublas.so.12, libcublas.so");
    snprintf(cub_why, sizeof cub_why, "cuBLAS not found: tried %s (set OZBLAS_CUBLAS_LIB)",
             tried);
}

const oz_cublas *oz_cublas_get(char *why, size_t why_len)
{
    pthread_once(&once, load);
    if (!cub_ok) {
        if (why && why_len)
            snprintf(why, why_len, "%s", cub_why);
        return NULL;
    }
    return &cub;
}

/* ---- cuBLASLt ---------------------------------------------------------------------------------- */

static_assert(OZ_CUDA_R_32F == (int)CUDA_R_32F, "cudaDataType ABI value");
static_assert(OZ_CUDA_R_4F_E2M1 == (int)CUDA_R_4F_E2M1, "cudaDataType ABI value");

static pthread_once_t lt_once = PTHREAD_ONCE_INIT;
static oz_cublaslt lt;
static int lt_ok;
static char lt_why[768];

static int lt_try(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    oz_cublaslt c;
    memset(&c, 0, sizeof c);
    c.lib = h;
    c.create = (oz_cublas_status(*)(oz_cublaslt_handle *))dlsym(h, "cublasLtCreate");
    c.destroy = (oz_cublas_status(*)(oz_cublaslt_handle))dlsym(h, "cublasLtDestroy");
    c.desc_create = (oz_cublas_status(*)(oz_cublaslt_matmul_desc *, int, int))dlsym(
        h, "cublasLtMatmulDescCreate");
    c.desc_destroy =
        (oz_cublas_status(*)(oz_cublaslt_matmul_desc))dlsym(h, "cublasLtMatmulDescDestroy");
    c.desc_set = (oz_cublas_status(*)(oz_cublaslt_matmul_desc, int, const void *, size_t))dlsym(
        h, "cublasLtMatmulDescSetAttribute");
    c.layout_create = (oz_cublas_status(*)(oz_cublaslt_layout *, int, uint64_t, uint64_t,
                                           int64_t))dlsym(h, "cublasLtMatrixLayoutCreate");
    c.layout_destroy =
        (oz_cublas_status(*)(oz_cublaslt_layout))dlsym(h, "cublasLtMatrixLayoutDestroy");
    c.matmul = (decltype(c.matmul))dlsym(h, "cublasLtMatmul");
    c.layout_set = (decltype(c.layout_set))dlsym(h, "cublasLtMatrixLayoutSetAttribute");
    c.pref_create = (decltype(c.pref_create))dlsym(h, "cublasLtMatmulPreferenceCreate");
    c.pref_destroy = (decltype(c.pref_destroy))dlsym(h, "cublasLtMatmulPreferenceDestroy");
    c.pref_set = (decltype(c.pref_set))dlsym(h, "cublasLtMatmulPreferenceSetAttribute");
    c.heuristic = (decltype(c.heuristic))dlsym(h, "cublasLtMatmulAlgoGetHeuristic");
    size_t (*ver)(void) = (size_t(*)(void))dlsym(h, "cublasLtGetVersion");
    if (!c.create || !c.destroy || !c.desc_create || !c.desc_destroy || !c.desc_set ||
        !c.layout_create || !c.layout_destroy || !c.matmul || !ver) {
        dlclose(h);
        return 0;
    }
    c.version = ver();
    Dl_info info;
    snprintf(c.path, sizeof c.path, "%s",
             dladdr((void *)c.create, &info) && info.dli_fname ? info.dli_fname : path);
    lt = c;
    return 1;
}

static void lt_load(void)
{
    char why[512];
    const oz_cublas *cb = oz_cublas_get(why, sizeof why);
    if (!cb) {
        snprintf(lt_why, sizeof lt_why, "cuBLASLt not opened: %s", why);
        return;
    }
    loaded_lib ll;
    const char *loaded = loaded_path(&ll, "libcublasLt.so");
    if (loaded[0] && lt_try(loaded)) {
        lt_ok = 1;
        return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cb->path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        char pattern[PATH_MAX + 32];
        snprintf(pattern, sizeof pattern, "%s/libcublasLt.so*", dir);
        if ((lt_ok = try_glob(pattern, lt_try)))
            return;
    }
    static const char *names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    for (int i = 0; i < 3 && !lt_ok; i++)
        lt_ok = lt_try(names[i]);
    if (!lt_ok)
        snprintf(lt_why, sizeof lt_why,
                 "cuBLASLt not found: tried the loaded objects, %s/libcublasLt.so*, "
                 "libcublasLt.so.13, .12, .so",
                 slash ? dir : ".");
}

const oz_cublaslt *oz_cublaslt_get(char *why, size_t why_len)
{
    pthread_once(&lt_once, lt_load);
    if (!lt_ok) {
        if (why && why_len)
            snprintf(why, why_len, "%s", lt_why);
        return NULL;
    }
    return &lt;
}
