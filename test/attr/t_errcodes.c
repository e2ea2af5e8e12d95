/* User error classes, codes and strings and their removal; a text for every
 * predefined class; error handlers on communicators, windows, files and
 * sessions called with the right arguments; bad input. */
#include "../tap.h"

#include <mpi.h>
#include <string.h>

static int calls, got_code;
static MPI_Comm got_comm;
static MPI_File got_file;
static int not_a_file[4]; /* memory whose header is no live object */

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    got_comm = *comm;
    got_code = *code;
}

static void file_handler(MPI_File *file, int *code, ...)
{
    calls++;
    got_file = *file;
    got_code = *code;
}

static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win, (void)code;
}

static void session_handler(MPI_Session *session, int *code, ...)
{
    (void)session, (void)code;
}

static void every_class_has_a_text(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls, good = 1, first_bad = -1;

    for (int c = 0; c <= MPI_T_ERR_NOT_SUPPORTED; c++) {
        s[0] = 0;
        if (MPI_Error_string(c, s, &len) != MPI_SUCCESS || len < 10 || len != (int)strlen(s) ||
            strncmp(s, "MPI_", 4) || MPI_Error_class(c, &cls) || cls != c) {
            if (good)
                first_bad = c;
            good = 0;
        }
    }
    CHECK_TRUE(good, "every predefined class has a named, non-trivial text (first bad: %d)",
               first_bad);
    MPI_Error_string(MPI_T_ERR_INVALID_NAME, s, &len);
    CHECK_NE_PTR(strstr(s, "MPI_T_ERR_INVALID_NAME"), NULL, "the tool classes too: %s", s);
}

static void user_codes(void)
{
    char s[MPI_MAX_ERROR_STRING], big[MPI_MAX_ERROR_STRING + 1];
    int cls, code, code2, c, len, rc, *last, flag;

    rc = MPI_Add_error_class(&cls);
    CHECK_ALL ("MPI_Add_error_class gives a class above "
               "MPI_ERR_LASTCODE (%d)",
               cls) {
        CHECK_EQ_INT(rc, 0);
        CHECK_GT_LONG(cls, MPI_ERR_LASTCODE);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK_ALL ("MPI_LASTUSEDCODE follows (%d)", *last) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(*last, cls);
    }
    rc = MPI_Add_error_code(cls, &code);
    MPI_Error_class(code, &c);
    CHECK_ALL ("MPI_Add_error_code: its class is the user class") {
        CHECK_EQ_INT(rc, 0);
        CHECK_GT_LONG(code, cls);
        CHECK_EQ_INT(c, cls);
    }
    CHECK_EQ_INT(*last, code, "MPI_LASTUSEDCODE follows codes too");
    MPI_Error_class(cls, &c);
    CHECK_EQ_INT(c, cls, "a user class is its own class");
    rc = MPI_Add_error_code(MPI_ERR_ARG, &code2);
    MPI_Error_class(code2, &c);
    CHECK_ALL ("a code can belong to a predefined class") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(c, MPI_ERR_ARG);
    }

    MPI_Error_string(code, s, &len);
    CHECK_ALL ("a code without a string has the empty string") {
        CHECK_EQ_INT(len, 0);
        CHECK_EQ_INT(s[0], 0);
    }
    MPI_Add_error_string(code, "disk on fire");
    MPI_Error_string(code, s, &len);
    CHECK_ALL ("MPI_Add_error_string sets it: %s", s) {
        CHECK_EQ_STR(s, "disk on fire");
        CHECK_EQ_INT(len, 12);
    }
    MPI_Add_error_string(code, "disk cooled");
    MPI_Error_string(code, s, &len);
    CHECK_EQ_STR(s, "disk cooled", "and replaces it");
    MPI_Add_error_string(cls, "storage trouble");
    MPI_Error_string(cls, s, &len);
    CHECK_EQ_STR(s, "storage trouble", "classes have strings too");
    memset(big, 'x', MPI_MAX_ERROR_STRING);
    big[MPI_MAX_ERROR_STRING] = 0;
    rc = MPI_Add_error_string(code, big);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a string of MPI_MAX_ERROR_STRING chars is MPI_ERR_ARG");
    rc = MPI_Add_error_string(MPI_ERR_TRUNCATE, "mine");
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "predefined strings cannot be changed");
    rc = MPI_Add_error_code(MPI_ERR_LASTCODE + 100000, &c);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a code for an unknown class is MPI_ERR_ARG");
    rc = MPI_Add_error_code(code, &c);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a code is not a class");

    /* Removal goes string, code, class. */
    rc = MPI_Remove_error_class(cls);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a class with codes cannot be removed");
    rc = MPI_Remove_error_code(code);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a code with a string cannot be removed");
    CHECK_ALL ("string, then code, can be removed") {
        CHECK_EQ_INT(MPI_Remove_error_string(code), 0);
        CHECK_EQ_INT(MPI_Remove_error_code(code), 0);
    }
    rc = MPI_Error_class(code, &c);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a removed code is no longer a code");
    rc = MPI_Remove_error_string(code);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "removing a string twice is MPI_ERR_ARG");
    CHECK_ALL ("then the class") {
        CHECK_EQ_INT(MPI_Remove_error_string(cls), 0);
        CHECK_EQ_INT(MPI_Remove_error_class(cls), 0);
    }
    rc = MPI_Remove_error_class(MPI_ERR_ARG);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "predefined classes cannot be removed");
    rc = MPI_Remove_error_code(code2);
    CHECK_EQ_INT(rc, 0, "a code of a predefined class can be removed");
    MPI_Add_error_class(&c);
    CHECK_ALL ("values are not reused after removal (%d)", c) {
        CHECK_GT_LONG(c, code2);
        CHECK_EQ_INT(*last, c);
    }
    MPI_Remove_error_class(c);
    rc = MPI_Add_error_class(NULL);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a NULL errorclass is MPI_ERR_ARG");
}

