/* Preloaded into mpirun by t_teardown.sh: the PMIx server library's
 * finalize never returns, as libpmix's once did, so that the launcher's
 * watchdog (launcher/pmix_server.c) has to end the job. */
#include <unistd.h>

int PMIx_server_finalize(void);

int PMIx_server_finalize(void)
{
    for (;;)
        pause();
}
