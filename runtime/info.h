/* Info objects: ordered (key, value) string pairs.  Keys keep the order of
 * their first MPI_Info_set, which is what MPI_Info_get_nthkey walks. */
#ifndef RT_INFO_H
#define RT_INFO_H

#include "rt.h"

struct rt_info_entry {
    char *key, *value;
};

struct rdmpi_info {
    struct rt_obj obj;
    int n, cap;
    struct rt_info_entry *e;
    int readonly; /* MPI_INFO_ENV */
};

/* Handle to object (MPI_INFO_ENV filled on first use), or NULL. */
struct rdmpi_info *rt_info_get(MPI_Info h);

/* Sets key to value (both already checked); MPI_SUCCESS or MPI_ERR_NO_MEM. */
int rt_info_put(struct rdmpi_info *info, const char *key, const char *value);

/* Adds the keys of MPI_INFO_ENV (MPI-4.1 11.2.8) to info: command and argv
 * from (argc, argv) if argc > 0, else from the process's own command line;
 * the rest from what the runtime knows. */
int rt_info_env_fill(struct rdmpi_info *info, int argc, char **argv);
/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" (info_env.c). */
const char *rt_thread_level_name(int level);

#endif
