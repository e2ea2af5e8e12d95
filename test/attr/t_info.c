/* MPI_Info: key order, values, truncation, limits, dup independence,
 * MPI_INFO_ENV and MPI_Info_create_env (also before MPI_Init).  Run with
 * the arguments "alpha beta". */
#include "../mpitap.h"

#include <mpi.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static int has(MPI_Info info, const char *key, char *value)
{
    int flag = 0, len = MPI_MAX_INFO_VAL;

    MPI_Info_get_string(info, key, &len, value, &flag);
    return flag;
}

static void basics(void)
{
    MPI_Info info, dup;
    char key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];
    int n, len, flag, rc;

    MPI_Info_create(&info);
    MPI_Info_get_nkeys(info, &n);
    CHECK_EQ_INT(n, 0, "a new info is empty");
    MPI_Info_set(info, "zeta", "1");
    MPI_Info_set(info, "alpha", "two");
    MPI_Info_set(info, "mid", "three");
    MPI_Info_set(info, "zeta", "one");
    MPI_Info_get_nkeys(info, &n);
    CHECK_EQ_INT(n, 3, "three keys after four sets, one repeated (%d)", n);
    MPI_Info_get_nthkey(info, 0, key);
    CHECK_EQ_STR(key, "zeta", "nthkey keeps the order of first setting: 0 is zeta (%s)", key);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK_EQ_STR(key, "alpha", "1 is alpha (%s)", key);
    MPI_Info_get_nthkey(info, 2, key);
    CHECK_EQ_STR(key, "mid", "2 is mid (%s)", key);
    CHECK_ALL ("setting again replaces the value") {
        CHECK_TRUE(has(info, "zeta", value));
        CHECK_EQ_STR(value, "one");
    }
    CHECK_TRUE(!has(info, "Zeta", value), "keys are case sensitive");

    rc = MPI_Info_get_valuelen(info, "mid", &len, &flag);
    CHECK_ALL ("get_valuelen excludes the NUL (%d)", len) {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_INT(len, 5);
    }
    rc = MPI_Info_get_valuelen(info, "none", &len, &flag);
    CHECK_ALL ("get_valuelen of a missing key: flag 0") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!flag);
    }

    len = 3;
    strcpy(value, "xxxxxx");
    rc = MPI_Info_get_string(info, "mid", &len, value, &flag);
    CHECK_ALL ("get_string truncates to buflen - 1 chars and says what is needed (%d, %s)", len,
               value) {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_INT(len, 6);
        CHECK_EQ_STR(value, "th");
    }
    len = 0;
    rc = MPI_Info_get_string(info, "mid", &len, NULL, &flag);
    CHECK_ALL ("buflen 0 asks for the length only") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_INT(len, 6);
    }
    len = 77;
    rc = MPI_Info_get_string(info, "none", &len, value, &flag);
    CHECK_ALL ("a missing key leaves buflen alone") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!flag);
        CHECK_EQ_INT(len, 77);
    }
    strcpy(value, "xxxxxx");
    rc = MPI_Info_get(info, "mid", 2, value, &flag);
    CHECK_ALL ("deprecated get copies valuelen chars + NUL") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_STR(value, "th");
    }
    rc = MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL - 1, value, &flag);
    CHECK_ALL ("and the whole value when it fits") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_STR(value, "two");
    }

    MPI_Info_dup(info, &dup);
    MPI_Info_set(dup, "alpha", "changed");
    MPI_Info_set(dup, "extra", "x");
    CHECK_ALL ("changing a dup leaves the original alone") {
        CHECK_TRUE(has(info, "alpha", value));
        CHECK_EQ_STR(value, "two");
        CHECK_TRUE(!has(info, "extra", value));
    }
    MPI_Info_delete(info, "zeta");
    MPI_Info_free(&info);
    CHECK_EQ_PTR(info, MPI_INFO_NULL, "MPI_Info_free sets the handle to MPI_INFO_NULL");
    MPI_Info_get_nkeys(dup, &n);
    MPI_Info_get_nthkey(dup, 0, key);
    CHECK_ALL ("freeing the original leaves the dup whole, in order") {
        CHECK_EQ_INT(n, 4);
        CHECK_EQ_STR(key, "zeta");
        CHECK_TRUE(has(dup, "zeta", value));
    }

    rc = MPI_Info_delete(dup, "alpha");
    MPI_Info_get_nkeys(dup, &n);
    MPI_Info_get_nthkey(dup, 1, key);
    CHECK_ALL ("delete keeps the order of the rest") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(n, 3);
        CHECK_EQ_STR(key, "mid");
    }
    rc = MPI_Info_delete(dup, "alpha");
    CHECK_EQ_INT(rc, MPI_ERR_INFO_NOKEY, "deleting a missing key is MPI_ERR_INFO_NOKEY");
    MPI_Info_free(&dup);
}

