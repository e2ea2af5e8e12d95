/* Cartesian topologies: ranks laid out in row-major order (the last
 * dimension varies fastest), as the standard requires. */
#include "comm.h"

#include <stdlib.h>

static void cart_coords(const struct rt_topo *t, int r, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = r % t->dims[i];
        r /= t->dims[i];
    }
}

/* The rank disp steps from t->rank along dimension d, or MPI_PROC_NULL
 * off the edge of a non-periodic dimension. */
static int shift(const struct rt_topo *t, int d, long long disp)
{
    long long n = t->dims[d], c = t->coords[d] + disp, stride = 1;

    if (t->periods[d])
        c = ((c % n) + n) % n;
    else if (c < 0 || c >= n)
        return MPI_PROC_NULL;
    for (int i = d + 1; i < t->ndims; i++)
        stride *= t->dims[i];
    return (int)(t->rank + (c - t->coords[d]) * stride);
}

/* Fills coords and the neighbour list for t->rank. */
static void cart_neighbours(struct rt_topo *t)
{
    cart_coords(t, t->rank, t->coords);
    for (int d = 0; d < t->ndims; d++) {
        t->in[2 * d] = shift(t, d, -1);
        t->in[2 * d + 1] = shift(t, d, 1);
    }
}

/* dims and periods of a grid for comm: every extent >= 1 and at most
 * `size` processes in all. */
static int check_grid(MPI_Comm comm, int size, int ndims, const int *dims, const int *periods,
                      const char *fn, int *nnodes)
{
    long long n = 1;

    if (ndims < 0)
        return rdmpi_err_comm(comm, MPI_ERR_DIMS, fn, "ndims is %d; it must be >= 0", ndims);
    if (ndims > 0 && (!dims || !periods))
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass an array of ndims (%d) ints",
                              dims ? "periods" : "dims", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return rdmpi_err_comm(comm, MPI_ERR_DIMS, fn,
                                  "dims[%d] is %d; every extent must be >= 1 (MPI_Dims_create "
                                  "fills in zero entries)",
                                  i, dims[i]);
        if ((n *= dims[i]) > size)
            return rdmpi_err_comm(comm, MPI_ERR_DIMS, fn,
                                  "the grid needs more processes (dims[0..%d] multiply to %lld) "
                                  "than the communicator has (%d)",
                                  i, n, size);
    }
    *nnodes = (int)n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int *dims, const int *periods, int reorder,
                     MPI_Comm *comm_cart)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_create";
    struct rdmpi_comm *c;
    struct rt_topo *t = NULL;
    int err, nnodes;

    (void)reorder;
    if ((err = rt_topo_check_old(comm_old, fn, &c)) ||
        (err = check_grid(comm_old, c->size, ndims, dims, periods, fn, &nnodes)))
        return err;
    if (!comm_cart)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn,
                              "comm_cart is NULL; pass the address of an MPI_Comm");
    if (c->rank < nnodes && (t = rt_topo_new(MPI_CART, c->rank, ndims, 0))) {
        for (int i = 0; i < ndims; i++) {
            t->dims[i] = dims[i];
            t->periods[i] = periods[i] != 0;
        }
        cart_neighbours(t);
    }
    return rt_topo_attach(comm_old, nnodes, t, comm_cart, fn);
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int *dims, const int *periods, int *newrank)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_map";
    struct rdmpi_comm *c;
    int err, nnodes;

    if ((err = rt_topo_check_old(comm, fn, &c)) ||
        (err = check_grid(comm, c->size, ndims, dims, periods, fn, &nnodes)))
        return err;
    if (!newrank)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "newrank is NULL; pass the address of an int");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cartdim_get";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)))
        return err;
    if (!ndims)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "ndims is NULL; pass the address of an int");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

static int check_maxdims(MPI_Comm comm, const struct rt_topo *t, int maxdims, const char *fn)
{
    if (maxdims < t->ndims)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "maxdims is %d but the grid has %d dimensions; pass arrays of "
                              "at least MPI_Cartdim_get ints",
                              maxdims, t->ndims);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int *dims, int *periods, int *coords)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_get";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)) ||
        (err = check_maxdims(comm, t, maxdims, fn)))
        return err;
    if (t->ndims && (!dims || !periods || !coords))
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass an array of %d ints",
                              !dims      ? "dims"
                              : !periods ? "periods"
                                         : "coords",
                              t->ndims);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int *coords)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_coords";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)) ||
        (err = check_maxdims(comm, t, maxdims, fn)))
        return err;
    if (rank < 0 || rank >= c->size)
        return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                              "rank is %d but the communicator has %d ranks; pass 0..%d", rank,
                              c->size, c->size - 1);
    if (t->ndims && !coords)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "coords is NULL; pass an array of %d ints",
                              t->ndims);
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int *coords, int *rank)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_rank";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err, r = 0;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)))
        return err;
    if ((t->ndims && !coords) || !rank)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL", !rank ? "rank" : "coords");
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], n = t->dims[i];

        if (t->periods[i])
            x = ((x % n) + n) % n;
        else if (x < 0 || x >= n)
            return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                                  "coords[%d] is %d but dimension %d is not periodic and has "
                                  "extent %d; pass 0..%d",
                                  i, x, i, n, n - 1);
        r = r * n + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_shift";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)))
        return err;
    if (direction < 0 || direction >= t->ndims)
        return rdmpi_err_comm(comm, MPI_ERR_DIMS, fn,
                              "direction is %d but the grid has %d dimensions; pass 0..%d",
                              direction, t->ndims, t->ndims - 1);
    if (!rank_source || !rank_dest)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass the address of an int",
                              !rank_source ? "rank_source" : "rank_dest");
    *rank_source = shift(t, direction, -(long long)disp);
    *rank_dest = shift(t, direction, disp);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int *remain_dims, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cart_sub";
    struct rdmpi_comm *c, *nc;
    struct rt_topo *t, *nt;
    int err, color = 0, n = 0;

    if ((err = rt_topo_check(comm, MPI_CART, fn, &c, &t)))
        return err;
    if ((t->ndims && !remain_dims) || !newcomm)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL",
                              !newcomm ? "newcomm" : "remain_dims");
    /* Processes that agree on the dropped coordinates share a subgrid; in
     * row-major order, old rank order is the subgrid's own order. */
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i])
            n++;
        else
            color = color * t->dims[i] + t->coords[i];
    }
    if ((err = PMPI_Comm_split(comm, color, c->rank, newcomm)))
        return err;
    nc = rt_comm_get(*newcomm);
    if (!(nt = rt_topo_new(MPI_CART, nc->rank, n, 0))) {
        PMPI_Comm_free(newcomm);
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    for (int i = 0, j = 0; i < t->ndims; i++)
        if (remain_dims[i]) {
            nt->dims[j] = t->dims[i];
            nt->periods[j++] = t->periods[i];
        }
    cart_neighbours(nt);
    rt_topo_free(nc->topo);
    nc->topo = nt;
    return MPI_SUCCESS;
}

