/* In-process activation (ozblas.activate()): the preload shim's entries without LD_PRELOAD.
 *
 * A program that is already running resolved its BLAS calls long ago, into the GOT slots
 * of each object that calls them. For every name of shim_names.h, the JUMP_SLOT and
 * GLOB_DAT relocations of every loaded object are looked up (PT_DYNAMIC: DT_JMPREL and
 * DT_RELA against DT_SYMTAB/DT_STRTAB) and their slots pointed at this library's entry of
 * the same name. Skipped: ozblas's own libraries, and any object that defines the name
 * itself (the real BLAS: its internal calls stay its own). Each patched slot is recorded
 * with its original value, and restoring writes that value back wherever the slot still
 * holds ours. A slot is one aligned pointer, stored atomically, so a call running in
 * another thread goes either to the old or to the new target.
 *
 * Full RELRO makes the GOT read-only after relocation: such a page is made writable for
 * the store and read-only again, which is what the loader left it as (it protects the
 * PT_GNU_RELRO range rounded down to whole pages). An object that cannot be patched is
 * skipped with a message; nothing here aborts the host program.
 *
 * The real routine the entries call is found by symbol lookup in the defining object
 * (oz_find_real_symbol), never through a GOT, so patching cannot make the shim call
 * itself. This library must be loaded RTLD_LOCAL: then its BLAS names interpose nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ozblas.h"
#include "shim_names.h"

#if defined(__x86_64__)
#define OZ_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define OZ_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define OZ_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define OZ_R_GLOB_DAT R_AARCH64_GLOB_DAT
#else /* elsewhere nothing is patched: ozblas_activate_patch() says so */
#define OZ_NO_GOT_PATCHING
#define OZ_R_JUMP_SLOT 0xFFFFFFFFu
#define OZ_R_GLOB_DAT 0xFFFFFFFFu
#endif

#if UINTPTR_MAX > 0xffffffffu
#define OZ_R_SYM ELF64_R_SYM
#define OZ_R_TYPE ELF64_R_TYPE
#else
#define OZ_R_SYM ELF32_R_SYM
#define OZ_R_TYPE ELF32_R_TYPE
#endif

/* The shim's names, sorted for bsearch, with this library's entry for each. */
#define OZ_NAME(r, sym, api, T) #sym,
#define OZ_NAME_ROUTINE(r, e) OZ_SHIM_VARIANTS(OZ_NAME, r)
#define OZ_NAME_LAPACK(r, e, shape) OZ_SHIM_LAPACK_VARIANTS(OZ_NAME, r)
#define OZ_NAME_BLAS3(r, e, shape) OZ_SHIM_VARIANTS(OZ_NAME, r)
static const char *const shim_names[] = {
    OZ_SHIM_ROUTINES(OZ_NAME_ROUTINE) OZ_SHIM_LAPACK_ROUTINES(OZ_NAME_LAPACK)
        OZ_SHIM_QR_ROUTINES(OZ_NAME_LAPACK) OZ_SHIM_BLAS3_ROUTINES(OZ_NAME_BLAS3)
            OZ_SHIM_GEN_ROUTINES(OZ_NAME_LAPACK)
            OZ_SHIM_EIGEN_ROUTINES(OZ_NAME_LAPACK) OZ_SHIM_SVD_ROUTINES(OZ_NAME_LAPACK)
                OZ_SHIM_NONSYM_ROUTINES(OZ_NAME_LAPACK)};
enum { N_NAMES = sizeof shim_names / sizeof shim_names[0] };

typedef struct {
    const char *name;
    void *entry;
} entry_t;

typedef struct {
    void **slot;
    void *orig, *ours;
    int object; /* index into objects[] */
    int relro;  /* the slot lies on a page the loader made read-only */
} patch_t;

typedef struct {
    uintptr_t base;
    char *name;
} object_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t entries[N_NAMES];
static int have_entries;
static uintptr_t self_base;
static patch_t *patches;
static int n_patches, cap_patches;
static object_t *objects; /* every object scanned since activation */
static int n_objects, cap_objects;
/* dl_iterate_phdr's load and unload counters at the last scan: unchanged, nothing new. */
static unsigned long long seen_adds, seen_subs;
static int scanned;

static int known_object(uintptr_t base, const char *name)
{
    for (int i = 0; i < n_objects; i++)
        if (objects[i].base == base && !strcmp(objects[i].name, name))
            return 1;
    return 0;
}

