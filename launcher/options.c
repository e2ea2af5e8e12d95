/*
 * options.c: mpirun's command line and its RDMPI_* environment twins.
 *
 * Open MPI's option names are accepted, and so are Hydra's (MPICH)
 * spellings.  Every long option works with one dash or two, and with its
 * value either as the next word or after '='.  Parsing stops at the first
 * word that is not an option (the program) or after "--", so the program's
 * own options are never looked at.  Settings come from RDMPI_* variables
 * first, and the command line overrides them.  A ':' word ends a program's
 * arguments and starts another program (MPMD), which may be preceded by
 * its own -n, -x/-env and -wdir.
 */
#include "launcher.h"
#include "envvars.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXAMPLE "(example: mpirun -n 4 ./app)"

enum opt_id {
    O_NP,
    O_X,
    O_GENV,
    O_GENVLIST,
    O_GENVALL,
    O_TAG,
    O_TIMEOUT,
    O_OUTDIR,
    O_OVERSUB,
    O_HELP,
    O_VERSION,
    O_VERBOSE,
    O_BTL,
    O_PROVIDER,
    O_IFACE,
    O_REPORT,
    O_BIND,
    O_ROOT,
    O_MCA,
    O_GRACE,
    O_HOST,
    O_HOSTFILE,
    O_PPN,
    O_MAPBY,
    O_AGENT,
    O_WDIR,
    O_REPORT_BIND,
    O_LAUNCHER,
    O_AUTH,
    O_UNIV,
};

struct opt {
    const char *name; /* without dashes */
    enum opt_id id;
    int nargs;           /* words taken after the option */
    const char *example; /* its use, for error messages */
};

static const struct opt table[] = {
    {"n", O_NP, 1, "-n 4"},
    {"np", O_NP, 1, "-np 4"},
    {"c", O_NP, 1, "-c 4"},
    {"x", O_X, 1, "-x OMP_NUM_THREADS=2"},
    {"genv", O_GENV, 2, "-genv OMP_NUM_THREADS 2"},
    {"env", O_GENV, 2, "-env OMP_NUM_THREADS 2"},
    {"genvlist", O_GENVLIST, 1, "-genvlist PATH,HOME"},
    {"envlist", O_GENVLIST, 1, "-envlist PATH,HOME"},
    {"genvall", O_GENVALL, 0, NULL},
    {"envall", O_GENVALL, 0, NULL},
    {"tag-output", O_TAG, 0, NULL},
    {"l", O_TAG, 0, NULL},
    {"prepend-rank", O_TAG, 0, NULL},
    {"timeout", O_TIMEOUT, 1, "--timeout 60"},
    {"output-filename", O_OUTDIR, 1, "--output-filename out"},
    {"oversubscribe", O_OVERSUB, 0, NULL},
    {"h", O_HELP, 0, NULL},
    {"help", O_HELP, 0, NULL},
    {"version", O_VERSION, 0, NULL},
    {"V", O_VERSION, 0, NULL},
    {"v", O_VERBOSE, 0, NULL},
    {"verbose", O_VERBOSE, 0, NULL},
    {"btl", O_BTL, 1, "--btl sm,self"},
    {"provider", O_PROVIDER, 1, "--provider tcp"},
    {"iface", O_IFACE, 1, "--iface eth0"},
    {"report-transport", O_REPORT, 0, NULL},
    {"bind-to", O_BIND, 1, "--bind-to core"},
    {"allow-run-as-root", O_ROOT, 0, NULL},
    {"mca", O_MCA, 2, "--mca btl sm,self"},
    {"gmca", O_MCA, 2, "--gmca btl sm,self"},
    {"kill-grace", O_GRACE, 1, "--kill-grace 5"},
    {"host", O_HOST, 1, "--host node1,node2:4"},
    {"H", O_HOST, 1, "-H node1,node2:4"},
    {"hosts", O_HOST, 1, "-hosts node1,node2:4"},
    {"hostfile", O_HOSTFILE, 1, "--hostfile hosts.txt"},
    {"machinefile", O_HOSTFILE, 1, "-machinefile hosts.txt"},
    {"f", O_HOSTFILE, 1, "-f hosts.txt"},
    {"ppn", O_PPN, 1, "-ppn 4"},
    {"npernode", O_PPN, 1, "--npernode 4"},
    {"map-by", O_MAPBY, 1, "--map-by node"},
    {"launch-agent", O_AGENT, 1, "--launch-agent 'ssh -x'"},
    {"wdir", O_WDIR, 1, "-wdir /scratch/run1"},
    {"wd", O_WDIR, 1, "--wd /scratch/run1"},
    {"report-bindings", O_REPORT_BIND, 0, NULL},
    {"N", O_PPN, 1, "-N 4"},
    {"launcher", O_LAUNCHER, 1, "-launcher ssh"},
    {"launcher-exec", O_AGENT, 1, "-launcher-exec 'ssh -x'"},
    {"auth", O_AUTH, 1, "--auth munge"},
    {"universe-size", O_UNIV, 1, "--universe-size 8"},
};