static void handlers(void)
{
    MPI_Errhandler eh, weh, feh, seh, got;
    MPI_File fh;
    void *v;
    int rc, code, flag;

    MPI_Add_error_class(&code);
    MPI_Comm_create_errhandler(comm_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    calls = 0;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    CHECK_ALL ("MPI_Comm_call_errhandler passes the communicator and a user code") {
        CHECK_EQ_INT(calls, 1);
        CHECK_EQ_PTR(got_comm, MPI_COMM_WORLD);
        CHECK_EQ_INT(got_code, code);
    }
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 999999, &v, &flag);
    CHECK_ALL ("a library error runs it with the communicator and the class") {
        CHECK_EQ_INT(rc, MPI_ERR_KEYVAL);
        CHECK_EQ_INT(calls, 2);
        CHECK_EQ_PTR(got_comm, MPI_COMM_WORLD);
        CHECK_EQ_INT(got_code, MPI_ERR_KEYVAL);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    rc = MPI_Win_create_errhandler(win_handler, &weh);
    CHECK_EQ_INT(rc, 0, "MPI_Win_create_errhandler works");
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh);
    CHECK_EQ_INT(rc, MPI_ERR_ERRHANDLER,
                 "a window handler on a communicator is MPI_ERR_ERRHANDLER");
    rc = MPI_Win_set_errhandler(MPI_WIN_NULL, weh);
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_set_errhandler(MPI_WIN_NULL) is MPI_ERR_WIN");
    rc = MPI_Win_get_errhandler(MPI_WIN_NULL, &got);
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_get_errhandler too");
    rc = MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER);
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_call_errhandler too");

    rc = MPI_Session_create_errhandler(session_handler, &seh);
    CHECK_EQ_INT(rc, 0, "MPI_Session_create_errhandler works");
    rc = MPI_Session_set_errhandler(MPI_SESSION_NULL, seh);
    CHECK_EQ_INT(rc, MPI_ERR_SESSION,
                 "MPI_Session_set_errhandler(MPI_SESSION_NULL) is MPI_ERR_SESSION");
    rc = MPI_Session_call_errhandler(MPI_SESSION_NULL, MPI_ERR_OTHER);
    CHECK_EQ_INT(rc, MPI_ERR_SESSION, "MPI_Session_call_errhandler too");

    MPI_File_get_errhandler(MPI_FILE_NULL, &got);
    CHECK_EQ_PTR(got, MPI_ERRORS_RETURN, "the default file handler is MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&got);
    rc = MPI_File_create_errhandler(file_handler, &feh);
    CHECK_EQ_INT(rc, 0, "MPI_File_create_errhandler works");
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    CHECK_EQ_INT(rc, MPI_ERR_ERRHANDLER,
                 "a communicator handler on MPI_FILE_NULL is MPI_ERR_ERRHANDLER");
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, feh);
    MPI_File_get_errhandler(MPI_FILE_NULL, &got);
    CHECK_ALL ("MPI_File_set_errhandler(MPI_FILE_NULL) sets the default") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_PTR(got, feh);
    }
    MPI_Errhandler_free(&got);
    calls = 0;
    got_file = (MPI_File)1;
    MPI_File_call_errhandler(MPI_FILE_NULL, code);
    CHECK_ALL ("MPI_File_call_errhandler(MPI_FILE_NULL) runs it with the file and code") {
        CHECK_EQ_INT(calls, 1);
        CHECK_EQ_PTR(got_file, MPI_FILE_NULL);
        CHECK_EQ_INT(got_code, code);
    }
    rc = MPI_File_open(MPI_COMM_WORLD, "/nonexistent/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ALL ("file errors go to it (%d)", rc) {
        CHECK_NE_INT(rc, 0);
        CHECK_EQ_INT(calls, 2);
        CHECK_EQ_INT(got_code, rc);
    }
    rc = MPI_File_set_errhandler((MPI_File)not_a_file, feh);
    CHECK_ALL ("a handle that is not a file is MPI_ERR_FILE") {
        CHECK_EQ_INT(rc, MPI_ERR_FILE);
        CHECK_EQ_INT(calls, 3);
    }
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);

    CHECK_ALL ("MPI_Errhandler_free frees handlers of every kind") {
        CHECK_EQ_INT(MPI_Errhandler_free(&eh), 0);
        CHECK_EQ_INT(MPI_Errhandler_free(&weh), 0);
        CHECK_EQ_INT(MPI_Errhandler_free(&feh), 0);
        CHECK_EQ_INT(MPI_Errhandler_free(&seh), 0);
        CHECK_EQ_PTR(eh, MPI_ERRHANDLER_NULL);
    }
    rc = MPI_Errhandler_free(&eh);
    CHECK_EQ_INT(rc, MPI_ERR_ERRHANDLER, "freeing MPI_ERRHANDLER_NULL is MPI_ERR_ERRHANDLER");
    rc = MPI_Comm_create_errhandler(NULL, &eh);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a NULL handler function is MPI_ERR_ARG");
    MPI_Remove_error_class(code);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank)
        fclose(stdout);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    every_class_has_a_text();
    user_codes();
    handlers();
    MPI_Finalize();
    return done_testing();
}
