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

#define IO_CB    ((MPI_Offset)4 << 20) /* bytes a domain owner writes per round */
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
    MPI_Offset mine[4] = {INT64_MAX, 0, (MPI_Offset)n, 0}, total = 0;
    struct span *r = malloc((size_t)f->size * sizeof(*r));
    MPI_Offset *all = malloc(4 * (size_t)f->size * sizeof(*all));
    int shorts = 0, crossed = 0, k = 0;
    size_t len;

    if (!r || !all)
        rt_fatal("out of memory planning a collective write on %d ranks", f->size);
    if (n) {
        mine[0] = io_view_map(f, pos, &len);
        mine[1] = io_view_map(f, pos + (MPI_Offset)n - 1, &len) + 1;
        mine[3] = io_view_short(f);
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

/* Scratch buffer `slot` of the file with room for `need` bytes, its
 * contents kept when it grows: kept between calls too, so rounds do not
 * fault in fresh pages each time. */
static void *scratch(struct io_file *f, int slot, size_t need)
{
    struct io_scratch *b = &f->scratch[slot];

    if (need > b->cap) {
        b->cap = need > 2 * b->cap ? need : 2 * b->cap;
        if (!(b->p = realloc(b->p, b->cap)))
            rt_fatal("out of memory for %zu bytes of collective I/O buffers", b->cap);
    }
    return b->p;
}

enum { S_DESC, S_DATA, S_RECV, S_WIN, S_MAP };

/* Appends the (offset, length) runs of stream bytes [s, e) to the
 * descriptor scratch at *nd; returns how many. */
static int list_runs(struct io_file *f, MPI_Offset s, MPI_Offset e, int *nd)
{
    int nr = 0;

    while (s < e) {
        MPI_Offset *d = (MPI_Offset *)scratch(f, S_DESC, (size_t)(*nd + 2) * sizeof(*d)) + *nd;
        size_t len;

        d[0] = io_view_run(f, s, e, &len);
        d[1] = (MPI_Offset)len;
        *nd += 2;
        nr++;
        s += (MPI_Offset)len;
    }
    return nr;
}

/* Sets bits [a, b) of the coverage map. */
static void mark(uint64_t *m, size_t a, size_t b)
{
    size_t wa = a >> 6, wb = b >> 6;
    uint64_t head = ~0ull << (a & 63), tail = (b & 63) ? ~0ull >> (64 - (b & 63)) : 0;

    if (wa == wb) {
        m[wa] |= head & tail;
        return;
    }
    m[wa] |= head;
    for (size_t w = wa + 1; w < wb; w++)
        m[w] = ~0ull;
    if (tail)
        m[wb] |= tail;
}

/* The first bit at or after i equal to `set`, or nbits. */
static size_t next_bit(const uint64_t *m, size_t i, size_t nbits, int set)
{
    size_t w = i >> 6, nw = (nbits + 63) >> 6;
    uint64_t x;

    if (i >= nbits)
        return nbits;
    x = (set ? m[w] : ~m[w]) & (~0ull << (i & 63));

    while (!x && ++w < nw)
        x = set ? m[w] : ~m[w];
    if (w >= nw)
        return nbits;
    i = (w << 6) + (size_t)__builtin_ctzll(x);
    return i < nbits ? i : nbits;
}

/* The owner's half of a round: place the runs received in its window
 * [ws, ws + wl), then write each stretch they cover with one pwrite.
 * Returns 0 or an errno. */
static int write_window(struct io_file *f, MPI_Offset ws, size_t wl, const MPI_Offset *d, int nd,
                        const char *data)
{
    char *win = scratch(f, S_WIN, wl);
    size_t words = (wl + 63) / 64, i = 0;
    uint64_t *map = scratch(f, S_MAP, words * sizeof(uint64_t));

    memset(map, 0, words * sizeof(uint64_t));
    for (int k = 0; k < nd; k++) {
        size_t at = (size_t)(d[2 * k] - ws), len = (size_t)d[2 * k + 1];

        memcpy(win + at, data, len);
        mark(map, at, at + len);
        data += len;
    }
    while ((i = next_bit(map, i, wl, 1)) < wl) {
        size_t stop = next_bit(map, i, wl, 0);

        while (i < stop) {
            ssize_t w = pwrite(f->fd, win + i, stop - i, ws + (MPI_Offset)i);

            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return errno;
            i += (size_t)w;
        }
    }
    return 0;
}

int io_coll_write(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                  struct rdmpi_datatype *dt, size_t *moved, int *err)
{
    MPI_Offset lo, hi, dom, end = pos + (MPI_Offset)(count * dt->size), *s;
    int P = f->size, rounds, e = 0;
    /* Per peer: runs and bytes to send (pairs), the same received, then
     * counts and displacements of the descriptor and data exchanges. */
    int *cnt, *rcnt, *dcnt, *rdcnt, *bcnt, *rbcnt, *ddisp, *rddisp, *bdisp, *rbdisp;

    if (P == 1 || f->atomic || !f->short_runs || !plan(f, pos, count * dt->size, &lo, &hi))
        return 0;
    dom = ((hi - lo + P - 1) / P + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
    rounds = (int)((dom + IO_CB - 1) / IO_CB);
    cnt = malloc(12 * (size_t)P * sizeof(int));
    s = malloc((size_t)P * sizeof(*s));
    if (!cnt || !s)
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
        MPI_Offset ws = lo + f->rank * dom + r * IO_CB, we;
        MPI_Offset *rd;
        char *sdata, *rdata;

        /* Owner a writes [lo + a*dom + r*CB, + CB) of its domain this
         * round; my data for it is stream bytes [s[a], s[a] + bcnt[a]). */
        for (int a = 0; a < P; a++) {
            MPI_Offset aws = lo + a * dom + r * IO_CB, awe = aws + IO_CB, dend = lo + (a + 1) * dom;

            awe = awe < dend ? awe : dend;
            awe = awe < hi ? awe : hi;
            s[a] = aws < awe ? stream_at(f, aws, pos, end) : pos;
            bcnt[a] = aws < awe ? (int)(stream_at(f, awe, pos, end) - s[a]) : 0;
            ddisp[a] = nsd;
            cnt[2 * a] = list_runs(f, s[a], s[a] + bcnt[a], &nsd);
            cnt[2 * a + 1] = bcnt[a];
            dcnt[a] = 2 * cnt[2 * a];
            bdisp[a] = sbytes;
            sbytes += bcnt[a];
        }
        PMPI_Alltoall(cnt, 2, MPI_INT, rcnt, 2, MPI_INT, f->comm);
        for (int a = 0; a < P; a++) {
            rdcnt[a] = 2 * rcnt[2 * a];
            rbcnt[a] = rcnt[2 * a + 1];
            rddisp[a] = nrd;
            rbdisp[a] = rbytes;
            nrd += rdcnt[a];
            rbytes += rbcnt[a];
        }
        sdata = scratch(f, S_DATA, (size_t)sbytes + (size_t)rbytes + 1);
        rdata = sdata + sbytes;
        for (int a = 0; a < P; a++)
            rt_dt_pack(dt, buf, count, (size_t)(s[a] - pos), sdata + bdisp[a], (size_t)bcnt[a]);
        scratch(f, S_DESC, (size_t)(nsd + nrd + 1) * sizeof(MPI_Offset));
        rd = (MPI_Offset *)f->scratch[S_DESC].p + nsd;
        PMPI_Alltoallv(f->scratch[S_DESC].p, dcnt, ddisp, MPI_OFFSET, rd, rdcnt, rddisp, MPI_OFFSET,
                       f->comm);
        PMPI_Alltoallv(sdata, bcnt, bdisp, MPI_BYTE, rdata, rbcnt, rbdisp, MPI_BYTE, f->comm);
        we = ws + IO_CB < lo + (f->rank + 1) * dom ? ws + IO_CB : lo + (f->rank + 1) * dom;
        we = we < hi ? we : hi;
        if (nrd && !e)
            e = write_window(f, ws, (size_t)(we - ws), rd, nrd / 2, rdata);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, f->comm);
    free(cnt);
    free(s);
    *err = e;
    *moved = e ? 0 : count * dt->size;
    return 1;
}
