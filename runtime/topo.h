/* Virtual topologies hang off a communicator; the communicator layer only
 * duplicates and frees them. */
#ifndef RT_TOPO_H
#define RT_TOPO_H

struct rt_topo;

/* A copy for MPI_Comm_dup (NULL in, NULL out); NULL with *err set on failure. */
struct rt_topo *rt_topo_dup(const struct rt_topo *t, int *err);
void rt_topo_free(struct rt_topo *t);

#endif
