/* The PMIx client: job facts at init, business-card exchange, abort. */
#ifndef RT_MODEX_H
#define RT_MODEX_H

#include <stddef.h>

/* Fills `rt` from PMIx, or as rank 0 of 1 when no launcher started us.
 * A launcher whose PMIx server cannot be reached is a fatal error. */
int rt_modex_init(void);
/* Ends the job-level part; the PMIx connection itself lasts until exit. */
void rt_modex_finalize(void);

/* Cards are published before rt_modex_exchange() and read after it. */
int rt_modex_put(const char *key, const void *data, size_t len);
int rt_modex_exchange(void);
/* *data is malloc'd for the caller. */
int rt_modex_get(int rank, const char *key, void **data, size_t *len);
/* This process's own cards, the i-th of those put (0 on success, -ENOENT
 * past the last): the connect exchange carries them to other jobs. */
int rt_modex_own(int i, const char **key, const void **data, size_t *len);
/* A barrier across the job through the PMIx server (no data). */
int rt_modex_fence(void);
/* Asks the launcher to end the job; returns only if there is none. */
void rt_modex_abort(int status, const char *msg);

#endif
