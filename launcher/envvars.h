/*
 * envvars.h: the RDMPI_* (and MPIEXEC_*) variables the launcher reads.
 * The one list: options.c reads its settings through it and rdmpi_info
 * prints it, so a variable cannot be read without being documented.
 */
#ifndef LN_ENVVARS_H
#define LN_ENVVARS_H

enum ln_env_id {
    LN_ENV_NP,
    LN_ENV_TIMEOUT,
    LN_ENV_MPIEXEC_TIMEOUT,
    LN_ENV_TAG_OUTPUT,
    LN_ENV_OUTPUT_FILENAME,
    LN_ENV_BIND_TO,
    LN_ENV_KILL_GRACE,
    LN_ENV_VERBOSE,
    LN_ENV_LAUNCHD,
    LN_ENV_LAUNCH_ADDR,
    LN_ENV_LAUNCH_TIMEOUT,
    LN_ENV_AUTH,
    LN_ENV_MUNGE_SOCKET,
    LN_ENV_UNIVERSE_SIZE,
    LN_ENV_COUNT
};

struct ln_env_var {
    const char *name;   /* the variable */
    const char *option; /* mpirun's option for the same setting, or NULL */
    const char *def;    /* default, as text */
    const char *help;
};

/* Indexed by enum ln_env_id. */
extern const struct ln_env_var ln_env_vars[LN_ENV_COUNT];

#endif