static const char help_text[] =
    "Usage: mpirun [options] [--] program [program arguments]\n"
    "       mpirun [options] -n N program [args] : -n M [-x VAR=v] [-wdir D] program2 [args] ...\n"
    "\n"
    "Starts the ranks of an rdmpi job (on this host, or with -hosts on several),\n"
    "serves them PMIx, forwards their output line by line and ends the whole\n"
    "job when one rank fails.\n"
    "Options stop at the program name: what follows belongs to the program,\n"
    "up to a ':' that starts another program (MPMD; MPI_APPNUM tells them\n"
    "apart), with its own -n, -x/-env and -wdir.\n"
    "\n"
    "  -n, -np, -c N           start N ranks (default: one per allowed CPU)\n"
    "  -x VAR[=value]          give ranks VAR (from mpirun's environment, or value)\n"
    "  -genv VAR value         give ranks VAR=value (Hydra spelling; also -env)\n"
    "  -genvlist A,B           as -x A -x B\n"
    "  --tag-output, -l        prefix every output line with \"[rank] \"\n"
    "  --timeout S             end the job after S seconds, exit 124 (0: no limit)\n"
    "  --output-filename DIR   write DIR/rank.R/stdout and DIR/rank.R/stderr\n"
    "  -wdir DIR, --wd DIR     ranks start in DIR (default: mpirun's directory)\n"
    "  --bind-to none|core     pin rank r to the r-th allowed CPU (default: core\n"
    "                          when ranks <= CPUs, none otherwise); l3cache, numa,\n"
    "                          socket: to the CPUs sharing that unit with it\n"
    "  --report-bindings       say on stderr where each rank is bound\n"
    "  --btl LIST              transports for ranks (sets RDMPI_BTL)\n"
    "  --provider NAME         libfabric provider (sets RDMPI_OFI_PROVIDER)\n"
    "  --iface NAME            network interface (sets RDMPI_OFI_IFACE)\n"
    "  --report-transport      ranks report the transport (sets RDMPI_REPORT=1)\n"
    "  --mca KEY VAL           sets RDMPI_<KEY in capitals>=VAL for ranks\n"
    "  --kill-grace S          seconds between SIGTERM and SIGKILL at teardown (2)\n"
    "  --host A,B:4, -H        run on these hosts (B with 4 slots)\n"
    "  --hostfile F, -f        hosts from F: 'host slots=N' or 'host:N' lines\n"
    "  -ppn N, --npernode N, -N N   N consecutive ranks per host\n"
    "  --map-by slot|node      fill each host's slots (default) or round robin;\n"
    "                          ppr:N:node is -ppn N\n"
    "  --launch-agent CMD      starts the per-host daemon: CMD HOST ... (ssh; also\n"
    "                          -launcher-exec; -launcher ssh|rsh|slurm)\n"
    "  --auth munge|secret|auto   how the daemons and mpirun authenticate each\n"
    "                          other: munged's credentials, a per-job secret, or\n"
    "                          munge when built in and munged answers (auto)\n"
    "  --universe-size N       MPI_UNIVERSE_SIZE: at most N processes at once,\n"
    "                          spawned ones included (default: the slots of\n"
    "                          --host/--hostfile, else the CPUs, at least -n)\n"
    "  -v, --verbose           ranks verbose (RDMPI_VERBOSE); twice: mpirun too\n"
    "  --oversubscribe, --allow-run-as-root, -genvall   accepted, no effect\n"
    "  -h, --help              this text\n"
    "  --version               the version\n"
    "\n"
    "Environment: RDMPI_NP, RDMPI_TIMEOUT (or MPIEXEC_TIMEOUT), RDMPI_TAG_OUTPUT,\n"
    "RDMPI_OUTPUT_FILENAME, RDMPI_BIND_TO, RDMPI_KILL_GRACE, RDMPI_VERBOSE and\n"
    "RDMPI_AUTH, RDMPI_UNIVERSE_SIZE set the same things as the options; the command line wins.\n"
    "\n"
    "Exit status: 0 when every rank exits 0; otherwise the first failing rank's\n"
    "status (128+N for signal N), the MPI_Abort error code, 124 on timeout,\n"
    "128+N when mpirun gets signal N, 2 for a bad command line, 126/127 when the\n"
    "program cannot be run.  See docs/launcher.md.\n";

