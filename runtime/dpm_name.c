/*
 * Name publishing (MPI-4.1 11.4.4): MPI_Publish_name, MPI_Lookup_name and
 * MPI_Unpublish_name through PMIx_Publish, PMIx_Lookup and PMIx_Unpublish,
 * served by the launcher (mpirun's name service, launcher/names.c).
 *
 * A service name becomes the PMIx key "mpi:" + name (so that no service
 * name can be taken for a PMIx directive), its port name the value.  The
 * scope is the launcher's: every process of one mpirun, those it spawned
 * included (docs/dynamic.md).  A name lasts until it is unpublished or its
 * publisher ends (PMIX_PERSIST_PROC); only the publisher unpublishes it.
 * No info key is defined; any info is accepted and ignored.  A lookup
 * never waits: a name not published is MPI_ERR_NAME at once.
 *
 * A launcher whose PMIx server does not offer these calls (Slurm's srun
 * --mpi=pmix, a process started without a launcher) gets
 * MPI_ERR_UNSUPPORTED_OPERATION with a message that says how to run.
 */
#include "errors.h"
#include "info.h"

#include <pmix.h>
#include <stdio.h>
#include <string.h>

#define PREFIX "mpi:"

/* "mpi:" + name as a PMIx key, or an error (already raised). */
static int make_key(const char *fn, const char *service, char key[PMIX_MAX_KEYLEN + 1],
                    int errclass)
{
    if (!service)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "service_name is NULL; pass a string");
    if (!*service)
        return rdmpi_err_comm(MPI_COMM_SELF, errclass, fn,
                              "service_name is empty; give the service a name");
    if (strlen(service) > PMIX_MAX_KEYLEN - strlen(PREFIX))
        return rdmpi_err_comm(MPI_COMM_SELF, errclass, fn,
                              "service_name is %zu characters long; at most %zu are allowed",
                              strlen(service), PMIX_MAX_KEYLEN - strlen(PREFIX));
    snprintf(key, PMIX_MAX_KEYLEN + 1, PREFIX "%s", service);
    return MPI_SUCCESS;
}

static int check_info(const char *fn, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO, fn,
                              "info is not a valid info object (MPI_INFO_NULL or one from "
                              "MPI_Info_create)");
    return MPI_SUCCESS;
}

/* The launcher cannot do it: say so, and how to run instead. */
static int unsupported(const char *fn, pmix_status_t st)
{
    if (rt.singleton)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                              "this process was started without a launcher, so there is no name "
                              "server; start it with rdmpi's mpirun (mpirun -n 1 ./prog)");
    return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                          "the launcher's PMIx server does not publish names (%s; Slurm's srun "
                          "--mpi=pmix does not); start the job with rdmpi's mpirun (inside an "
                          "allocation: mpirun -n N ./prog)",
                          PMIx_Error_string(st));
}