static int add_object(uintptr_t base, const char *name)
{
    if (n_objects == cap_objects) {
        int cap = cap_objects ? 2 * cap_objects : 64;
        object_t *grown = realloc(objects, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        objects = grown, cap_objects = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    objects[n_objects].base = base;
    objects[n_objects].name = copy;
    return n_objects++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const entry_t *)a)->name, ((const entry_t *)b)->name);
}

/* The loaded object that holds addr (NULL: none). */
static struct link_map *object_of(const void *addr)
{
    Dl_info di;
    struct link_map *lm = NULL;
    return addr && dladdr1(addr, &di, (void **)&lm, RTLD_DL_LINKMAP) ? lm : NULL;
}

/* This library's own definitions (dlsym on its own handle: a reference from here could be
 * bound to another object's definition of the same name). */
static int load_entries(void)
{
    if (have_entries)
        return 1;
    struct link_map *self = object_of((void *)&load_entries);
    void *h = self ? dlopen(self->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h) {
        fprintf(stderr, "ozblas (activate): cannot reopen the preload library itself\n");
        return 0;
    }
    for (int i = 0; i < N_NAMES; i++) {
        entries[i].name = shim_names[i];
        entries[i].entry = dlsym(h, shim_names[i]);
        if (object_of(entries[i].entry) != self) {
            fprintf(stderr, "ozblas (activate): %s is not this library's own entry\n",
                    shim_names[i]);
            dlclose(h);
            return 0;
        }
    }
    dlclose(h);
    qsort(entries, N_NAMES, sizeof entries[0], by_name);
    self_base = self->l_addr;
    have_entries = 1;
    return 1;
}

static void *entry_for(const char *name)
{
    entry_t key = {name, NULL};
    entry_t *e = bsearch(&key, entries, N_NAMES, sizeof entries[0], by_name);
    return e ? e->entry : NULL;
}

static const char *object_label(const char *name) { return name && name[0] ? name : "(main program)"; }

/* The objects loaded since the last scan that are ready to patch, found before the patch
 * walk because dlopen and dlsym are not called inside dl_iterate_phdr's callback. An
 * object shows in the walk as soon as another thread's dlopen has mapped it, before its
 * relocation (which would overwrite a patched slot, or fault on a RELRO page made
 * read-only too early); dlopen(RTLD_NOLOAD) waits for such a dlopen to finish, so an
 * object it returns is relocated. ozblas marks the ones that export
 * oz_ozblas_library_marker (libozblas.so, any copy of the preload library). */
typedef struct {
    uintptr_t base;
    int ozblas;
} ready_t;

typedef struct {
    ready_t *v;
    int n;
} ready_list;

typedef struct {
    char **v;
    size_t n, cap;
} name_list;

static int collect_new(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    name_list *names = data;
    if (!info->dlpi_name || !info->dlpi_name[0] || known_object(info->dlpi_addr, info->dlpi_name))
        return 0;
    if (names->n == names->cap) {
        size_t cap = names->cap ? 2 * names->cap : 64;
        char **grown = realloc(names->v, cap * sizeof *grown);
        if (!grown)
            return 1;
        names->v = grown, names->cap = cap;
    }
    char *copy = strdup(info->dlpi_name);
    if (!copy)
        return 1;
    names->v[names->n++] = copy;
    return 0;
}

static void ready_objects(ready_list *out)
{
    name_list names = {NULL, 0, 0};
    dl_iterate_phdr(collect_new, &names);
    out->v = calloc(names.n ? names.n : 1, sizeof *out->v);
    for (size_t i = 0; i < names.n; i++) {
        void *h = dlopen(names.v[i], RTLD_LAZY | RTLD_NOLOAD);
        struct link_map *lm = NULL;
        if (h && out->v && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
            /* dlsym also searches the dependencies: the marker must be the object's own */
            void *marker = dlsym(h, "oz_ozblas_library_marker");
            out->v[out->n].base = lm->l_addr;
            out->v[out->n++].ozblas = marker && object_of(marker) == lm;
        }
        if (h)
            dlclose(h);
        free(names.v[i]);
    }
    free(names.v);
}

/* ---- one object's dynamic section ------------------------------------------------------ */

typedef struct {
    uintptr_t base;
    const ElfW(Rela) *jmprel, *rela;
    size_t n_jmprel, n_rela;
    const ElfW(Sym) *symtab;
    const char *strtab;
    size_t strsz;
    uintptr_t ro_begin, ro_end; /* pages the loader made read-only (PT_GNU_RELRO) */
} dyn_t;