/* Appends "name=value" to a list of variables (the job's or a program's). */
static int add_var(char ***list, size_t *count, const char *name, const char *value)
{
    char **v = realloc(*list, (*count + 1) * sizeof(*v));
    size_t n = strlen(name) + strlen(value) + 2;

    if (!v)
        return -ENOMEM;
    *list = v;
    v[*count] = malloc(n);
    if (!v[*count])
        return -ENOMEM;
    snprintf(v[*count], n, "%s=%s", name, value);
    (*count)++;
    return 0;
}

static int add_env(struct ln_opts *o, const char *name, const char *value)
{
    return add_var(&o->rank_env, &o->nrank_env, name, value);
}

static int valid_env_name(const char *s, size_t len)
{
    if (len == 0 || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* -x VAR=value sets; -x VAR exports mpirun's own value, which the ranks get
 * anyway, so an unset VAR is simply nothing to export. */
static int opt_x(char ***list, size_t *count, const char *opt, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    char name[256];

    if (!valid_env_name(arg, len) || len >= sizeof(name)) {
        ln_err("%s needs VAR or VAR=value with a variable name, got '%s' "
               "(example: mpirun %s OMP_NUM_THREADS=2 -n 4 ./app)",
               opt, arg, opt);
        return -EINVAL;
    }
    memcpy(name, arg, len);
    name[len] = 0;
    if (eq)
        return add_var(list, count, name, eq + 1);
    if (getenv(name))
        return add_var(list, count, name, getenv(name));
    return 0;
}

/* -genv VAR value */
static int opt_env(char ***list, size_t *count, const char *opt, const char *name,
                   const char *value)
{
    if (!valid_env_name(name, strlen(name))) {
        ln_err("%s needs a variable name and a value, got '%s' "
               "(example: mpirun %s OMP_NUM_THREADS 2 -n 4 ./app)",
               opt, name, opt);
        return -EINVAL;
    }
    return add_var(list, count, name, value);
}

/* -genvlist A,B */
static int opt_envlist(char ***list, size_t *count, const char *opt, const char *names)
{
    char *copy = strdup(names), *save = NULL;
    int rc = copy ? 0 : -ENOMEM;

    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc;
         t = strtok_r(NULL, ",", &save))
        rc = opt_x(list, count, opt, t);
    free(copy);
    return rc;
}

static int opt_wdir(const char *opt, const char *arg, const char **out)
{
    if (!*arg) {
        ln_err("%s needs a directory (example: mpirun %s /scratch/run1 -n 4 ./app)", opt, opt);
        return -EINVAL;
    }
    *out = arg;
    return 0;
}

static int parse_np(const char *opt, const char *arg, int *np)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v <= 0) {
        ln_err("%s needs a positive integer, got '%s' " EXAMPLE, opt, arg);
        return -EINVAL;
    }
    if (v > 65535) {
        ln_err("%s %s is more ranks than one host can take (at most 65535)", opt, arg);
        return -EINVAL;
    }
    *np = (int)v;
    return 0;
}

