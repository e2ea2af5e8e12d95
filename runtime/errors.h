/* Raising MPI errors: every API function reports bad input through these,
 * which format the message, then run the object's error handler. */
#ifndef RT_ERRORS_H
#define RT_ERRORS_H

#include "log.h"
#include "mpi.h"
#include "rt.h"

/* The error handler object behind an MPI_Errhandler. */
enum rt_errh_kind { RT_ERRH_COMM, RT_ERRH_WIN, RT_ERRH_FILE, RT_ERRH_SESSION };
enum rt_errh_builtin { RT_ERRH_USER, RT_ERRH_FATAL, RT_ERRH_RETURN, RT_ERRH_ABORT };

struct rdmpi_errhandler {
    struct rt_obj obj;
    enum rt_errh_builtin builtin;
    enum rt_errh_kind kind; /* which object type a user handler serves */
    void (*fn)(void);       /* the user function, cast back by kind */
    int refs;               /* the handle plus each object using it */
};

struct rdmpi_errhandler *rt_errh_get(MPI_Errhandler h);
void rt_errh_retain(struct rdmpi_errhandler *e);
void rt_errh_release(struct rdmpi_errhandler *e);
/* The handle the user sees for e (a constant for the predefined ones). */
MPI_Errhandler rt_errh_handle(struct rdmpi_errhandler *e);
/* Runs handler e (NULL: fatal) for error `code` on *handle and returns the
 * code to hand back; func and msg are what a fatal handler prints. */
int rt_errh_run(struct rdmpi_errhandler *e, void *handle, int code, const char *func,
                const char *msg);
/* The handler of MPI_FILE_NULL, used for every file error. */
extern struct rdmpi_errhandler *rt_errh_file_default;

/* Each returns the error code to hand back to the user (after the handler
 * ran; a fatal handler does not return). `func` is the MPI function name. */
int rdmpi_err_comm(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
    RT_PRINTF(4, 5);
int rdmpi_err_win(MPI_Win win, int errclass, const char *func, const char *fmt, ...)
    RT_PRINTF(4, 5);
int rdmpi_err_file(MPI_File fh, int errclass, const char *func, const char *fmt, ...)
    RT_PRINTF(4, 5);
int rdmpi_err_session(MPI_Session s, int errclass, const char *func, const char *fmt, ...)
    RT_PRINTF(4, 5);
/* The handler to install on an object served by `kind`, or NULL with *why
 * set: predefined handlers serve every kind, user ones the kind they were
 * created for (errhandler.c). */
struct rdmpi_errhandler *rt_errh_usable(MPI_Errhandler h, enum rt_errh_kind kind, const char **why);
/* For calls that create the object they report on (MPI_Session_init,
 * MPI_Comm_create_from_group): runs the handler h they were given, with a
 * null handle, if it is valid for objects of `kind`; else MPI_COMM_SELF's. */
int rdmpi_err_errh(MPI_Errhandler h, enum rt_errh_kind kind, int errclass, const char *func,
                   const char *fmt, ...) RT_PRINTF(5, 6);

/* Runs the handler for an error already formatted (pml completions). */
int rt_err_raise_comm(MPI_Comm comm, int code, const char *func, const char *msg);

/* The class of a code, or -1 when the code is not one we know. */
int rt_err_class_of(int code);
const char *rt_err_class_name(int errclass);

/* Classes and codes added by the user (errcodes.c) take values above
 * MPI_ERR_LASTCODE; this is the highest handed out (MPI_LASTUSEDCODE). */
extern int rt_err_lastusedcode;
/* The class of a live user code or class, else -1. */
int rt_err_user_class(int code);
/* Its MPI_Add_error_string text ("" if none), or NULL if not a user code. */
const char *rt_err_user_string(int code);

/* Calls while neither MPI_Init nor a session has the layers up are fatal,
 * as the standard leaves them undefined; this names the function. Only a
 * handful of functions may be called then (MPI_Initialized, ...). */
#define RT_CHECK_INIT(func)                                                                        \
    do {                                                                                           \
        if (RT_UNLIKELY(!rt.up))                                                                   \
            rt_not_initialized(func);                                                              \
    } while (0)
_Noreturn void rt_not_initialized(const char *func);

#endif
