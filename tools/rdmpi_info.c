/*
 * rdmpi_info: what this rdmpi is, how it was built, the transports it finds
 * on this host, and every parameter it reads, with default, value and help.
 *
 * The parameters come from where the code lists them: the library's MPI_T
 * control variables (every RT_PARAM, grouped by layer as MPI_T categories)
 * and the launcher's table of environment variables (launcher/envvars.c).
 * --parsable prints one key:value per line for scripts.
 */
#include "btl_ofi_info.h"
#include "envvars.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define USAGE "usage: rdmpi_info [--all | --param NAME|LAYER ... | --version] [--parsable]"

static const char help_text[] =
    USAGE "\n"
          "\n"
          "Without options: the version, the build configuration and the transports\n"
          "found on this host.\n"
          "\n"
          "  -a, --all               also every parameter, with default, value and help\n"
          "  --param NAME|LAYER      only the parameter NAME (RDMPI_SM_EAGER_LIMIT or\n"
          "                          SM_EAGER_LIMIT) or every parameter of LAYER (runtime,\n"
          "                          btl, btl_sm, btl_ofi, pml, coll, osc, launcher); all:\n"
          "                          every parameter; may be repeated\n"
          "  --parsable, --parseable one key:value line per fact, for scripts\n"
          "  -V, --version           the version only\n"
          "  -h, --help              this text\n"
          "\n"
          "Exit status: 0, or 2 for a bad command line. See rdmpi_info(1).\n";

static int parsable;
static char section[32]; /* the human format's current heading */

/* One fact: "key:value" when parsable, else under a heading per first key
 * component (build, transport). */
static void emit(const char *key, const char *value, void *arg)
{
    static const struct {
        const char *prefix, *title;
    } titles[] = {{"build", "Build"}, {"transport", "Transports on this host"}};
    const char *dot = strchr(key, '.');
    size_t n = dot ? (size_t)(dot - key) : 0;

    (void)arg;
    if (parsable) {
        printf("%s:%s\n", key, value);
        return;
    }
    if (n && (strlen(section) != n || strncmp(section, key, n))) {
        const char *title = key;

        snprintf(section, sizeof(section), "%.*s", (int)n, key);
        for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
            if (!strcmp(titles[i].prefix, section))
                title = titles[i].title;
        printf("\n%s:\n", title);
    }
    printf("  %-26s %s\n", dot ? dot + 1 : key, value);
}

static void version_line(void)
{
    if (parsable)
        printf("version:%s\n", PACKAGE_VERSION);
    else
        printf("rdmpi_info (rdmpi) %s\n", PACKAGE_VERSION);
}

static void build_facts(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], mpi[16];
    int len, major, minor;

    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    MPI_Get_version(&major, &minor);
    snprintf(mpi, sizeof(mpi), "%d.%d", major, minor);
    emit("build.version", PACKAGE_VERSION, NULL);
    emit("build.library", lib, NULL);
    emit("build.mpi_standard", mpi, NULL);
    emit("build.git_revision", RDMPI_BUILD_GIT " (when configured)", NULL);
    emit("build.prefix", RDMPI_BUILD_PREFIX, NULL);
    emit("build.configure_args", RDMPI_BUILD_ARGS[0] ? RDMPI_BUILD_ARGS : "(none)", NULL);
    emit("build.cc", RDMPI_BUILD_CC, NULL);
    emit("build.cc_version", RDMPI_BUILD_CC_VERSION, NULL);
    emit("build.cflags", RDMPI_BUILD_CFLAGS, NULL);
#ifdef RDMPI_FORTRAN
    emit("build.fortran", "yes: mpif.h, use mpi, use mpi_f08", NULL);
    emit("build.fc", RDMPI_FC, NULL);
    emit("build.fc_version", RDMPI_BUILD_FC_VERSION, NULL);
    emit("build.fcflags", RDMPI_BUILD_FCFLAGS, NULL);
#else
    emit("build.fortran", "no", NULL);
#endif
    emit("build.sanitizers", !strcmp(RDMPI_BUILD_SANITIZERS, "yes") ? "yes: ASan, UBSan" : "no",
         NULL);
    emit("build.pmix", RDMPI_BUILD_PMIX, NULL);
    emit("build.libfabric", RDMPI_BUILD_FABRIC, NULL);
    emit("build.rdma_core", RDMPI_BUILD_IBVERBS " (libibverbs)", NULL);
    emit("build.munge",
         strcmp(RDMPI_BUILD_MUNGE, "no") ? RDMPI_BUILD_MUNGE " (libmunge: mpirun --auth=munge)"
                                         : "no (mpirun --auth=secret only)",
         NULL);
}