#define NO_LIMIT " (0: no limit)"
#define NO_GRACE " (0: SIGKILL at once)"

/* Seconds, 0 included; zero_note says what 0 means (the same for an option
 * and its variable, so both say the same thing). */
static int parse_seconds(const char *opt, const char *arg, double *out, const char *zero_note,
                         const char *example)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v >= 0) || v > 1e9) {
        ln_err("%s needs a number of seconds%s, got '%s' (example: %s)", opt, zero_note, arg,
               example);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_bool(const char *opt, const char *arg, int *out)
{
    static const char *yes[] = {"1", "yes", "true", "on"};
    static const char *no[] = {"0", "no", "false", "off", ""};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(arg, yes[i]))
            return *out = 1, 0;
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (!strcasecmp(arg, no[i]))
            return *out = 0, 0;
    ln_err("%s needs 1 or 0, got '%s'", opt, arg);
    return -EINVAL;
}

static int parse_bind(const char *opt, const char *arg, enum ln_bind *out)
{
    static const struct {
        const char *name;
        enum ln_bind b;
    } names[] = {{"none", LN_BIND_NONE},     {"core", LN_BIND_CORE},
                 {"hwthread", LN_BIND_CORE}, {"cpu", LN_BIND_CORE},
                 {"l1cache", LN_BIND_CORE},  {"l2cache", LN_BIND_CORE},
                 {"socket", LN_BIND_SOCKET}, {"package", LN_BIND_SOCKET},
                 {"numa", LN_BIND_NUMA},     {"l3cache", LN_BIND_L3}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(arg, names[i].name)) {
            *out = names[i].b;
            return 0;
        }
    ln_err("%s needs none, core, l3cache, numa or socket, got '%s' (example: mpirun --bind-to "
           "none -n 4 ./app)",
           opt, arg);
    return -EINVAL;
}

