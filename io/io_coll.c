/* Two-phase collective writes (ROMIO's collective buffering): when the
 * ranks' data interleave in short runs, writing them independently costs
 * one system call per run. Instead the file range the call covers is cut
 * into one domain per rank; in rounds of at most IO_CB bytes per domain,
 * every rank sends the runs falling in each domain to its owner, which
 * lays them side by side and writes the joined ranges. Ranks agree on
 * whether to do this from one allgather of their ranges. */
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_CB ((MPI_Offset)4 << 20)    /* bytes a domain owner writes per round */
#define IO_SHORT_RUN ((size_t)64 << 10) /* runs below this are worth gathering */
#define IO_ALIGN 4096

struct span {
    MPI_Offset off, len;
};

static int by_off(const void *a, const void *b)
{
    const struct span *x = a, *y = b;

    return (x->off > y->off) - (x->off < y->off);
}

/* Whether the ranks' ranges interleave, and the bounds of their union. */
static int plan(struct io_file *f, MPI_Offset pos, size_t n, MPI_Offset *lo, MPI_Offset *hi)
{
    MPI_Offset mine[4] = { INT64_MAX, 0, (MPI_Offset)n, 0 }, total = 0;
    struct span *r = malloc((size_t)f->size * sizeof(*r));
    MPI_Offset *all = malloc(4 * (size_t)f->size * sizeof(*all));
    int shorts = 0, crossed = 0, k = 0;
    size_t len;

    if (!r || !all)
        rt_fatal("out of memory planning a collective write on %d ranks", f->size);
    if (n) {
        mine[0] = io_view_run(f, pos, pos + 1, &len);
        mine[1] = io_view_map(f, pos + (MPI_Offset)n - 1, &len) + 1;
        mine[3] = !f->flat && f->run_len < IO_SHORT_RUN;
    }
    PMPI_Allgather(mine, 4, MPI_OFFSET, all, 4, MPI_OFFSET, f->comm);
    *lo = INT64_MAX;
    *hi = 0;
    for (int i = 0; i < f->size; i++) {
        if (!all[4 * i + 2])
            continue;
        r[k].off = all[4 * i];
        r[k++].len = all[4 * i + 1] - all[4 * i];
        *lo = all[4 * i] < *lo ? all[4 * i] : *lo;
        *hi = all[4 * i + 1] > *hi ? all[4 * i + 1] : *hi;
        total += all[4 * i + 2];
        shorts |= (int)all[4 * i + 3];
    }
    qsort(r, (size_t)k, sizeof(*r), by_off);
    for (int i = 1; i < k; i++)
        crossed |= r[i].off < r[i - 1].off + r[i - 1].len;
    free(r);
    free(all);
    /* Sparse data would make the rounds walk mostly empty file. */
    return shorts && crossed && total * 4 >= *hi - *lo;
}

/* The stream bytes of [pos, end) whose file offsets lie before `at`. */
static MPI_Offset stream_at(struct io_file *f, MPI_Offset at, MPI_Offset pos, MPI_Offset end)
{
    MPI_Offset s = io_view_bytes_before(f, at);

    return s < pos ? pos : s > end ? end : s;
}

/* Runs of stream bytes [s, e) into d (NULL: count only); returns how many. */
static int list_runs(struct io_file *f, MPI_Offset s, MPI_Offset e, MPI_Offset *d)
{
    int nr = 0;

    while (s < e) {
        size_t len;
        MPI_Offset off = io_view_run(f, s, e, &len);

        if (d) {
            d[2 * nr] = off;
            d[2 * nr + 1] = (MPI_Offset)len;
        }
        nr++;
        s += (MPI_Offset)len;
    }
    return nr;
}

/* The owner's half of a round: place the runs received in its window,
 * then write the joined ranges. Returns 0 or an errno. */
static int write_window(struct io_file *f, char *win, MPI_Offset ws, const MPI_Offset *d,
                        int nd, const char *data)
{
    struct span *sp = malloc((size_t)(nd ? nd : 1) * sizeof(*sp));
    int k = 0, err = 0;

    if (!sp)
        return ENOMEM;
    for (int i = 0; i < nd; i++) {
        memcpy(win + (d[2 * i] - ws), data, (size_t)d[2 * i + 1]);
        data += d[2 * i + 1];
        sp[i].off = d[2 * i];
        sp[i].len = d[2 * i + 1];
    }
    qsort(sp, (size_t)nd, sizeof(*sp), by_off);
    for (int i = 0; i < nd; i++) {
        MPI_Offset end = sp[i].off + sp[i].len;

        if (k && sp[i].off <= sp[k - 1].off + sp[k - 1].len) {
            if (end > sp[k - 1].off + sp[k - 1].len)
                sp[k - 1].len = end - sp[k - 1].off;
        } else {
            sp[k++] = sp[i];
        }
    }
    for (int i = 0; i < k && !err; i++) {
        size_t done = 0, len = (size_t)sp[i].len;

        while (done < len) {
            ssize_t w = pwrite(f->fd, win + (sp[i].off - ws) + done, len - done,
                               sp[i].off + (MPI_Offset)done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                err = errno;
                break;
            }
            done += (size_t)w;
        }
    }
    free(sp);
    return err;
}

