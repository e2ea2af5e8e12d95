/* Stand-in for OMB's osu_util_graph.h (bench/osu/compare): graph output (-G) is not
 * built; the data buffers stay real so benchmarks that write them stay memory-safe. */
#ifndef OSU_UTIL_GRAPH_STUB_H
#define OSU_UTIL_GRAPH_STUB_H
#include <stdlib.h>
#include <stddef.h>
typedef struct omb_graph_data {
    double *data;
    double avg;
    size_t message_size;
} omb_graph_data_t;
typedef struct omb_graph_options {
    int number_of_graphs;
    omb_graph_data_t *graph_datas[64];
} omb_graph_options_t;
static inline void omb_graph_options_init(omb_graph_options_t *o)
{
    o->number_of_graphs = 0;
}
static inline void omb_graph_allocate_and_get_data_buffer(omb_graph_data_t **d,
                                                          omb_graph_options_t *o, size_t size,
                                                          size_t iterations)
{
    omb_graph_data_t *g = calloc(1, sizeof(*g));
    g->data = calloc(iterations ? iterations : 1, sizeof(double));
    g->message_size = size;
    if (o->number_of_graphs < 64)
        o->graph_datas[o->number_of_graphs++] = g;
    *d = g;
}
static inline void omb_graph_free_data_buffers(omb_graph_options_t *o)
{
    for (int i = 0; i < o->number_of_graphs; i++) {
        free(o->graph_datas[i]->data);
        free(o->graph_datas[i]);
    }
    o->number_of_graphs = 0;
}
static inline void omb_graph_plot(omb_graph_options_t *o, const char *n)
{
    (void)o;
    (void)n;
}
static inline void omb_graph_combined_plot(omb_graph_options_t *o, const char *n)
{
    (void)o;
    (void)n;
}
#endif
