/* MPI-IO over POSIX files (docs/io.md): every rank opens the file itself
 * and moves its own data with pread/pwrite through the view; collective
 * calls add only the agreement the standard asks for. The shared file
 * pointer lives in a small side file, updated under an fcntl lock, so it
 * works across hosts on any file system with POSIX locks. */
#ifndef IO_H
#define IO_H

#include "datatype.h"
#include "errors.h"
#include "file.h"

#include <stdint.h>

#define IO_NSCRATCH 5

struct io_file {
    struct rdmpi_file rt; /* handle and error handler: first */
    MPI_Comm comm;        /* private duplicate for the collective steps */
    int rank, size;
    int amode;
    int fd;
    int atomic;    /* MPI_File_set_atomicity */
    char *path;    /* as opened, with any "ufs:" prefix gone */
    MPI_Info info; /* hints given, MPI_INFO_NULL if none */

    /* The view: etype and filetype each hold a reference. */
    MPI_Offset disp;
    struct rdmpi_datatype *etype, *ftype;
    int flat;       /* filetype tiles into one run from disp */
    size_t run_len; /* mean bytes per block of the filetype */
    char datarep[MPI_MAX_DATAREP_STRING];
    int ext32;                    /* datarep "external32": data converted */
    const struct io_datarep *rep; /* a datarep of MPI_Register_datarep, or NULL */
    MPI_Offset pos;               /* individual file pointer, in etypes */

    /* Shared file pointer: a side file opened at first use. */
    char *shfp_path;
    int shfp_fd;

    /* Two-phase writes: whether some rank's view has short runs (agreed
     * in set_view), and buffers kept between calls. */
    int short_runs;
    struct io_scratch {
        void *p;
        size_t cap;
    } scratch[IO_NSCRATCH];

    /* A split collective between its _begin and _end. */
    const char *split; /* name of the _begin call, or NULL */
    MPI_Status split_status;
};

/* Validation for the API: the file, or NULL after raising MPI_ERR_FILE. */
struct io_file *io_file_check(MPI_File fh, const char *fn, int *err);

/* The MPI error class for an errno from a system call. */
int io_errclass(int e);

/* Adds the keys of `from` to *to (created if null): hints we do not act
 * on are kept, so MPI_File_get_info shows what the application asked.
 * Returns 0, or -1 if `from` is not an info object. */
int io_info_merge(MPI_Info *to, MPI_Info from);

/* View mapping (io_view.c). The file offset of byte pos of the view's data
 * stream, with *run the bytes from there that are contiguous in the file. */
MPI_Offset io_view_map(const struct io_file *f, MPI_Offset pos, size_t *run);
/* The run at stream byte pos joined with the runs after it that continue
 * it in the file, up to stream byte end: its file offset, *len its bytes. */
MPI_Offset io_view_run(const struct io_file *f, MPI_Offset pos, MPI_Offset end, size_t *len);
/* Bytes of the view's data stream that lie before file offset `end`. */
MPI_Offset io_view_bytes_before(const struct io_file *f, MPI_Offset end);
/* Whether the view's runs are short enough that collective writes
 * gather them (under 64 KiB on average). */
static inline int io_view_short(const struct io_file *f)
{
    return !f->flat && f->run_len < ((size_t)64 << 10);
}
/* Installs a view (types already checked); drops the old one. */
void io_view_set(struct io_file *f, MPI_Offset disp, struct rdmpi_datatype *etype,
                 struct rdmpi_datatype *ftype, const char *datarep);

/* Moves count elements of dt between buf and the view's data from stream
 * byte pos (io_access.c). *moved gets the bytes moved, short only when a
 * read meets the end of the file. Returns 0 or an errno. */
int io_transfer(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                struct rdmpi_datatype *dt, int write, size_t *moved);

/* io_transfer for an access of the API: under the atomic-mode lock, or
 * by two-phase I/O for collective writes that call for it. */
int io_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count, struct rdmpi_datatype *dt,
            int write, int coll, size_t *moved);

/* "external32" files (io_ext32.c): whether type dt can be converted
 * (each member the same size in memory and in external32), and io_move
 * through the conversion. */
int io_ext32_ok(const struct rdmpi_datatype *dt);
int io_ext32_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                  struct rdmpi_datatype *dt, int write, int coll, size_t *moved);

/* Data representations of MPI_Register_datarep (io_datarep.c): the one
 * named (or NULL), whether type dt keeps its extents in it, and io_move
 * through its conversion functions (*conv: MPI_ERR_CONVERSION if one
 * failed, else 0). */
struct io_datarep;
const struct io_datarep *io_datarep_find(const char *name);
int io_datarep_ok(const struct io_datarep *r, const struct rdmpi_datatype *dt);
int io_datarep_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                    struct rdmpi_datatype *dt, int write, int coll, size_t *moved, int *conv);

/* Collective writes whose ranks' runs interleave (io_coll.c): returns 1
 * having written the data (and set *moved, *err) by two-phase I/O, or 0
 * when every rank should write its own. Every rank of the file calls it
 * with the same outcome. */
int io_coll_write(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                  struct rdmpi_datatype *dt, size_t *moved, int *err);

/* Atomic mode: takes (lock) or drops the fcntl lock covering the file
 * bytes of an access of n stream bytes at pos; nothing in non-atomic mode. */
int io_atomic_lock(struct io_file *f, MPI_Offset pos, size_t n, int write, int lock);

/* Shared file pointer, in etypes (io_shared.c). Each returns 0 or an errno. */
int io_shfp_fetch_add(struct io_file *f, MPI_Offset add, MPI_Offset *old);
int io_shfp_set(struct io_file *f, MPI_Offset value);
/* Collective: each rank's start for `mine` etypes taken in rank order. */
int io_shfp_ordered(struct io_file *f, MPI_Offset mine, MPI_Offset *start);
/* Names the side file (collective, in MPI_File_open) and removes it. */
void io_shfp_name(struct io_file *f);
void io_shfp_remove(struct io_file *f);

#endif