static int not_offered(pmix_status_t st)
{
    return st == PMIX_ERR_NOT_SUPPORTED || st == PMIX_ERR_NOT_IMPLEMENTED || st == PMIX_ERR_INIT ||
           st == PMIX_ERR_UNREACH;
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Publish_name";
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_persistence_t persist = PMIX_PERSIST_PROC;
    pmix_info_t pi[2];
    pmix_status_t st;
    int rc;

    RT_CHECK_INIT(fn);
    if ((rc = check_info(fn, info)) || (rc = make_key(fn, service_name, key, MPI_ERR_SERVICE)))
        return rc;
    if (!port_name || !*port_name || strlen(port_name) >= MPI_MAX_PORT_NAME)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "port_name is %s; pass the name MPI_Open_port gave",
                              !port_name    ? "NULL"
                              : !*port_name ? "empty"
                                            : "longer than MPI_MAX_PORT_NAME - 1");
    if (rt.singleton)
        return unsupported(fn, PMIX_ERR_INIT);
    PMIX_INFO_LOAD(&pi[0], key, port_name, PMIX_STRING);
    PMIX_INFO_LOAD(&pi[1], PMIX_PERSISTENCE, &persist, PMIX_PERSIST);
    st = PMIx_Publish(pi, 2);
    PMIX_INFO_DESTRUCT(&pi[0]);
    PMIX_INFO_DESTRUCT(&pi[1]);
    if (st == PMIX_SUCCESS)
        return MPI_SUCCESS;
    if (not_offered(st))
        return unsupported(fn, st);
    if (st == PMIX_ERR_DUPLICATE_KEY)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_SERVICE, fn,
                              "service '%s' is published already (by this or another process); "
                              "MPI_Unpublish_name it first, or choose another name",
                              service_name);
    return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OTHER, fn, "PMIx_Publish(%s) failed: %s",
                          service_name, PMIx_Error_string(st));
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Lookup_name";
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_pdata_t pd;
    pmix_status_t st;
    int rc;

    RT_CHECK_INIT(fn);
    if ((rc = check_info(fn, info)) || (rc = make_key(fn, service_name, key, MPI_ERR_NAME)))
        return rc;
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "port_name is NULL; pass a buffer of MPI_MAX_PORT_NAME characters");
    if (rt.singleton)
        return unsupported(fn, PMIX_ERR_INIT);
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    st = PMIx_Lookup(&pd, 1, NULL, 0);
    if (st == PMIX_SUCCESS && (pd.value.type != PMIX_STRING || !pd.value.data.string ||
                               strlen(pd.value.data.string) >= MPI_MAX_PORT_NAME))
        rc = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NAME, fn,
                            "service '%s' is published with something that is not a port name",
                            service_name);
    else if (st == PMIX_SUCCESS)
        snprintf(port_name, MPI_MAX_PORT_NAME, "%s", pd.value.data.string);
    else if (not_offered(st))
        rc = unsupported(fn, st);
    else if (st == PMIX_ERR_NOT_FOUND)
        rc = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NAME, fn,
                            "no service '%s' is published (MPI_Publish_name it first; names are "
                            "seen by the processes of one mpirun)",
                            service_name);
    else
        rc = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OTHER, fn, "PMIx_Lookup(%s) failed: %s",
                            service_name, PMIx_Error_string(st));
    PMIX_PDATA_DESTRUCT(&pd);
    return rc;
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Unpublish_name";
    char key[PMIX_MAX_KEYLEN + 1], *keys[2] = {key, NULL};
    char found[MPI_MAX_PORT_NAME];
    pmix_pdata_t pd;
    pmix_status_t st;
    int rc;

    RT_CHECK_INIT(fn);
    if ((rc = check_info(fn, info)) || (rc = make_key(fn, service_name, key, MPI_ERR_SERVICE)))
        return rc;
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "port_name is NULL; pass the port the name was published with");
    if (rt.singleton)
        return unsupported(fn, PMIX_ERR_INIT);
    /* PMIx unpublishes by key: the port must be the one published. */
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    st = PMIx_Lookup(&pd, 1, NULL, 0);
    found[0] = 0;
    if (st == PMIX_SUCCESS && pd.value.type == PMIX_STRING && pd.value.data.string)
        snprintf(found, sizeof(found), "%s", pd.value.data.string);
    PMIX_PDATA_DESTRUCT(&pd);
    if (not_offered(st))
        return unsupported(fn, st);
    if (st == PMIX_SUCCESS && strcmp(found, port_name))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "service '%s' is published with port '%s', not '%s'", service_name,
                              found, port_name);
    st = st == PMIX_SUCCESS ? PMIx_Unpublish(keys, NULL, 0) : st;
    if (st == PMIX_SUCCESS)
        return MPI_SUCCESS;
    if (not_offered(st))
        return unsupported(fn, st);
    if (st == PMIX_ERR_NOT_FOUND)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_SERVICE, fn,
                              "service '%s' is not published by this process (unpublished "
                              "already, or published by another)",
                              service_name);
    return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OTHER, fn, "PMIx_Unpublish(%s) failed: %s",
                          service_name, PMIx_Error_string(st));
}