/* ---- parameters ---- */

struct param {
    char name[128];
    char layer[64];
    const char *type;   /* int, bool, size, string; NULL for the launcher's */
    const char *option; /* the launcher's option for it, or NULL */
    char def[256];
    char help[1024];
    const char *value; /* from the environment, or the default */
    int from_env;
    int malformed; /* the library would refuse the value */
    int cvar;      /* MPI_T index, or -1 */
};

static struct param *params;
static int nparams;

static const char *layer_of(const char *category)
{
    return strncmp(category, "rdmpi_", 6) ? category : category + 6;
}

/* MPI_T's description is "help (default: D)" (runtime/mpit_cvar.c). */
static void split_desc(struct param *p, const char *desc)
{
    const char *d = strstr(desc, " (default: ");

    snprintf(p->help, sizeof(p->help), "%.*s", d ? (int)(d - desc) : (int)strlen(desc), desc);
    if (d) {
        d += strlen(" (default: ");
        snprintf(p->def, sizeof(p->def), "%.*s", (int)strlen(d) - 1, d);
        if (!strcmp(p->def, "empty"))
            p->def[0] = 0;
    }
}

static int malformed(int index)
{
    MPI_T_cvar_handle h;
    char buf[512];
    int count, rc;

    if (MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return 0;
    rc = MPI_T_cvar_read(h, buf);
    MPI_T_cvar_handle_free(&h);
    return rc != MPI_SUCCESS;
}

static void set_value(struct param *p)
{
    const char *v = getenv(p->name);

    p->from_env = v && *v;
    p->value = p->from_env ? v : p->def;
}

static int load_params(void)
{
    int ncvar, ncat, provided;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
        MPI_T_cvar_get_num(&ncvar) != MPI_SUCCESS || MPI_T_category_get_num(&ncat) != MPI_SUCCESS) {
        fprintf(stderr, "rdmpi_info: MPI_T cannot list the library's parameters\n");
        return -1;
    }
    params = calloc((size_t)ncvar + LN_ENV_COUNT, sizeof(*params));
    if (!params) {
        fprintf(stderr, "rdmpi_info: out of memory\n");
        return -1;
    }
    for (int i = 0; i < ncvar; i++) {
        struct param *p = &params[nparams++];
        char desc[1024];
        int nl = sizeof(p->name), dl = sizeof(desc), verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;

        MPI_T_cvar_get_info(i, p->name, &nl, &verbosity, &dt, &en, desc, &dl, &bind, &scope);
        split_desc(p, desc);
        p->type = dt == MPI_CHAR                 ? "string"
                  : dt == MPI_UNSIGNED_LONG_LONG ? "size"
                  : en != MPI_T_ENUM_NULL        ? "bool"
                                                 : "int";
        p->cvar = i;
        set_value(p);
        p->malformed = p->from_env && malformed(i);
    }
    /* Each cvar's layer is the category that holds it. */
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int nl = sizeof(name), n = 0, np, nc;

        MPI_T_category_get_info(c, name, &nl, NULL, NULL, &n, &np, &nc);
        int *idx = malloc(sizeof(int) * (size_t)(n + 1));

        if (idx && MPI_T_category_get_cvars(c, n, idx) == MPI_SUCCESS)
            for (int k = 0; k < n; k++)
                if (idx[k] >= 0 && idx[k] < ncvar)
                    snprintf(params[idx[k]].layer, sizeof(params[idx[k]].layer), "%s",
                             layer_of(name));
        free(idx);
    }
    for (int id = 0; id < LN_ENV_COUNT; id++) {
        struct param *p = &params[nparams++];

        snprintf(p->name, sizeof(p->name), "%s", ln_env_vars[id].name);
        snprintf(p->layer, sizeof(p->layer), "launcher");
        snprintf(p->def, sizeof(p->def), "%s", ln_env_vars[id].def);
        snprintf(p->help, sizeof(p->help), "%s", ln_env_vars[id].help);
        p->option = ln_env_vars[id].option;
        p->cvar = -1;
        set_value(p);
    }
    return 0;
}