/* glibc stores the dynamic section's addresses relocated, other loaders as offsets. */
static uintptr_t dyn_addr(uintptr_t base, ElfW(Addr) p) { return p < base ? base + p : p; }

static const char *read_dynamic(struct dl_phdr_info *info, dyn_t *d)
{
    memset(d, 0, sizeof *d);
    d->base = info->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(d->base + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO) {
            d->ro_begin = (d->base + ph->p_vaddr) & ~(page - 1);
            d->ro_end = (d->base + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
        }
    }
    if (!dyn)
        return NULL; /* nothing to patch */
    size_t pltrelsz = 0, relasz = 0;
    int pltrel_is_rela = 1;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_JMPREL: d->jmprel = (const ElfW(Rela) *)dyn_addr(d->base, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = dyn->d_un.d_val; break;
        case DT_PLTREL: pltrel_is_rela = dyn->d_un.d_val == DT_RELA; break;
        case DT_RELA: d->rela = (const ElfW(Rela) *)dyn_addr(d->base, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_SYMTAB: d->symtab = (const ElfW(Sym) *)dyn_addr(d->base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: d->strtab = (const char *)dyn_addr(d->base, dyn->d_un.d_ptr); break;
        case DT_STRSZ: d->strsz = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (!d->symtab || !d->strtab)
        return NULL;
    if (d->jmprel && !pltrel_is_rela)
        return "PLT relocations are REL, not RELA";
    d->n_jmprel = d->jmprel ? pltrelsz / sizeof(ElfW(Rela)) : 0;
    d->n_rela = d->rela ? relasz / sizeof(ElfW(Rela)) : 0;
    return NULL;
}

/* Is [p, p + sizeof(void *)) inside a writable PT_LOAD segment? */
static int in_writable_load(struct dl_phdr_info *info, uintptr_t p)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t b = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && p >= b &&
            p + sizeof(void *) <= b + ph->p_memsz)
            return 1;
    }
    return 0;
}

/* One aligned pointer store; a read-only RELRO page is opened for it and closed again. */
static int store_slot(void **slot, void *value, int relro)
{
    if (!relro) {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        return 1;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *p = (void *)((uintptr_t)slot & ~(page - 1));
    if (mprotect(p, page, PROT_READ | PROT_WRITE) != 0)
        return 0;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    mprotect(p, page, PROT_READ);
    return 1;
}

/* ---- patching --------------------------------------------------------------------------- */

typedef struct {
    ready_list ready;
    int newly;
    int not_ready;
    int failed_alloc;
} scan_t;

static int add_patch(const patch_t *p)
{
    if (n_patches == cap_patches) {
        int cap = cap_patches ? 2 * cap_patches : 64;
        patch_t *grown = realloc(patches, (size_t)cap * sizeof *grown);
        if (!grown)
            return 0;
        patches = grown, cap_patches = cap;
    }
    patches[n_patches++] = *p;
    return 1;
}

/* The routed names' slots among n relocations: each one not yet pointing at our entry is
 * recorded, then written. */
static const char *patch_relocs(struct dl_phdr_info *info, const dyn_t *d, const ElfW(Rela) *r,
                                size_t n, int object, scan_t *s)
{
    for (size_t i = 0; i < n; i++) {
        unsigned type = (unsigned)OZ_R_TYPE(r[i].r_info);
        if (type != OZ_R_JUMP_SLOT && type != OZ_R_GLOB_DAT)
            continue;
        const ElfW(Sym) *sym = &d->symtab[OZ_R_SYM(r[i].r_info)];
        if (sym->st_shndx != SHN_UNDEF || (d->strsz && sym->st_name >= d->strsz))
            continue; /* the object's own definition: the real routine calling itself */
        if (r[i].r_addend)
            continue; /* symbol + offset: not a call of the routine */
        void *ours = entry_for(d->strtab + sym->st_name);
        if (!ours)
            continue;
        uintptr_t addr = d->base + r[i].r_offset;
        void **slot = (void **)addr;
        int relro = addr >= d->ro_begin && addr < d->ro_end;
        if (addr % sizeof(void *))
            return "a GOT slot is not pointer-aligned";
        if (!relro && !in_writable_load(info, addr))
            return "a GOT slot lies outside the object's writable segments";
        void *orig = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (orig == ours)
            continue; /* already ours: patched before, or bound to us by LD_PRELOAD */
        patch_t p = {slot, orig, ours, object, relro};
        if (!add_patch(&p)) {
            s->failed_alloc = 1;
            return "out of memory";
        }
        if (!store_slot(slot, ours, relro)) {
            n_patches--;
            return "mprotect refused to open its read-only GOT";
        }
        s->newly++;
    }
    return NULL;
}

static int visit_patch(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    scan_t *s = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    uintptr_t base = info->dlpi_addr;
    if (known_object(base, name))
        return 0;
    int ready = !name[0], ozblas = 0; /* the main program is relocated before it runs */
    for (int i = 0; i < s->ready.n; i++)
        if (s->ready.v[i].base == base)
            ready = 1, ozblas = s->ready.v[i].ozblas;
    if (!ready) {
        s->not_ready = 1; /* being loaded by another thread: the next scan takes it */
        return 0;
    }
    int object = add_object(base, name);
    if (object < 0) {
        s->failed_alloc = 1;
        return 1;
    }
    if (base == self_base || ozblas)
        return 0;
    dyn_t d;
    const char *why = read_dynamic(info, &d);
    if (!why)
        why = patch_relocs(info, &d, d.jmprel, d.n_jmprel, object, s);
    if (!why)
        why = patch_relocs(info, &d, d.rela, d.n_rela, object, s);
    if (why)
        fprintf(stderr, "ozblas (activate): %s not (fully) patched: %s; its BLAS calls stay native\n",
                object_label(name), why);
    return s->failed_alloc;
}

static int visit_counters(struct dl_phdr_info *info, size_t size, void *data)
{
    unsigned long long *c = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
        c[2] = 1;
    }
    return 1;
}

