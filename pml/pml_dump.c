/* The hang report: what this rank waits for, printed on SIGUSR1 from its
 * progress loop (mpirun --timeout sends it before ending the job). */
#include "pml.h"
#include "proc.h"

#include <inttypes.h>
#include <stdio.h>

static const char *hdr_name(int type)
{
    static const char *names[] = {"?", "eager", "rndv", "cts", "frag", "fin", "credit"};
    return type > 0 && type <= PML_HDR_CREDIT ? names[type] : "?";
}

static int count(const struct pml_link *l)
{
    int n = 0;
    for (const struct pml_link *e = l->next; e != l; e = e->next)
        n++;
    return n;
}

static void dump_comm(FILE *out, struct pml_comm *pc)
{
    for (int p = 0; p < pc->size; p++) {
        struct pml_comm_peer *cp = &pc->peers[p];
        int np = count(&cp->posted), nu = count(&cp->unexpected), no = count(&cp->ooo);

        if (!np && !nu && !no)
            continue;
        fprintf(out,
                "rdmpi[%d]:   cid %u peer %d: sent seq %u, next expected %u, "
                "%d posted, %d unexpected, %d early\n",
                rt.rank, pc->cid, p, cp->send_seq, cp->recv_seq, np, nu, no);
        for (struct pml_link *e = cp->posted.next; e != &cp->posted; e = e->next) {
            struct pml_req *r = pml_container(e, struct pml_req, link);
            fprintf(out, "rdmpi[%d]:     posted receive tag %d, %zu bytes\n", rt.rank, r->tag,
                    r->len);
        }
        for (struct pml_link *e = cp->unexpected.next; e != &cp->unexpected; e = e->next) {
            struct pml_frag *f = pml_container(e, struct pml_frag, link);
            fprintf(out, "rdmpi[%d]:     unexpected %s seq %u tag %d, %zu bytes\n", rt.rank,
                    hdr_name(f->hdr.m.type), f->hdr.m.seq, f->hdr.m.tag, f->len);
        }
    }
    for (struct pml_link *e = pc->any_posted.next; e != &pc->any_posted; e = e->next) {
        struct pml_req *r = pml_container(e, struct pml_req, link);
        fprintf(out, "rdmpi[%d]:   cid %u: posted MPI_ANY_SOURCE receive tag %d\n", rt.rank,
                pc->cid, r->tag);
    }
}

void pml_dump(FILE *out)
{
    fprintf(out, "rdmpi[%d]: hang report (%s): pending work follows\n", rt.rank, rt.hostname);
    /* Every communicator: one freed leaves a gap, and those after it may
     * be the ones waiting (a test that creates and frees many). */
    for (uint32_t cid = 0; cid < pml_comm_cid_limit(); cid++) {
        struct pml_comm *pc = pml_comm_lookup(cid);
        if (pc)
            dump_comm(out, pc);
    }
    for (int w = 0; w < rt_proc_count(); w++)
        if (pml_peers[w].npending) {
            char left[32] = "no limit of";

            if (pml_peers[w].msg_window != UINT32_MAX)
                snprintf(left, sizeof(left), "%" PRIu64, pml_peers[w].msgs);
            fprintf(out,
                    "rdmpi[%d]:   %d sends to rank %d wait for transport resources "
                    "(%u credits and %s messages left)\n",
                    rt.rank, pml_peers[w].npending, w, pml_peers[w].credits, left);
        }
    fflush(out);
}