int io_coll_write(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                  struct rdmpi_datatype *dt, size_t *moved, int *err)
{
    MPI_Offset lo, hi, dom, end = pos + (MPI_Offset)(count * dt->size), *s;
    int P = f->size, rounds, e = 0;
    /* Per peer: runs and bytes to send (pairs), the same received, then
     * counts and displacements of the descriptor and data exchanges. */
    int *cnt, *rcnt, *dcnt, *rdcnt, *bcnt, *rbcnt, *ddisp, *rddisp, *bdisp, *rbdisp;
    char *win;

    if (P == 1 || f->atomic || !plan(f, pos, count * dt->size, &lo, &hi))
        return 0;
    dom = ((hi - lo + P - 1) / P + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
    rounds = (int)((dom + IO_CB - 1) / IO_CB);
    cnt = malloc(12 * (size_t)P * sizeof(int));
    s = malloc((size_t)P * sizeof(*s));
    win = malloc((size_t)(dom < IO_CB ? dom : IO_CB));
    if (!cnt || !s || !win)
        rt_fatal("out of memory for a collective write on %d ranks", P);
    rcnt = cnt + 2 * P;
    dcnt = cnt + 4 * P;
    rdcnt = dcnt + P;
    bcnt = dcnt + 2 * P;
    rbcnt = dcnt + 3 * P;
    ddisp = dcnt + 4 * P;
    rddisp = dcnt + 5 * P;
    bdisp = dcnt + 6 * P;
    rbdisp = dcnt + 7 * P;

    for (int r = 0; r < rounds; r++) {
        int nsd = 0, nrd = 0, sbytes = 0, rbytes = 0;
        MPI_Offset *sd, *rd;
        char *sdata, *rdata;

        /* Owner a writes [lo + a*dom + r*CB, + CB) of its domain this
         * round; my data for it is stream bytes [s[a], s[a] + bcnt[a]). */
        for (int a = 0; a < P; a++) {
            MPI_Offset ws = lo + a * dom + r * IO_CB, we = ws + IO_CB, dend = lo + (a + 1) * dom;

            we = we < dend ? we : dend;
            we = we < hi ? we : hi;
            s[a] = ws < we ? stream_at(f, ws, pos, end) : pos;
            bcnt[a] = ws < we ? (int)(stream_at(f, we, pos, end) - s[a]) : 0;
            cnt[2 * a] = list_runs(f, s[a], s[a] + bcnt[a], NULL);
            cnt[2 * a + 1] = bcnt[a];
        }
        PMPI_Alltoall(cnt, 2, MPI_INT, rcnt, 2, MPI_INT, f->comm);
        for (int a = 0; a < P; a++) {
            dcnt[a] = 2 * cnt[2 * a];
            rdcnt[a] = 2 * rcnt[2 * a];
            rbcnt[a] = rcnt[2 * a + 1];
            ddisp[a] = nsd;
            rddisp[a] = nrd;
            bdisp[a] = sbytes;
            rbdisp[a] = rbytes;
            nsd += dcnt[a];
            nrd += rdcnt[a];
            sbytes += bcnt[a];
            rbytes += rbcnt[a];
        }
        sd = malloc((size_t)(nsd + nrd + 1) * sizeof(*sd));
        sdata = malloc((size_t)sbytes + (size_t)rbytes + 1);
        if (!sd || !sdata)
            rt_fatal("out of memory for a collective write round");
        rd = sd + nsd;
        rdata = sdata + sbytes;
        for (int a = 0; a < P; a++) {
            list_runs(f, s[a], s[a] + bcnt[a], sd + ddisp[a]);
            rt_dt_pack(dt, buf, count, (size_t)(s[a] - pos), sdata + bdisp[a], (size_t)bcnt[a]);
        }
        PMPI_Alltoallv(sd, dcnt, ddisp, MPI_OFFSET, rd, rdcnt, rddisp, MPI_OFFSET, f->comm);
        PMPI_Alltoallv(sdata, bcnt, bdisp, MPI_BYTE, rdata, rbcnt, rbdisp, MPI_BYTE, f->comm);
        if (nrd && !e)
            e = write_window(f, win, lo + f->rank * dom + r * IO_CB, rd, nrd / 2, rdata);
        free(sd);
        free(sdata);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, f->comm);
    free(cnt);
    free(s);
    free(win);
    *err = e;
    *moved = e ? 0 : count * dt->size;
    return 1;
}
