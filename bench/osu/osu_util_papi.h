/* Stand-in for OMB's osu_util_papi.h (bench/osu/compare): no PAPI (-P). */
#ifndef OSU_UTIL_PAPI_STUB_H
#define OSU_UTIL_PAPI_STUB_H
#define OMB_PAPI_NULL -1
static inline void omb_papi_init(int *e)
{
    (void)e;
}
static inline void omb_papi_start(int *e)
{
    (void)e;
}
static inline void omb_papi_stop_and_print(int *e, int size)
{
    (void)e;
    (void)size;
}
static inline void omb_papi_free(int *e)
{
    (void)e;
}
#endif
