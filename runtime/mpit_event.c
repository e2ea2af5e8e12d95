/* MPI_T events and time sources. rdmpi defines no event types, so no
 * registration or instance can exist: calls naming one report an invalid
 * handle, and calls naming an event index an invalid index. The one source
 * is the monotonic clock events would be stamped with. */
#include "mpit.h"

#include <stdint.h>
#include <time.h>

#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num
int PMPI_T_event_get_num(int *num_events)
{
    MPIT_ENTER();

    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype *array_of_datatypes, MPI_Aint *array_of_displacements,
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    MPIT_ENTER();

    (void)event_index;
    (void)name;
    (void)name_len;
    (void)verbosity;
    (void)array_of_datatypes;
    (void)array_of_displacements;
    (void)num_elements;
    (void)enumtype;
    (void)info;
    (void)desc;
    (void)desc_len;
    (void)bind;
    return MPI_T_ERR_INVALID_INDEX;
}

#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index
int PMPI_T_event_get_index(const char *name, int *event_index)
{
    MPIT_ENTER();

    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    MPIT_ENTER();

    (void)event_index;
    (void)obj_handle;
    (void)info;
    (void)event_registration;
    return MPI_T_ERR_INVALID_INDEX;
}

/* Registrations: none can exist. */
#define NO_REGISTRATION()                                                                          \
    do {                                                                                           \
        MPIT_ENTER();                                                                              \
        return MPI_T_ERR_INVALID_HANDLE;                                                           \
    } while (0)

#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration;
    (void)user_data;
    (void)free_cb_function;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration;
    (void)info_used;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration;
    (void)info;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration;
    (void)cb_safety;
    (void)info;
    (void)user_data;
    (void)event_cb_function;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration;
    (void)cb_safety;
    (void)info_used;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration;
    (void)cb_safety;
    (void)info;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration;
    (void)dropped_cb_function;
    NO_REGISTRATION();
}

/* Instances exist only inside callbacks, of which there are none. */
#pragma weak MPI_T_event_copy = PMPI_T_event_copy
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance;
    (void)buffer;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_read = PMPI_T_event_read
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance;
    (void)element_index;
    (void)buffer;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance;
    (void)event_timestamp;
    NO_REGISTRATION();
}

#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance;
    (void)source_index;
    NO_REGISTRATION();
}

/* ---- the time source ---- */

#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num
int PMPI_T_source_get_num(int *num_sources)
{
    MPIT_ENTER();

    if (!num_sources)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    MPIT_ENTER();

    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    mpit_string(name, name_len, "rdmpi_clock_monotonic");
    mpit_string(desc, desc_len, "This process's CLOCK_MONOTONIC, in nanoseconds");
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    if (info)
        *info = MPI_INFO_NULL; /* no hints to report */
    return MPI_SUCCESS;
}

#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    MPIT_ENTER();
    struct timespec ts;

    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp)
        return MPI_T_ERR_INVALID;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return MPI_SUCCESS;
}
