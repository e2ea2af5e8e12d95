/* Shared by the tests over the fake BTL: start-up with the fake installed
 * and a watchdog, MPI_T counters by name, patterned buffers. */
#ifndef FAKE_TEST_H
#define FAKE_TEST_H

#include "../tap.h"
#include "fake_btl.h"
#include "pml_hdr.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static MPI_T_pvar_session fake_pv;

/* A hang is a failure: the process ends after `secs`. */
static inline void fake_test_init(int *argc, char ***argv, unsigned secs)
{
    int provided;

    alarm(secs);
    fake_btl_install();
    if (MPI_Init(argc, argv) != MPI_SUCCESS ||
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
        MPI_T_pvar_session_create(&fake_pv) != MPI_SUCCESS)
        bail_out("MPI_Init or MPI_T start-up failed");
}

static inline void fake_test_fini(void)
{
    fake_clear();
    MPI_T_pvar_session_free(&fake_pv);
    MPI_T_finalize();
    MPI_Finalize();
}

/* The pml's counter `rdmpi_pml_<name>`, counted from its first read (a
 * handle reads 0 when allocated, so each is kept). */
static inline unsigned long long pvar(const char *name)
{
    static struct {
        const char *name;
        MPI_T_pvar_handle h;
    } seen[16];
    char full[64] = "rdmpi_pml_";
    unsigned long long v = 0;
    int i, idx, count;

    for (i = 0; i < 16 && seen[i].name && strcmp(seen[i].name, name); i++)
        ;
    if (i == 16)
        bail_out("pvar: more than 16 counters");
    if (!seen[i].name) {
        strncat(full, name, sizeof(full) - strlen(full) - 1);
        if (MPI_T_pvar_get_index(full, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(fake_pv, idx, NULL, &seen[i].h, &count) != MPI_SUCCESS)
            bail_out("no MPI_T counter %s", full);
        seen[i].name = name;
    }
    MPI_T_pvar_read(fake_pv, seen[i].h, &v);
    return v;
}

static inline void pattern(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

/* Index of the first byte that differs from pattern(seed), or -1. */
static inline long pattern_bad(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(seed * 31 + i * 7 + (i >> 8)))
            return (long)i;
    return -1;
}

/* Polls until the fake has delivered everything it holds. */
static inline void fake_drain(void)
{
    int flag;

    while (fake_queued())
        MPI_Iprobe(0, 0x7ffe, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

#define RULE(...) fake_script((struct fake_rule){__VA_ARGS__})

#endif