static void limits(void)
{
    MPI_Info info, freed;
    char key[MPI_MAX_INFO_KEY + 8], value[MPI_MAX_INFO_VAL + 8], out[MPI_MAX_INFO_KEY];
    int rc, len, flag, n;

    MPI_Info_create(&info);
    memset(key, 'k', sizeof(key));
    key[MPI_MAX_INFO_KEY - 1] = 0;
    rc = MPI_Info_set(info, key, "v");
    MPI_Info_get_nthkey(info, 0, out);
    CHECK_ALL ("a key of MPI_MAX_INFO_KEY - 1 chars fits") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_STR(out, key);
    }
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    key[MPI_MAX_INFO_KEY] = 0;
    rc = MPI_Info_set(info, key, "v");
    CHECK_EQ_INT(rc, MPI_ERR_INFO_KEY, "one more is MPI_ERR_INFO_KEY");
    rc = MPI_Info_set(info, "", "v");
    CHECK_EQ_INT(rc, MPI_ERR_INFO_KEY, "an empty key is MPI_ERR_INFO_KEY");
    rc = MPI_Info_get_valuelen(info, key, &len, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_INFO_KEY, "a too long key is MPI_ERR_INFO_KEY for reading too");
    memset(value, 'v', sizeof(value));
    value[MPI_MAX_INFO_VAL - 1] = 0;
    rc = MPI_Info_set(info, "big", value);
    MPI_Info_get_valuelen(info, "big", &len, &flag);
    CHECK_ALL ("a value of MPI_MAX_INFO_VAL - 1 chars fits") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(len, MPI_MAX_INFO_VAL - 1);
    }
    value[MPI_MAX_INFO_VAL - 1] = 'v';
    value[MPI_MAX_INFO_VAL] = 0;
    rc = MPI_Info_set(info, "big", value);
    CHECK_EQ_INT(rc, MPI_ERR_INFO_VALUE, "one more is MPI_ERR_INFO_VALUE");
    rc = MPI_Info_set(info, "k", NULL);
    CHECK_EQ_INT(rc, MPI_ERR_INFO_VALUE, "a NULL value is MPI_ERR_INFO_VALUE");
    rc = MPI_Info_get_nthkey(info, 2, out);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "nthkey past the end is MPI_ERR_ARG");
    rc = MPI_Info_get_nthkey(info, -1, out);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a negative n is MPI_ERR_ARG");
    rc = MPI_Info_get(info, "big", -1, value, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a negative valuelen is MPI_ERR_ARG");
    rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
    CHECK_EQ_INT(rc, MPI_ERR_INFO, "MPI_INFO_NULL is MPI_ERR_INFO");
    freed = info;
    MPI_Info_free(&info);
    rc = MPI_Info_set(freed, "a", "b");
    CHECK_EQ_INT(rc, MPI_ERR_INFO, "a freed info is MPI_ERR_INFO");
    rc = MPI_Info_free(&info);
    CHECK_EQ_INT(rc, MPI_ERR_INFO, "freeing MPI_INFO_NULL is MPI_ERR_INFO");
    MPI_Info_create(&info);
    CHECK_EQ_PTR(MPI_Info_f2c(MPI_Info_c2f(info)), info, "Fortran handle round trip");
    MPI_Info_free(&info);
}

