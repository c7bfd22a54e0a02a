/* Parallel launchers (mpirun, srun, torchrun, ...): the process's rank and its rank on the
 * node, from the variables each launcher sets. OZBLAS_DEVICE=auto takes the GPU of the local
 * rank; "%r" in a trace path becomes the rank. These are the launchers' variables, not
 * ozblas settings, so they are read here rather than in config.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oz_internal.h"

/* The first of names that holds a non-negative decimal integer, or -1. */
static int first_rank(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (!v || !*v)
            continue;
        char *end;
        long r = strtol(v, &end, 10);
        if (*end == 0 && r >= 0 && r < (1L << 30) && v[0] >= '0' && v[0] <= '9')
            return (int)r;
    }
    return -1;
}

int oz_launcher_local_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                        "LOCAL_RANK", "MPI_LOCALRANKID", NULL};
    return first_rank(names);
}

int oz_launcher_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "SLURM_PROCID", "RANK", NULL};
    return first_rank(names);
}

int oz_expand_rank(const char *in, char *out, size_t len)
{
    char id[24];
    int r = oz_launcher_rank();
    snprintf(id, sizeof id, "%d", r >= 0 ? r : (int)getpid());
    size_t j = 0, idl = strlen(id);
    for (size_t i = 0; in[i]; i++) {
        int rank = in[i] == '%' && in[i + 1] == 'r';
        size_t add = rank ? idl : 1;
        if (j + add >= len)
            return 0;
        memcpy(out + j, rank ? id : in + i, add);
        j += add;
        i += rank;
    }
    if (j >= len)
        return 0;
    out[j] = 0;
    return 1;
}

int oz_auto_device_for(int local_rank, int ndev)
{
    return local_rank > 0 && ndev > 0 ? local_rank % ndev : 0;
}

/* Devices the CUDA executor can use (0 when none), counted once. */
static int ndev;
static pthread_once_t ndev_once = PTHREAD_ONCE_INIT;

static void count_devices(void)
{
    char name[256];
    int drv;
    while (ndev < 1024 && oz_gpu_identity(ndev, name, sizeof name, &drv))
        ndev++;
}

int ozblas_device_for(const ozblas_options *opt)
{
    if (opt->executor != OZBLAS_EXECUTOR_AUTO)
        return opt->device;
    int lr = oz_launcher_local_rank();
    if (lr <= 0)
        return 0;
    pthread_once(&ndev_once, count_devices);
    return oz_auto_device_for(lr, ndev);
}
