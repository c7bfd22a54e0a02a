/* Symbol lookup among the loaded objects, skipping ozblas's own libraries: the preload shim
 * finds the real routine it stands in front of with oz_find_real_symbol, the CPU executor its
 * host BLAS (cpu/host_blas.c) with the same rules. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "oz_internal.h"

/* Every ozblas library exports this; an object that defines it is skipped by the walks. */
OZ_SHIM_API const char oz_ozblas_library_marker[] = "ozblas";

/* Is the object defining the symbol at addr an ozblas library? */
int oz_in_ozblas_library(const void *addr)
{
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_fname || !di.dli_fname[0])
        return 0;
    void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    int r = 0;
    void *m = dlsym(h, "oz_ozblas_library_marker");
    Dl_info dm;
    if (m && dladdr(m, &dm) && dm.dli_fbase == di.dli_fbase)
        r = 1;
    dlclose(h);
    return r;
}

/* The path of the object that defines addr (dlsym also searches an object's
 * dependencies, so this is not always the object the handle was opened for). */
void oz_defining_path(const void *addr, const char *fallback, char *path, size_t len)
{
    if (!path || !len)
        return;
    Dl_info where;
    const char *p = dladdr(addr, &where) && where.dli_fname ? where.dli_fname : fallback;
    snprintf(path, len, "%s", p);
}

typedef struct {
    const char *name;
    void *sym;
    char *path;
    size_t path_len;
} find_one;

static int visit_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    find_one *f = data;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *s = dlsym(h, f->name);
    int hit = s && !oz_in_ozblas_library(s);
    if (hit) {
        f->sym = s;
        oz_defining_path(s, info->dlpi_name, f->path, f->path_len);
    }
    dlclose(h);
    return hit;
}

void *oz_find_real_symbol(const char *name, char *path, size_t path_len)
{
    find_one f = {name, NULL, path, path_len};
    if (path && path_len)
        path[0] = 0;
    if (!name || !name[0])
        return NULL;
    dl_iterate_phdr(visit_one, &f);
    return f.sym;
}