static void print_param(const struct param *p)
{
    if (parsable) {
        printf("param.%s.layer:%s\n", p->name, p->layer);
        if (p->type)
            printf("param.%s.type:%s\n", p->name, p->type);
        if (p->option)
            printf("param.%s.option:%s\n", p->name, p->option);
        printf("param.%s.default:%s\n", p->name, p->def);
        printf("param.%s.value:%s\n", p->name, p->value);
        printf("param.%s.source:%s\n", p->name,
               p->malformed  ? "environment (malformed)"
               : p->from_env ? "environment"
                             : "default");
        printf("param.%s.help:%s\n", p->name, p->help);
        return;
    }
    printf("  %s (%s, %s%s%s)\n", p->name, p->layer, p->type ? p->type : "mpirun",
           p->option ? " " : "", p->option ? p->option : "");
    printf("      default: %s\n", p->def[0] ? p->def : "(empty)");
    if (p->from_env)
        printf("      value:   %s (from the environment%s)\n", p->value,
               p->malformed ? "; MALFORMED: the library will refuse it" : "");
    printf("      %s\n", p->help);
}

static int name_is(const char *want, const char *name)
{
    return !strcasecmp(want, name) || (!strncmp(name, "RDMPI_", 6) && !strcasecmp(want, name + 6));
}

static int matches(const struct param *p, const char *want)
{
    return !strcasecmp(want, "all") || name_is(want, p->name) || !strcasecmp(want, p->layer) ||
           (!strncasecmp(want, "rdmpi_", 6) && !strcasecmp(want + 6, p->layer));
}

/* Every parameter that is, or belongs to the layer, `want`; 0 if none. */
static int print_matching(const char *want)
{
    int n = 0;

    for (int i = 0; i < nparams; i++)
        n += matches(&params[i], want);
    if (n && !parsable)
        printf("\nParameters (%s):\n", want);
    for (int i = 0; n && i < nparams; i++)
        if (matches(&params[i], want))
            print_param(&params[i]);
    return n;
}

/* The layers, comma-separated, each once. */
static void list_layers(char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < nparams; i++) {
        int seen = 0;

        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(params[j].layer, params[i].layer);
        if (!seen) {
            size_t n = strlen(buf);

            snprintf(buf + n, len - n, "%s%s", n ? ", " : "", params[i].layer);
        }
    }
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "rdmpi_info: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n" USAGE "\n");
    return 2;
}

/* want has room for every argument: the names given to --param. */
static int run(int argc, char **argv, const char **want)
{
    int all = 0, version = 0, nwant = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(help_text, stdout);
            return 0;
        } else if (!strcmp(a, "-a") || !strcmp(a, "--all")) {
            all = 1;
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            version = 1;
        } else if (!strcmp(a, "--parsable") || !strcmp(a, "--parseable")) {
            parsable = 1;
        } else if (!strncmp(a, "--param=", 8) && a[8]) {
            want[nwant++] = a + 8;
        } else if (!strcmp(a, "--param")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return usage_error("%s needs a parameter or layer name (example: rdmpi_info "
                                   "--param btl_sm)",
                                   a);
            want[nwant++] = argv[++i];
        } else if (a[0] == '-') {
            return usage_error("unknown option '%s' (rdmpi_info --help lists the options)", a);
        } else {
            return usage_error("'%s' is not an option; rdmpi_info takes no other arguments", a);
        }
    }
    if (version + all + (nwant > 0) > 1)
        return usage_error("%s: give one of --version, --all and --param",
                           version ? "--version" : "--all");
    if (version) {
        version_line();
        return 0;
    }
    if (load_params())
        return 1;
    if (nwant) {
        for (int i = 0; i < nwant; i++)
            if (!print_matching(want[i])) {
                char layers[512];

                list_layers(layers, sizeof(layers));
                fprintf(stderr,
                        "rdmpi_info: --param %s: no parameter or layer of that name; the "
                        "layers are %s, and rdmpi_info --all lists every parameter\n",
                        want[i], layers);
                return 2;
            }
        return 0;
    }
    version_line();
    build_facts();
    rdmpi_info_transports(emit, NULL);
    if (all)
        print_matching("all");
    else if (!parsable)
        printf("\n%d parameters: rdmpi_info --all lists them, --param LAYER those of one "
               "layer.\n",
               nparams);
    MPI_T_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    const char **want = calloc((size_t)argc, sizeof(*want));
    int rc;

    if (!want)
        return 1;
    rc = run(argc, argv, want);
    free(want);
    return rc;
}