static int parse_verbose(const char *opt, const char *arg, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);

    if (end == arg || *end || v < 0 || v > 100) {
        ln_err("%s needs a level from 0 to 100, got '%s'", opt, arg);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

static int parse_auth(const char *opt, const char *arg, enum ln_auth *out)
{
    if (!strcmp(arg, "auto") || !strcmp(arg, "secret")) {
        *out = !strcmp(arg, "auto") ? LN_AUTH_AUTO : LN_AUTH_SECRET;
        return 0;
    }
    if (!strcmp(arg, "munge")) {
#ifdef HAVE_MUNGE
        *out = LN_AUTH_MUNGE;
        return 0;
#else
        ln_err("%s: munge: this rdmpi was built without libmunge; install the Debian package "
               "libmunge-dev and configure --with-munge, or use secret (--auth=secret)",
               opt);
        return -EINVAL;
#endif
    }
    ln_err("%s needs munge, secret or auto, got '%s' (example: mpirun --auth munge --host a,b "
           "./app)",
           opt, arg);
    return -EINVAL;
}

/* Defaults from the environment (the variables of envvars.c, read nowhere
 * else but mh.c); the command line may override each. */
static int from_env(struct ln_opts *o)
{
    int rc = 0, timeout_set = 0;

    for (int id = 0; id < LN_ENV_COUNT && !rc; id++) {
        const char *name = ln_env_vars[id].name, *v = getenv(name);

        if (!v || (!*v && id != LN_ENV_TAG_OUTPUT))
            continue;
        switch ((enum ln_env_id)id) {
        case LN_ENV_NP:
            o->np_given = 1;
            rc = parse_np(name, v, &o->np);
            break;
        case LN_ENV_TIMEOUT:
        case LN_ENV_MPIEXEC_TIMEOUT: /* RDMPI_TIMEOUT wins */
            if (!timeout_set++)
                rc = parse_seconds(name, v, &o->timeout, NO_LIMIT, "RDMPI_TIMEOUT=60");
            break;
        case LN_ENV_TAG_OUTPUT: rc = parse_bool(name, v, &o->tag_output); break;
        case LN_ENV_OUTPUT_FILENAME: o->output_dir = v; break;
        case LN_ENV_BIND_TO: rc = parse_bind(name, v, &o->bind); break;
        case LN_ENV_KILL_GRACE:
            rc = parse_seconds(name, v, &o->kill_grace, NO_GRACE, "RDMPI_KILL_GRACE=5");
            break;
        case LN_ENV_VERBOSE: rc = parse_verbose(name, v, &o->verbose); break;
        case LN_ENV_AUTH: rc = parse_auth(name, v, &o->auth); break;
        case LN_ENV_UNIVERSE_SIZE: rc = parse_np(name, v, &o->univ_size); break;
        case LN_ENV_MUNGE_SOCKET: /* mh.c's */
        case LN_ENV_LAUNCHD:
        case LN_ENV_LAUNCH_ADDR:
        case LN_ENV_LAUNCH_TIMEOUT: /* mh.c's */
        case LN_ENV_COUNT: break;
        }
    }
    return rc;
}

/* Find argv[0] the way execvp would, but before anything is started, so a
 * typo costs one clear line and no half-started job. */
/* The path made absolute against dir (NULL: mpirun's directory): ranks
 * may start in another (-wdir) and still find their program. */
static char *absolute(const char *dir, const char *path)
{
    char cwd[PATH_MAX], *out;
    size_t n;

    if (path[0] == '/' || (!dir && !(dir = getcwd(cwd, sizeof(cwd)))))
        return strdup(path);
    n = strlen(dir) + strlen(path) + 2;
    if ((out = malloc(n)))
        snprintf(out, n, "%s/%s", dir, path);
    return out;
}

int ln_resolve_program(struct ln_app *a, const char *dir, const char *path)
{
    const char *name = a->argv[0];
    char *full_name;
    struct stat st;
    int rc;

    if (!*name) {
        ln_err("the program name is empty " EXAMPLE);
        return -EINVAL;
    }
    if (strchr(name, '/')) {
        if (!(full_name = absolute(dir, name)))
            return -ENOMEM;
        rc = stat(full_name, &st) < 0 ? -errno : 0;
        if (rc)
            ln_err("program '%s' not found: %s (check the path)", name, strerror(-rc));
        else if (S_ISDIR(st.st_mode))
            ln_err("program '%s' is a directory, not a program", name);
        else if (!S_ISREG(st.st_mode) || access(full_name, X_OK) < 0)
            ln_err("program '%s' is not executable (chmod +x %s, or check the path)", name, name);
        else {
            a->prog = full_name;
            return 0;
        }
        free(full_name);
        return rc ? -ENOENT : -EACCES;
    }

    int found_noexec = 0;

    if (!path)
        path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char full[PATH_MAX];

        /* An empty PATH element means the current directory. */
        if (snprintf(full, sizeof(full), "%.*s%s%s", (int)dlen, dlen ? p : ".", "/", name) <
                (int)sizeof(full) &&
            stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(full, X_OK) == 0) {
                a->prog = absolute(dir, full);
                return a->prog ? 0 : -ENOMEM;
            }
            found_noexec = 1;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    if (found_noexec) {
        ln_err("program '%s' was found in PATH but is not executable (chmod +x it)", name);
        return -EACCES;
    }
    ln_err("program '%s' not found in PATH (give its path, for example "
           "./%s, or add its directory to PATH)",
           name, name);
    return -ENOENT;
}

static int allowed_cpus(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static const struct opt *lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
            return &table[i];
    return NULL;
}

static void upcase_key(char *dst, size_t size, const char *key)
{
    size_t n = snprintf(dst, size, "RDMPI_");

    for (; *key && n + 1 < size; key++)
        dst[n++] = isalnum((unsigned char)*key) ? toupper((unsigned char)*key) : '_';
    dst[n] = 0;
}

static int apply(struct ln_opts *o, const struct opt *op, const char *word, const char *a1,
                 const char *a2, int *verbose_set)
{
    char key[256];

    switch (op->id) {
    case O_NP: o->np_given = 1; return parse_np(word, a1, &o->np);
    case O_X: return opt_x(&o->rank_env, &o->nrank_env, word, a1);
    case O_GENV: return opt_env(&o->rank_env, &o->nrank_env, word, a1, a2);
    case O_GENVLIST: return opt_envlist(&o->rank_env, &o->nrank_env, word, a1);
    case O_WDIR: return opt_wdir(word, a1, &o->wdir);
    case O_REPORT_BIND: o->report_bindings = 1; return 0;
    case O_LAUNCHER: /* Hydra's: how its proxies start */
        if (!strcmp(a1, "ssh") || !strcmp(a1, "rsh"))
            o->launch_agent = a1;
        else if (!strcmp(a1, "slurm"))
            o->launch_agent = LN_SRUN_AGENT;
        else {
            ln_err("%s needs ssh, rsh or slurm, got '%s' (or give the command with "
                   "--launch-agent)",
                   word, a1);
            return -EINVAL;
        }
        return 0;
    case O_TAG: o->tag_output = 1; return 0;
    case O_TIMEOUT:
        return parse_seconds(word, a1, &o->timeout, NO_LIMIT, "mpirun --timeout 60 -n 4 ./app");
    case O_OUTDIR:
        if (!*a1) {
            ln_err("%s needs a directory name (example: mpirun %s out -n 4 ./app)", word, word);
            return -EINVAL;
        }
        o->output_dir = a1;
        return 0;
    case O_OVERSUB:
    case O_ROOT:
    case O_GENVALL: return 0;
    case O_HELP:
        fputs(help_text, stdout);
        fflush(stdout);
        return 1;
    case O_VERSION:
        printf("mpirun (rdmpi) %s\n", PACKAGE_VERSION);
        fflush(stdout);
        return 1;
    case O_VERBOSE:
        o->verbose = *verbose_set ? o->verbose + 1 : 1;
        *verbose_set = 1;
        return 0;
    case O_BTL: return add_env(o, "RDMPI_BTL", a1);
    case O_PROVIDER: return add_env(o, "RDMPI_OFI_PROVIDER", a1);
    case O_IFACE: return add_env(o, "RDMPI_OFI_IFACE", a1);
    case O_REPORT: return add_env(o, "RDMPI_REPORT", "1");
    case O_BIND: return parse_bind(word, a1, &o->bind);
    case O_AUTH: return parse_auth(word, a1, &o->auth);
    case O_UNIV: return parse_np(word, a1, &o->univ_size);
    case O_MCA:
        if (!*a1) {
            ln_err("%s needs a key and a value (example: mpirun %s btl sm,self -n 4 ./app)", word,
                   word);
            return -EINVAL;
        }
        upcase_key(key, sizeof(key), a1);
        return add_env(o, key, a2);
    case O_GRACE:
        return parse_seconds(word, a1, &o->kill_grace, NO_GRACE,
                             "mpirun --kill-grace 5 -n 4 ./app");
    case O_HOST: {
        size_t n = (o->hosts ? strlen(o->hosts) + 1 : 0) + strlen(a1) + 1;
        char *h = realloc(o->hosts, n);

        if (!h)
            return -ENOMEM;
        if (o->hosts)
            strcat(strcat(h, ","), a1);
        else
            strcpy(h, a1);
        o->hosts = h;
        return 0;
    }
    case O_HOSTFILE: o->hostfile = a1; return 0;
    case O_PPN: return parse_np(word, a1, &o->ppn);
    case O_MAPBY:
        /* Open MPI's ppr:N:node, N processes per node, is Hydra's -ppn N. */
        if (!strncmp(a1, "ppr:", 4) && strlen(a1) > 9 && !strcmp(a1 + strlen(a1) - 5, ":node") &&
            strspn(a1 + 4, "0123456789") == strlen(a1) - 9) {
            char n[16];

            snprintf(n, sizeof(n), "%.*s", (int)(strlen(a1) - 9), a1 + 4);
            return parse_np(word, n, &o->ppn);
        }
        if (strcmp(a1, "node") && strcmp(a1, "slot") && strcmp(a1, "core")) {
            ln_err("%s needs 'node', 'slot' or 'ppr:N:node', got '%s' (example: mpirun "
                   "--map-by node --host a,b -n 4 ./app)",
                   word, a1);
            return -EINVAL;
        }
        o->map_by_node = !strcmp(a1, "node");
        return 0;
    case O_AGENT:
        if (!*a1) {
            ln_err("%s needs a command (example: mpirun --launch-agent ssh --host a,b ./app)",
                   word);
            return -EINVAL;
        }
        o->launch_agent = a1;
        return 0;
    }
    return -EINVAL;
}

/* Reads the option at argv[*i] and its values, leaving *i at its last
 * word.  Returns 0 for an option, 1 where the options end (at a program
 * name, or after "--", *i then at the program), or -EINVAL. */
static int next_option(int argc, char **argv, int *i, const struct opt **op, char *shown,
                       size_t size, const char **a1, const char **a2)
{
    const char *word = argv[*i], *name, *eq;

    *a1 = *a2 = NULL;
    if (!strcmp(word, "--")) {
        ++*i;
        return 1;
    }
    if (word[0] != '-' || word[1] == 0)
        return 1;
    name = word + 1 + (word[1] == '-');
    eq = strchr(name, '=');
    *op = lookup(name, eq ? (size_t)(eq - name) : strlen(name));
    if (!*op) {
        ln_err("unknown option '%s' (mpirun --help lists the "
               "options; they go before the program name)",
               word);
        return -EINVAL;
    }
    snprintf(shown, size, "%.*s", (int)(eq ? eq - word : (long)strlen(word)), word);
    if (eq && (*op)->nargs != 1) {
        ln_err("%s takes %s, not '=value'", shown, (*op)->nargs ? "two values" : "no value");
        return -EINVAL;
    }
    if ((*op)->nargs >= 1) {
        if (eq)
            *a1 = eq + 1;
        else if (*i + 1 < argc)
            *a1 = argv[++*i];
        else {
            ln_err("%s needs a value (example: mpirun %s ./app)", shown, (*op)->example);
            return -EINVAL;
        }
    }
    if ((*op)->nargs == 2) {
        if (*i + 1 >= argc) {
            ln_err("%s needs two values (example: mpirun %s ./app)", shown, (*op)->example);
            return -EINVAL;
        }
        *a2 = argv[++*i];
    }
    return 0;
}

/* The options between a ':' and the next program: its own rank count,
 * variables and directory; the rest concern the whole job. */
static int app_options(struct ln_app *a, int argc, char **argv, int *i, int *np_given)
{
    const struct opt *op;
    const char *a1, *a2;
    char shown[64];
    int rc;

    for (; *i < argc; ++*i) {
        if ((rc = next_option(argc, argv, i, &op, shown, sizeof(shown), &a1, &a2)))
            return rc < 0 ? rc : 0;
        switch (op->id) {
        case O_NP:
            *np_given = 1;
            rc = parse_np(shown, a1, &a->np);
            break;
        case O_X: rc = opt_x(&a->env, &a->nenv, shown, a1); break;
        case O_GENV: rc = opt_env(&a->env, &a->nenv, shown, a1, a2); break;
        case O_GENVLIST: rc = opt_envlist(&a->env, &a->nenv, shown, a1); break;
        case O_WDIR: rc = opt_wdir(shown, a1, &a->wdir); break;
        default:
            ln_err("%s concerns the whole job: give it before the first program (after ':' "
                   "come only -n, -x, -env, -envlist and -wdir; example: mpirun %s -n 1 ./a : "
                   "-n 2 ./b)",
                   shown, op->example ? op->example : shown);
            return -EINVAL;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* The programs from argv[i] on: the first takes the -n given before it;
 * each ':' starts another, after its own options (app_options). Each
 * program's arguments end at the ':', which becomes their NULL. */
static int parse_apps(struct ln_opts *o, int argc, char **argv, int i)
{
    int all_given = o->np_given, total = 0, rc;

    for (;;) {
        struct ln_app *a = realloc(o->apps, (size_t)(o->napps + 1) * sizeof(*a));
        int given = 0;

        if (!a)
            return -ENOMEM;
        o->apps = a;
        a = &o->apps[o->napps++];
        memset(a, 0, sizeof(*a));
        if (o->napps == 1)
            a->np = o->np;
        else if ((rc = app_options(a, argc, argv, &i, &given)))
            return rc;
        all_given &= o->napps == 1 || given;
        if (i >= argc || !strcmp(argv[i], ":")) {
            ln_err("no program given %s", o->napps == 1 ? EXAMPLE
                                                        : "after ':' (example: mpirun "
                                                          "-n 1 ./a : -n 2 ./b)");
            return -EINVAL;
        }
        a->argv = &argv[i];
        while (i < argc && strcmp(argv[i], ":"))
            i++;
        total += a->np;
        if (i == argc)
            break;
        argv[i++] = NULL;
    }
    if (o->napps > 1) {
        if (!all_given) {
            ln_err("with several programs (':'), give each its own -n (example: mpirun -n 1 "
                   "./a : -n 2 ./b)");
            return -EINVAL;
        }
        o->np = total;
    }
    for (int k = 0; k < o->napps; k++) {
        const char *dir = o->apps[k].wdir ? o->apps[k].wdir : o->wdir;
        struct stat st;

        if ((rc = ln_resolve_program(&o->apps[k], NULL, NULL)))
            return rc;
        /* On one host a wrong directory is one line now, not one per rank;
         * other hosts' ranks report their own. */
        if (!dir || o->hosts || o->hostfile)
            continue;
        rc = stat(dir, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
        if (rc) {
            ln_err("-wdir %s: %s (the ranks' working directory must exist)", dir, strerror(rc));
            return -EINVAL;
        }
    }
    return 0;
}

int ln_opts_parse(struct ln_opts *o, int argc, char **argv)
{
    int verbose_set = 0;
    int i, rc;

    memset(o, 0, sizeof(*o));
    o->kill_grace = 2.0;
    rc = from_env(o);
    if (rc)
        return rc;

    for (i = 1; i < argc; i++) {
        const struct opt *op;
        const char *a1, *a2;
        char shown[64];

        if ((rc = next_option(argc, argv, &i, &op, shown, sizeof(shown), &a1, &a2)) < 0)
            return rc;
        if (rc)
            break;
        rc = apply(o, op, shown, a1, a2, &verbose_set);
        if (rc)
            return rc;
    }

    if (i >= argc) {
        ln_err("no program given " EXAMPLE);
        return -EINVAL;
    }
    if (o->verbose) {
        char v[16];

        snprintf(v, sizeof(v), "%d", o->verbose);
        if ((rc = add_env(o, "RDMPI_VERBOSE", v)))
            return rc;
    }
    if (o->np == 0 && !o->hosts && !o->hostfile)
        o->np = allowed_cpus();
    return parse_apps(o, argc, argv, i);
}

void ln_opts_free(struct ln_opts *o)
{
    for (size_t i = 0; i < o->nrank_env; i++)
        free(o->rank_env[i]);
    free(o->rank_env);
    for (int k = 0; k < o->napps; k++) {
        for (size_t i = 0; i < o->apps[k].nenv; i++)
            free(o->apps[k].env[i]);
        free(o->apps[k].env);
        free(o->apps[k].prog);
    }
    free(o->apps);
    free(o->hosts);
    memset(o, 0, sizeof(*o));
}
