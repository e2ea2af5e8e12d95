/* envvars.c: the launcher's environment variables (envvars.h). */
#include "envvars.h"

#include <stddef.h>

const struct ln_env_var ln_env_vars[LN_ENV_COUNT] = {
    [LN_ENV_NP] = {"RDMPI_NP", "-n", "one rank per allowed CPU", "ranks to start"},
    [LN_ENV_TIMEOUT] = {"RDMPI_TIMEOUT", "--timeout", "0",
                        "end the job after this many seconds, exit 124 (0: no limit)"},
    [LN_ENV_MPIEXEC_TIMEOUT] = {"MPIEXEC_TIMEOUT", "--timeout", "0",
                                "as RDMPI_TIMEOUT (the standard's name), when that is unset"},
    [LN_ENV_TAG_OUTPUT] = {"RDMPI_TAG_OUTPUT", "--tag-output", "0",
                           "1: prefix every output line with \"[rank] \""},
    [LN_ENV_OUTPUT_FILENAME] = {"RDMPI_OUTPUT_FILENAME", "--output-filename", "",
                                "write DIR/rank.R/stdout and DIR/rank.R/stderr instead of the "
                                "terminal"},
    [LN_ENV_BIND_TO] = {"RDMPI_BIND_TO", "--bind-to", "core when ranks <= CPUs, else none",
                        "none, core, l3cache, numa or socket: what each rank is pinned to"},
    [LN_ENV_KILL_GRACE] = {"RDMPI_KILL_GRACE", "--kill-grace", "2",
                           "seconds between SIGTERM and SIGKILL when a job is ended "
                           "(0: SIGKILL at once)"},
    [LN_ENV_VERBOSE] = {"RDMPI_VERBOSE", "-v", "0",
                        "verbosity of the ranks; at 2 or more mpirun prints its timings too"},
    [LN_ENV_LAUNCHD] = {"RDMPI_LAUNCHD", NULL, "rdmpi-launchd beside mpirun",
                        "the per-host daemon started on other hosts"},
    [LN_ENV_LAUNCH_ADDR] = {"RDMPI_LAUNCH_ADDR", NULL,
                            "the first IPv4 address of an interface that is up",
                            "the address the daemons on other hosts reach mpirun at"},
    [LN_ENV_LAUNCH_TIMEOUT] = {"RDMPI_LAUNCH_TIMEOUT", NULL, "30",
                               "seconds every host's daemon has to start and connect"},
    [LN_ENV_AUTH] = {"RDMPI_AUTH", "--auth", "auto",
                     "how the daemons and mpirun authenticate each other: munge (munged's "
                     "credentials), secret (a per-job key on the agent's stdin) or auto "
                     "(munge when built in and munged answers, else secret)"},
    [LN_ENV_MUNGE_SOCKET] = {"RDMPI_MUNGE_SOCKET", NULL,
                             "libmunge's default (/run/munge/munge.socket.2)",
                             "munged's socket, for --auth=munge and auto, on every host"},
    [LN_ENV_UNIVERSE_SIZE] = {"RDMPI_UNIVERSE_SIZE", "--universe-size",
                              "the host's slots: --host/--hostfile, else its CPUs (at least -n)",
                              "MPI_UNIVERSE_SIZE: how many processes may run at once, spawned "
                              "ones included"},
};