/* ---- MPI_Dims_create ---- */

/* The best split found so far of the free part into k factors. */
struct dims_search {
    const int *divs; /* divisors of the free part, ascending */
    int ndivs, k;
    int *cur, *best;
    long long best_spread;
};

/* Whether d is at least the r-th root of m, i.e. d^r >= m. */
static int root_ok(long long d, int r, long long m)
{
    long long p = 1;

    for (int i = 0; i < r && p < m; i++)
        p *= d;
    return p >= m;
}

/* Factors cur[level..k-1] of m, each at most maxf, in non-increasing
 * order; keeps the split whose largest and smallest factors are closest. */
static void dims_search(struct dims_search *s, int level, long long m, long long maxf)
{
    int r = s->k - level;

    if (r == 1) {
        long long spread;

        if (m > maxf)
            return;
        s->cur[level] = (int)m;
        spread = s->cur[0] - m;
        if (spread < s->best_spread) {
            s->best_spread = spread;
            for (int i = 0; i < s->k; i++)
                s->best[i] = s->cur[i];
        }
        return;
    }
    for (int i = 0; i < s->ndivs && s->divs[i] <= maxf; i++) {
        long long d = s->divs[i];

        /* d is the largest of the r factors left, so d^r >= m. */
        if (m % d || !root_ok(d, r, m))
            continue;
        /* The last factor is at most d: no better than the best so far. */
        if (level > 0 && s->cur[0] - d >= s->best_spread)
            continue;
        s->cur[level] = (int)d;
        dims_search(s, level + 1, m / d, d);
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* Splits m into k factors as equal as possible, non-increasing. */
static int balance(int m, int k, int *out)
{
    struct dims_search s;
    int *divs, n = 0, cap = 64, err = MPI_SUCCESS;

    if (!(divs = malloc((size_t)cap * sizeof(int))))
        return MPI_ERR_NO_MEM;
    for (long long i = 1; i * i <= m; i++) {
        if (m % i)
            continue;
        if (n + 2 > cap) {
            int *p = realloc(divs, (size_t)(cap *= 2) * sizeof(int));
            if (!p) {
                free(divs);
                return MPI_ERR_NO_MEM;
            }
            divs = p;
        }
        divs[n++] = (int)i;
        if (i * i != m)
            divs[n++] = (int)(m / i);
    }
    qsort(divs, (size_t)n, sizeof(int), cmp_int);
    s.divs = divs;
    s.ndivs = n;
    s.k = k;
    s.best_spread = (long long)m + 1;
    s.cur = malloc(2 * (size_t)k * sizeof(int));
    if (!s.cur) {
        err = MPI_ERR_NO_MEM;
    } else {
        s.best = s.cur + k;
        dims_search(&s, 0, m, m);
        for (int i = 0; i < k; i++)
            out[i] = s.best[i];
    }
    free(s.cur);
    free(divs);
    return err;
}

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int *dims)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Dims_create";
    long long fixed = 1;
    int nfree = 0, *f, err;

    RT_CHECK_INIT(fn);
    if (nnodes <= 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "nnodes is %d; it must be >= 1",
                              nnodes);
    if (ndims < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_DIMS, fn, "ndims is %d; it must be >= 0",
                              ndims);
    if (ndims && !dims)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "dims is NULL; pass an array of ndims (%d) ints", ndims);
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_DIMS, fn,
                                  "dims[%d] is %d; entries must be 0 (to be chosen) or a fixed "
                                  "extent >= 1",
                                  i, dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (nnodes % fixed || (!nfree && fixed != nnodes))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_DIMS, fn,
                              "the fixed (non-zero) entries of dims multiply to %s%lld, which "
                              "%s nnodes (%d)",
                              fixed > nnodes ? "more than " : "", fixed,
                              nfree ? "does not divide" : "is not", nnodes);
    if (!nfree)
        return MPI_SUCCESS;
    if (!(f = malloc((size_t)nfree * sizeof(int))))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((err = balance(nnodes / (int)fixed, nfree, f))) {
        free(f);
        return rdmpi_err_comm(MPI_COMM_SELF, err, fn, "out of memory");
    }
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = f[j++];
    free(f);
    return MPI_SUCCESS;
}