/* Restores the patches of objects still loaded (matched by base and name), newest first;
 * a slot that no longer holds our entry was changed by someone else and is left alone.
 * data counts the slots restored. */
static int visit_restore(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    int *restored = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    for (int i = n_patches - 1; i >= 0; i--) {
        patch_t *p = &patches[i];
        if (!p->slot || objects[p->object].base != info->dlpi_addr ||
            strcmp(objects[p->object].name, name))
            continue;
        if (__atomic_load_n(p->slot, __ATOMIC_ACQUIRE) == p->ours) {
            if (store_slot(p->slot, p->orig, p->relro))
                (*restored)++;
            else
                fprintf(stderr, "ozblas (activate): cannot restore a GOT slot of %s (mprotect "
                                "refused); it keeps routing to ozblas\n",
                        object_label(name));
        }
        p->slot = NULL;
    }
    return 0;
}

static void forget_all(void)
{
    for (int i = 0; i < n_objects; i++)
        free(objects[i].name);
    n_objects = 0;
    n_patches = 0;
    scanned = 0;
}

int ozblas_activate_patch(void)
{
#ifdef OZ_NO_GOT_PATCHING
    fprintf(stderr, "ozblas (activate): GOT patching knows x86-64 and aarch64 only\n");
    return -1;
#endif
    pthread_mutex_lock(&lock);
    if (!load_entries()) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    unsigned long long c[3] = {0, 0, 0};
    dl_iterate_phdr(visit_counters, c);
    if (scanned && c[2] && c[0] == seen_adds && c[1] == seen_subs) {
        pthread_mutex_unlock(&lock); /* no object loaded or unloaded since the last scan */
        return 0;
    }
    if (scanned && (!c[2] || c[1] != seen_subs)) {
        /* Objects were unloaded: records of theirs must never be written back (another
         * object may live there now), so put back what is still loaded and start over. */
        int restored = 0;
        dl_iterate_phdr(visit_restore, &restored);
        forget_all();
    }
    scan_t s = {{NULL, 0}, 0, 0, 0};
    ready_objects(&s.ready);
    dl_iterate_phdr(visit_patch, &s);
    free(s.ready.v);
    if (s.failed_alloc)
        fprintf(stderr, "ozblas (activate): out of memory; some objects were not patched\n");
    /* With an object left for later, the counters must not say that nothing is new. */
    seen_adds = s.not_ready ? ~c[0] : c[0];
    seen_subs = c[1];
    scanned = 1;
    pthread_mutex_unlock(&lock);
    return s.newly;
}

int ozblas_activate_restore(void)
{
    pthread_mutex_lock(&lock);
    int restored = 0;
    dl_iterate_phdr(visit_restore, &restored);
    forget_all();
    pthread_mutex_unlock(&lock);
    return restored;
}

int ozblas_activate_count(void)
{
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int i = 0; i < n_patches; i++)
        n += patches[i].slot != NULL;
    pthread_mutex_unlock(&lock);
    return n;
}