static void env(const char *argv0, int size, const char *early_command)
{
    MPI_Info info, dup;
    char value[MPI_MAX_INFO_VAL], cwd[4096];
    int rc, len, flag;

    CHECK_ALL ("MPI_Info_create_env works before MPI_Init (command %s)", early_command) {
        CHECK_TRUE(early_command);
        CHECK_EQ_STR(early_command, argv0);
    }
    CHECK_TRUE(has(MPI_INFO_ENV, "command", value) && strstr(value, "t_info"),
               "MPI_INFO_ENV command names the program (%s)", value);
    CHECK_ALL ("argv holds the arguments (%s)", value) {
        CHECK_TRUE(has(MPI_INFO_ENV, "argv", value));
        CHECK_EQ_STR(value, "alpha beta");
    }
    CHECK_ALL ("maxprocs is %d (%s)", size, value) {
        CHECK_TRUE(has(MPI_INFO_ENV, "maxprocs", value));
        CHECK_EQ_INT(atoi(value), size);
    }
    CHECK_TRUE(has(MPI_INFO_ENV, "host", value) && value[0], "host is set (%s)", value);
    CHECK_TRUE(has(MPI_INFO_ENV, "arch", value) && value[0], "arch is set (%s)", value);
    CHECK_ALL ("wdir is the working directory (%s)", value) {
        CHECK_TRUE(has(MPI_INFO_ENV, "wdir", value));
        CHECK_TRUE(getcwd(cwd, sizeof(cwd)));
        CHECK_EQ_STR(value, cwd);
    }
    CHECK_ALL ("thread_level says what MPI_Init gave (%s)", value) {
        CHECK_TRUE(has(MPI_INFO_ENV, "thread_level", value));
        CHECK_EQ_STR(value, "MPI_THREAD_SINGLE");
    }
    rc = MPI_Info_set(MPI_INFO_ENV, "a", "b");
    CHECK_EQ_INT(rc, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
    info = MPI_INFO_ENV;
    rc = MPI_Info_free(&info);
    CHECK_ALL ("and cannot be freed") {
        CHECK_EQ_INT(rc, MPI_ERR_INFO);
        CHECK_EQ_PTR(info, MPI_INFO_ENV);
    }
    rc = MPI_Info_dup(MPI_INFO_ENV, &dup);
    CHECK_ALL ("its dup is an ordinary info") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(MPI_Info_set(dup, "a", "b"), 0);
    }
    MPI_Info_free(&dup);

    {
        char *args[] = {"prog", "x", "y z", NULL};

        MPI_Info_create_env(3, args, &info);
        CHECK_ALL ("MPI_Info_create_env takes command and argv from its arguments (%s)", value) {
            CHECK_TRUE(has(info, "command", value));
            CHECK_EQ_STR(value, "prog");
            CHECK_TRUE(has(info, "argv", value));
            CHECK_EQ_STR(value, "x y z");
        }
        len = 0;
        MPI_Info_get_string(info, "maxprocs", &len, NULL, &flag);
        CHECK_TRUE(flag, "and the other keys from the runtime");
        MPI_Info_free(&info);
    }
}

/* maxprocs and thread_level of an env info taken `when` (NULL: absent). */
static void env_same(const char *when, const char *size, const char *level, const char *want)
{
    CHECK_ALL ("maxprocs %s: got \"%s\", want \"%s\"", when, size ? size : "(none)", want) {
        CHECK_TRUE(size);
        CHECK_EQ_STR(size, want);
    }
    CHECK_ALL ("thread_level %s: got \"%s\", want \"MPI_THREAD_SINGLE\"", when,
               level ? level : "(none)") {
        CHECK_TRUE(level);
        CHECK_EQ_STR(level, "MPI_THREAD_SINGLE");
    }
}

int main(int argc, char **argv)
{
    MPI_Info early;
    char command[MPI_MAX_INFO_VAL];
    char early_size[MPI_MAX_INFO_VAL], early_level[MPI_MAX_INFO_VAL];
    char late_size[MPI_MAX_INFO_VAL], late_level[MPI_MAX_INFO_VAL], want[32];
    int rank, size, have_early, have_early_size, have_early_level, have_late_size, have_late_level;

    MPI_Info_create_env(argc, argv, &early);
    have_early = has(early, "command", command);
    have_early_size = has(early, "maxprocs", early_size);
    have_early_level = has(early, "thread_level", early_level);
    MPI_Info_free(&early);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank)
        fclose(stdout);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    basics();
    limits();
    env(argv[0], size, have_early ? command : NULL);
    {
        MPI_Info hw;
        char v[MPI_MAX_INFO_VAL];
        CHECK_ALL ("MPI_Get_hw_resource_info names the host and its cores") {
            CHECK_MPI(MPI_Get_hw_resource_info(&hw));
            CHECK_TRUE(has(hw, "rdmpi_cores_online", v));
            CHECK_GT_LONG(atoi(v), 0);
            CHECK_TRUE(has(hw, "rdmpi_host", v));
            CHECK_TRUE(v[0]);
        }
        MPI_Info_free(&hw);
    }
    /* The process's env info is the same whenever asked (MPI-4.1 11.2.8):
     * maxprocs and thread_level before MPI_Init and after MPI_Finalize too. */
    snprintf(want, sizeof(want), "%d", size);
    env_same("before MPI_Init", have_early_size ? early_size : NULL,
             have_early_level ? early_level : NULL, want);
    MPI_Finalize();
    {
        MPI_Info late;
        MPI_Info_create_env(argc, argv, &late);
        have_late_size = has(late, "maxprocs", late_size);
        have_late_level = has(late, "thread_level", late_level);
        MPI_Info_free(&late);
    }
    env_same("after MPI_Finalize", have_late_size ? late_size : NULL,
             have_late_level ? late_level : NULL, want);
    return done_testing();
}
