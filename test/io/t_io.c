/* MPI-IO: explicit offsets, individual and shared file pointers (blocking,
 * non-blocking, collective, split collective, ordered), interleaved views
 * built from vectors, strided memory larger than the staging buffer,
 * end-of-file reads, seeks, sizes, atomic mode, append and sequential
 * modes, hints, handles, and the error classes of bad calls. Each run
 * works in a fresh directory and checks that nothing is left in it. */
#include "../p2p/mpitest.h"

#include <dirent.h>
#include <unistd.h>

#define B 16 /* ints per rank per block of the interleaved view */

static char dir[256], path[300];

static void make_dir(void)
{
    if (mt_rank == 0) {
        const char *tmp = getenv("TMPDIR");

        snprintf(dir, sizeof(dir), "%s/rdmpi-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            dir[0] = 0;
    }
    MPI_Bcast(dir, sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0]) {
        fprintf(stderr, "cannot make a directory for the test files\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    snprintf(path, sizeof(path), "%s/data", dir);
}

/* Entries left in the directory (side files included). */
static int leftovers(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static MPI_File open_new(int extra)
{
    MPI_File fh;
    int err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | extra,
                            MPI_INFO_NULL, &fh);

    CHECK_MPI(err, "MPI_File_open: %d", err);
    return fh;
}

static void explicit_offsets(void)
{
    MPI_File fh = open_new(MPI_MODE_DELETE_ON_CLOSE);
    int mine[B], got[B], bad = 0, count;
    MPI_Offset size;
    MPI_Status st;

    for (int i = 0; i < B; i++)
        mine[i] = mt_rank * 1000 + i;
    MPI_File_write_at(fh, (MPI_Offset)mt_rank * sizeof(mine), mine, B, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, B, "write_at count %d", count);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int peer = (mt_rank + 1) % mt_size;
    MPI_File_read_at_all(fh, (MPI_Offset)peer * sizeof(got), got, B, MPI_INT, &st);
    for (int i = 0; i < B; i++)
        bad += got[i] != peer * 1000 + i;
    CHECK_TRUE(!bad, "read_at_all of rank %d's block: %d wrong", peer, bad);
    MPI_File_get_size(fh, &size);
    CHECK_EQ_LONG(size, (MPI_Offset)(mt_size * sizeof(mine)), "size %lld", (long long)size);

    /* Reading across the end of the file stops there. */
    MPI_File_read_at(fh, size - 2 * sizeof(int), got, B, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, 2, "read across EOF got %d ints, not 2", count);
    MPI_File_read_at(fh, size + 100, got, B, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, 0, "read past EOF got %d ints", count);

    /* Non-blocking and large-count forms. */
    MPI_Request rq;
    MPI_File_iread_at(fh, 0, got, B, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("iread_at: count %d, last %d", count, got[B - 1]) {
        CHECK_EQ_INT(count, B);
        CHECK_EQ_INT(got[B - 1], B - 1);
    }
    MPI_Count cc;
    MPI_File_read_at_c(fh, 0, got, (MPI_Count)B, MPI_INT, &st);
    MPI_Get_count_c(&st, MPI_INT, &cc);
    CHECK_EQ_LONG(cc, B, "read_at_c count %lld", (long long)cc);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_iwrite_at_all(fh, (MPI_Offset)mt_rank * sizeof(mine), got, B, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    CHECK_EQ_PTR(fh, MPI_FILE_NULL, "close sets the handle to MPI_FILE_NULL");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(leftovers(), 0, "MPI_MODE_DELETE_ON_CLOSE left %d files", leftovers());
}

/* Rank r sees blocks r, r+size, ... of B ints: together the ranks write
 * the whole file with one collective call through the individual pointer. */
static void interleaved_view(void)
{
    MPI_File fh = open_new(0);
    int n = 4 * B, *mine = malloc(n * sizeof(int)), *all, bad = 0;
    MPI_Datatype ftype, tiled, et, ft;
    MPI_Offset pos, byte, disp;
    char rep[MPI_MAX_DATAREP_STRING];

    MPI_Type_vector(1, B, B * mt_size, MPI_INT, &ftype);
    MPI_Type_create_resized(ftype, 0, (MPI_Aint)(B * mt_size * sizeof(int)), &tiled);
    MPI_Type_commit(&tiled);
    MPI_File_set_view(fh, (MPI_Offset)(mt_rank * B * sizeof(int)), MPI_INT, tiled, "native",
                      MPI_INFO_NULL);
    for (int i = 0; i < n; i++)
        mine[i] = mt_rank * 100000 + i;
    MPI_File_write_all(fh, mine, n, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_get_position(fh, &pos);
    CHECK_EQ_LONG(pos, n, "position after write_all: %lld", (long long)pos);
    MPI_File_get_byte_offset(fh, B + 1, &byte);
    CHECK_EQ_LONG(byte, (MPI_Offset)(((mt_size + mt_rank) * B + 1) * sizeof(int)),
                  "byte offset of etype %d: %lld", B + 1, (long long)byte);
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK_ALL ("get_view: disp %lld, datarep %s", (long long)disp, rep) {
        CHECK_EQ_LONG(disp, (MPI_Offset)(mt_rank * B * sizeof(int)));
        CHECK_EQ_PTR(et, MPI_INT);
        CHECK_EQ_STR(rep, "native");
    }
    MPI_Type_free(&ft);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    /* Seek back through the view and read our own data in two pieces. */
    int back[4 * B];
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_read(fh, back, B + 3, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 0, MPI_SEEK_CUR);
    MPI_File_read(fh, back + B + 3, n - B - 3, MPI_INT, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        bad += back[i] != mine[i];
    CHECK_TRUE(!bad, "read back through the view: %d wrong", bad);
    MPI_File_seek(fh, -1, MPI_SEEK_END);
    MPI_File_get_position(fh, &pos);
    CHECK_EQ_LONG(pos, n - 1, "SEEK_END -1 gave %lld, not %d", (long long)pos, n - 1);

    /* The whole file through the default view on every rank. */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    all = malloc((size_t)n * mt_size * sizeof(int));
    MPI_File_read_all(fh, all, n * mt_size, MPI_INT, MPI_STATUS_IGNORE);
    bad = 0;
    for (int i = 0; i < n * mt_size; i++) {
        int blk = i / B, r = blk % mt_size, k = blk / mt_size * B + i % B;
        bad += all[i] != r * 100000 + k;
    }
    CHECK_TRUE(!bad, "interleaved file: %d ints wrong", bad);
    MPI_Type_free(&ftype);
    MPI_Type_free(&tiled);
    free(mine);
    free(all);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A collective write of 100-byte runs interleaved between the ranks with
 * 28-byte holes, 5 MiB per rank from strided memory (two-phase I/O over
 * several rounds), while rank 1 writes nothing; read back independently. */
static void collective_interleaved(void)
{
    MPI_File fh = open_new(MPI_MODE_DELETE_ON_CLOSE);
    int run = 100, gap = 28, n = 5 << 20, stride = run * mt_size + gap;
    int mine = mt_size > 1 && mt_rank == 1 ? 0 : n / run;
    char *mem = malloc(2 * (size_t)n), *file;
    MPI_Datatype runt, tiled, halves;
    MPI_Offset size, span = (MPI_Offset)(n / run) * stride;
    size_t bad = 0;

    for (size_t i = 0; i < 2 * (size_t)n; i++)
        mem[i] = (char)(i / 2 * 7 + (size_t)mt_rank * 3 + 1);
    MPI_Type_contiguous(run, MPI_CHAR, &runt);
    MPI_Type_create_resized(runt, 0, stride, &tiled);
    MPI_Type_commit(&tiled);
    MPI_Type_vector(n, 1, 2, MPI_CHAR, &halves); /* every other byte */
    MPI_Type_commit(&halves);
    MPI_File_set_size(fh, 0);
    MPI_File_set_view(fh, (MPI_Offset)mt_rank * run, MPI_CHAR, tiled, "native", MPI_INFO_NULL);
    MPI_File_write_at_all(fh, 0, mem, mine ? 1 : 0, halves, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_get_size(fh, &size);
    file = calloc(1, (size_t)span);
    MPI_File_read_at(fh, 0, file, (int)span, MPI_CHAR, MPI_STATUS_IGNORE);
    for (MPI_Offset i = 0; i < span; i++) {
        MPI_Offset blk = i / stride, in = i % stride;
        int r = (int)(in / run);
        char want = 0;

        if (r < mt_size && !(mt_size > 1 && r == 1))
            want = (char)((size_t)(blk * run + in % run) * 7 + (size_t)r * 3 + 1);
        bad += file[i] != want;
    }
    CHECK_TRUE(!bad, "two-phase write: %zu bytes wrong of %lld (file %lld bytes)", bad,
               (long long)span, (long long)size);
    MPI_Type_free(&runt);
    MPI_Type_free(&tiled);
    MPI_Type_free(&halves);
    free(mem);
    free(file);
    MPI_File_close(&fh);
}

/* Every other int of a 6 MiB memory region: more than the staging buffer. */
static void strided_memory(void)
{
    MPI_File fh = open_new(MPI_MODE_DELETE_ON_CLOSE);
    int n = 768 * 1024, *mem = malloc(2 * (size_t)n * sizeof(int)), *back;
    MPI_Datatype every_other;
    size_t bad = 0;

    back = calloc(2 * (size_t)n, sizeof(int));
    for (int i = 0; i < 2 * n; i++)
        mem[i] = i * 3 + mt_rank;
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_File_write_at(fh, (MPI_Offset)mt_rank * n * sizeof(int), mem, 1, every_other,
                      MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, (MPI_Offset)mt_rank * n * sizeof(int), back, n, MPI_INT,
                     MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        bad += back[i] != mem[2 * i];
    CHECK_TRUE(!bad, "strided write: %zu ints wrong", bad);
    memset(back, 0, 2 * (size_t)n * sizeof(int));
    MPI_File_read_at(fh, (MPI_Offset)mt_rank * n * sizeof(int), back, 1, every_other,
                     MPI_STATUS_IGNORE);
    for (int i = 0; i < 2 * n; i++)
        bad += back[i] != (i & 1 ? 0 : mem[i]);
    CHECK_TRUE(!bad, "strided read: %zu ints wrong", bad);
    MPI_Type_free(&every_other);
    free(mem);
    free(back);
    MPI_File_close(&fh);
}

static void shared_pointer(void)
{
    MPI_File fh = open_new(MPI_MODE_DELETE_ON_CLOSE);
    int rec[4], *all = malloc(4 * sizeof(int) * (size_t)mt_size * 3), seen = 0, bad = 0;
    MPI_Offset pos;

    for (int i = 0; i < 4; i++)
        rec[i] = mt_rank;
    MPI_File_write_shared(fh, rec, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    CHECK_EQ_LONG(pos, 16 * mt_size, "shared pointer after write_shared: %lld", (long long)pos);
    /* In rank order, after the unordered records. */
    for (int i = 0; i < 4; i++)
        rec[i] = 100 + mt_rank;
    MPI_File_write_ordered(fh, rec, 4, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Request rq;
    MPI_File_iwrite_shared(fh, rec, 0, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at(fh, 0, all, 8 * mt_size, MPI_INT, MPI_STATUS_IGNORE);
    for (int i = 0; i < mt_size; i++) {
        for (int k = 1; k < 4; k++)
            bad += all[4 * i + k] != all[4 * i];
        seen |= 1 << all[4 * i];
        for (int k = 0; k < 4; k++)
            bad += all[4 * (mt_size + i) + k] != 100 + i;
    }
    CHECK_ALL ("shared records: %d wrong, seen 0x%x", bad, seen) {
        CHECK_TRUE(!bad);
        CHECK_EQ_INT(seen, (1 << mt_size) - 1);
    }
    /* Read the ordered part back in order. */
    MPI_File_seek_shared(fh, 16 * mt_size, MPI_SEEK_SET);
    MPI_File_read_ordered(fh, rec, 4, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_ALL ("read_ordered got %d", rec[0]) {
        CHECK_EQ_INT(rec[0], 100 + mt_rank);
        CHECK_EQ_INT(rec[3], 100 + mt_rank);
    }
    MPI_File_get_position_shared(fh, &pos);
    CHECK_EQ_LONG(pos, 32 * mt_size, "shared pointer at EOF: %lld", (long long)pos);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_END);
    MPI_File_get_position_shared(fh, &pos);
    CHECK_EQ_LONG(pos, 32 * mt_size, "seek_shared to END: %lld", (long long)pos);
    /* Split collectives. */
    MPI_Status st;
    int count;
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered_begin(fh, rec, 4, MPI_INT);
    MPI_File_read_ordered_end(fh, rec, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("read_ordered_begin/end: %d ints", count) {
        CHECK_EQ_INT(count, 4);
        CHECK_EQ_INT(rec[0], all[4 * mt_rank]);
    }
    MPI_File_write_at_all_begin(fh, (MPI_Offset)(64 * mt_size + 4 * mt_rank), &mt_rank, 1, MPI_INT);
    MPI_File_write_at_all_end(fh, &mt_rank, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, 1, "write_at_all_end count %d", count);
    free(all);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(leftovers(), 0, "%d files left after closing (side file?)", leftovers());
}

static int class_of(int err)
{
    int cls;

    MPI_Error_class(err, &cls);
    return cls;
}

static void modes_and_sizes(void)
{
    MPI_File fh = open_new(0);
    MPI_Offset size, pos;
    int amode, flag, r, nkeys;
    MPI_Group g, wg;
    MPI_Info info, used;

    MPI_File_set_size(fh, 1000);
    MPI_File_get_size(fh, &size);
    CHECK_EQ_LONG(size, 1000, "set_size 1000: %lld", (long long)size);
    MPI_File_preallocate(fh, 500);
    MPI_File_get_size(fh, &size);
    CHECK_EQ_LONG(size, 1000, "preallocate smaller changed the size: %lld", (long long)size);
    MPI_File_preallocate(fh, 4096);
    MPI_File_get_size(fh, &size);
    CHECK_EQ_LONG(size, 4096, "preallocate 4096: %lld", (long long)size);
    MPI_File_get_amode(fh, &amode);
    CHECK_EQ_INT(amode, (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode 0x%x", amode);
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    CHECK_EQ_INT(flag, 1, "atomicity %d", flag);
    MPI_File_write_at(fh, 8 * mt_rank, &mt_rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_set_atomicity(fh, 0);
    MPI_File_get_group(fh, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &r);
    CHECK_EQ_INT(r, MPI_IDENT, "file group is not COMM_WORLD's: %d", r);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once");
    MPI_File_set_info(fh, info);
    MPI_File_get_info(fh, &used);
    MPI_Info_get_nkeys(used, &nkeys);
    CHECK_EQ_INT(nkeys, 1, "get_info keys %d", nkeys);
    MPI_Info_free(&info);
    MPI_Info_free(&used);
    MPI_Fint fi = MPI_File_c2f(fh);
    CHECK_EQ_PTR(MPI_File_f2c(fi), fh, "c2f/f2c round trip");
    MPI_File_close(&fh);

    /* Append: both pointers start at the end. */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh);
    MPI_File_get_position(fh, &pos);
    CHECK_EQ_LONG(pos, 4096, "append: individual pointer %lld", (long long)pos);
    MPI_File_get_position_shared(fh, &pos);
    CHECK_EQ_LONG(pos, 4096, "append: shared pointer %lld", (long long)pos);
    MPI_File_close(&fh);

    /* Sequential: shared pointer calls only. */
    MPI_File_open(MPI_COMM_WORLD, path,
                  MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                  &fh);
    int err = MPI_File_write_at(fh, 0, &r, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(class_of(err), MPI_ERR_UNSUPPORTED_OPERATION,
                 "write_at on a sequential file: class %d", class_of(err));
    err = MPI_File_write_ordered(fh, &mt_rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_MPI(err, "write_ordered on a sequential file: %d", err);
    /* A view from where the shared pointer stands; -1 is no displacement. */
    err = MPI_File_set_view(fh, -1, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    CHECK_EQ_INT(class_of(err), MPI_ERR_ARG, "disp -1: class %d", class_of(err));
    MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK_EQ_LONG(disp, (MPI_Offset)(mt_size * sizeof(int)),
                  "MPI_DISPLACEMENT_CURRENT gave disp %lld", (long long)disp);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(leftovers(), 0, "%d files left", leftovers());
}

/* A user data representation: ints stored XORed with a mask. */
static int xor_conv(void *user, MPI_Datatype type, int count, void *file, MPI_Offset position,
                    void *extra)
{
    int *u = (int *)user + position, *fl = file, mask = *(int *)extra;

    (void)type;
    for (int i = 0; i < count; i++)
        fl[i] = u[i] ^ mask;
    return MPI_SUCCESS;
}

static int xor_read(void *user, MPI_Datatype type, int count, void *file, MPI_Offset position,
                    void *extra)
{
    int *u = (int *)user + position, *fl = file, mask = *(int *)extra;

    (void)type;
    for (int i = 0; i < count; i++)
        u[i] = fl[i] ^ mask;
    return MPI_SUCCESS;
}

static int xor_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    MPI_Aint lb;

    (void)extra;
    return MPI_Type_get_extent(type, &lb, extent);
}

static int handler_calls;
static MPI_File handler_file;

static void on_file_error(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    (void)code;
}

static void errors(void)
{
    MPI_File fh, bad = (MPI_File)&handler_calls;
    MPI_Errhandler eh, got;
    char rd[300];
    int x = 0, err;

    snprintf(rd, sizeof(rd), "%s/absent", dir);
    /* Files report through MPI_ERRORS_RETURN unless told otherwise. */
    err = MPI_File_open(MPI_COMM_WORLD, rd, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_EQ_INT(class_of(err), MPI_ERR_NO_SUCH_FILE, "open of a missing file: class %d",
                 class_of(err));
    err = MPI_File_open(MPI_COMM_WORLD, rd, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK_EQ_INT(class_of(err), MPI_ERR_AMODE, "two access modes: class %d", class_of(err));
    err = MPI_File_open(MPI_COMM_WORLD, rd, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK_EQ_INT(class_of(err), MPI_ERR_AMODE, "RDONLY|CREATE: class %d", class_of(err));
    err = MPI_File_delete(rd, MPI_INFO_NULL);
    CHECK_EQ_INT(class_of(err), MPI_ERR_NO_SUCH_FILE, "delete missing: class %d", class_of(err));
    err = MPI_File_read(bad, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(class_of(err), MPI_ERR_FILE, "read on a bogus handle: class %d", class_of(err));
    err = MPI_File_close(&(MPI_File){MPI_FILE_NULL});
    CHECK_EQ_INT(class_of(err), MPI_ERR_FILE, "close of MPI_FILE_NULL: class %d", class_of(err));

    fh = open_new(0);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &(MPI_File){0});
    CHECK_EQ_INT(class_of(err), MPI_ERR_FILE_EXISTS, "EXCL on an existing file: class %d",
                 class_of(err));
    /* external32: big-endian in the file, native again when read back. */
    int vals[2] = {0x01020304, -2}, back[2] = {0, 0};
    unsigned char raw[8];
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Datatype et, ft;
    MPI_Offset disp;
    err = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL);
    CHECK_MPI(err, "external32 view of MPI_INT: %d", err);
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK_EQ_STR(rep, "external32", "get_view datarep %s", rep);
    if (mt_rank == 0)
        MPI_File_write_at(fh, 0, vals, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, 0, back, 2, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_ALL ("external32 read back %x %d", back[0], back[1]) {
        CHECK_EQ_INT(back[0], vals[0]);
        CHECK_EQ_INT(back[1], vals[1]);
    }
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, raw, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK_ALL ("external32 bytes %02x%02x%02x%02x %02x..%02x", raw[0], raw[1], raw[2], raw[3],
               raw[4], raw[7]) {
        CHECK_EQ_INT(raw[0], 1);
        CHECK_EQ_INT(raw[3], 4);
        CHECK_EQ_INT(raw[4], 0xff);
        CHECK_EQ_INT(raw[7], 0xfe);
    }
    err = MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL);
    CHECK_EQ_INT(class_of(err), MPI_ERR_UNSUPPORTED_DATAREP,
                 "external32 of MPI_LONG (4 bytes there, 8 here): class %d", class_of(err));
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    /* A registered representation converts both ways. */
    static int mask = 0x5a5a5a5a;
    err = MPI_Register_datarep("rdmpi-xor", xor_read, xor_conv, xor_extent, &mask);
    CHECK_MPI(err, "MPI_Register_datarep: %d", err);
    err = MPI_Register_datarep("rdmpi-xor", xor_read, xor_conv, xor_extent, &mask);
    CHECK_EQ_INT(class_of(err), MPI_ERR_DUP_DATAREP, "registered twice: class %d", class_of(err));
    err = MPI_Register_datarep("native", xor_read, xor_conv, xor_extent, &mask);
    CHECK_EQ_INT(class_of(err), MPI_ERR_DUP_DATAREP, "registering native: class %d", class_of(err));
    MPI_Barrier(MPI_COMM_WORLD);
    err = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "rdmpi-xor", MPI_INFO_NULL);
    CHECK_MPI(err, "view in a registered datarep: %d", err);
    back[0] = back[1] = 0;
    if (mt_rank == 0)
        MPI_File_write_at(fh, 0, vals, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, 0, back, 2, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_ALL ("registered datarep read back %x %d", back[0], back[1]) {
        CHECK_EQ_INT(back[0], vals[0]);
        CHECK_EQ_INT(back[1], vals[1]);
    }
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, back, 2, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_ALL ("registered datarep in the file: %x %x", back[0], back[1]) {
        CHECK_EQ_INT(back[0], (vals[0] ^ mask));
        CHECK_EQ_INT(back[1], (vals[1] ^ mask));
    }
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_Datatype backwards;
    int bl[2] = {1, 1}, dp[2] = {4, 0};
    MPI_Type_indexed(2, bl, dp, MPI_INT, &backwards);
    MPI_Type_commit(&backwards);
    err = MPI_File_set_view(fh, 0, MPI_INT, backwards, "native", MPI_INFO_NULL);
    CHECK_EQ_INT(class_of(err), MPI_ERR_IO, "decreasing filetype: class %d", class_of(err));
    MPI_Type_free(&backwards);
    err = MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL);
    CHECK_EQ_INT(class_of(err), MPI_ERR_IO, "filetype not of etype: class %d", class_of(err));
    err = MPI_File_read_at(fh, -1, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(class_of(err), MPI_ERR_ARG, "negative offset: class %d", class_of(err));
    err = MPI_File_read_all_end(fh, &x, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(class_of(err), MPI_ERR_OTHER, "_end without _begin: class %d", class_of(err));
    err = MPI_File_seek(fh, 0, 99);
    CHECK_EQ_INT(class_of(err), MPI_ERR_ARG, "bad whence: class %d", class_of(err));

    /* A user handler on the file sees the file; MPI_FILE_NULL's handler is
     * what new files start with. */
    MPI_File_create_errhandler(on_file_error, &eh);
    MPI_File_set_errhandler(fh, eh);
    MPI_File_read_at(fh, -1, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_ALL ("file handler: %d calls", handler_calls) {
        CHECK_EQ_INT(handler_calls, 1);
        CHECK_EQ_PTR(handler_file, fh);
    }
    MPI_File_get_errhandler(fh, &got);
    CHECK_EQ_PTR(got, eh, "get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_File_close(&fh);

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                  &fh);
    err = MPI_File_write(fh, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(class_of(err), MPI_ERR_READ_ONLY, "write on RDONLY: class %d", class_of(err));
    /* Overlapping filetypes may only read; a lower bound above 0 is fine. */
    MPI_Datatype twice, high;
    int tb[2] = {2, 1}, td[2] = {0, 1};
    MPI_Aint hd = 16;
    MPI_Type_indexed(2, tb, td, MPI_INT, &twice);
    MPI_Type_commit(&twice);
    err = MPI_File_set_view(fh, 0, MPI_INT, twice, "native", MPI_INFO_NULL);
    CHECK_MPI(err, "overlapping filetype on a read-only file: %d", err);
    MPI_Type_create_hindexed_block(1, 4, &hd, MPI_BYTE, &high);
    MPI_Type_commit(&high);
    err = MPI_File_set_view(fh, 0, MPI_BYTE, high, "native", MPI_INFO_NULL);
    CHECK_MPI(err, "filetype with lower bound 16: %d", err);
    MPI_Offset off;
    MPI_File_get_byte_offset(fh, 5, &off);
    CHECK_EQ_LONG(off, 4 + 16 + 1, "byte offset 5 of a 4-byte run at 16 with extent 4: %lld",
                  (long long)off);
    MPI_Type_free(&twice);
    MPI_Type_free(&high);
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ALL ("open after delete-on-close ran MPI_FILE_NULL's handler: %d calls", handler_calls) {
        CHECK_EQ_INT(handler_calls, 2);
        CHECK_EQ_PTR(handler_file, MPI_FILE_NULL);
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(leftovers(), 0, "%d files left", leftovers());
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    make_dir();
    explicit_offsets();
    interleaved_view();
    strided_memory();
    collective_interleaved();
    shared_pointer();
    modes_and_sizes();
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0)
        rmdir(dir);
    return mt_finish("t_io");
}
