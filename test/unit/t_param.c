/* Parameters: defaults, environment overrides, size suffixes, booleans. */
#include "param.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>

RT_PARAM(p_int, "TEST_INT", RT_PARAM_INT, "42", "an integer")
RT_PARAM(p_size, "TEST_SIZE", RT_PARAM_SIZE, "4k", "a size")
RT_PARAM(p_bool, "TEST_BOOL", RT_PARAM_BOOL, "auto", "a boolean")
RT_PARAM(p_str, "TEST_STR", RT_PARAM_STRING, "sm,self", "a string")

int main(void)
{
    int found = 0;

    plan(14);
    unsetenv("RDMPI_TEST_INT");
    CHECK_EQ_LONG(rt_param_int(&p_int), 42, "integer default");
    setenv("RDMPI_TEST_INT", "0x10", 1);
    CHECK_EQ_LONG(rt_param_int(&p_int), 16, "integer from the environment, hex accepted");
    CHECK_EQ_LONG(rt_param_size(&p_size), 4096, "size default 4k");
    setenv("RDMPI_TEST_SIZE", "64K", 1);
    CHECK_EQ_LONG(rt_param_size(&p_size), 65536, "size 64K");
    setenv("RDMPI_TEST_SIZE", "1mb", 1);
    CHECK_EQ_LONG(rt_param_size(&p_size), 1048576, "size 1mb");
    setenv("RDMPI_TEST_SIZE", "2G", 1);
    CHECK_EQ_LONG(rt_param_size(&p_size), 2147483648UL, "size 2G");
    CHECK_EQ_INT(rt_param_bool(&p_bool), -1, "boolean auto is -1");
    setenv("RDMPI_TEST_BOOL", "on", 1);
    CHECK_EQ_INT(rt_param_bool(&p_bool), 1, "boolean on");
    setenv("RDMPI_TEST_BOOL", "No", 1);
    CHECK_EQ_INT(rt_param_bool(&p_bool), 0, "boolean No");
    CHECK_EQ_STR(rt_param_string(&p_str), "sm,self", "string default");
    setenv("RDMPI_TEST_STR", "", 1);
    CHECK_EQ_STR(rt_param_string(&p_str), "sm,self", "empty value means the default");
    {
        long long v = 0;

        CHECK_ALL ("malformed values are refused without a fatal error (for MPI_T writes)") {
            CHECK_EQ_INT(rt_param_parse(&p_int, "12x", &v), -1);
            CHECK_EQ_INT(rt_param_parse(&p_size, "-1", &v), -1);
            CHECK_EQ_INT(rt_param_parse(&p_bool, "maybe", &v), -1);
        }
        CHECK_ALL ("valid values parse; the text is the environment's") {
            CHECK_EQ_INT(rt_param_parse(&p_size, "2k", &v), 0);
            CHECK_EQ_LONG(v, 2048);
            CHECK_EQ_INT(rt_param_parse(&p_bool, "AUTO", &v), 0);
            CHECK_EQ_LONG(v, -1);
            CHECK_EQ_STR(rt_param_text(&p_int), "0x10");
        }
    }
    for (const struct rt_param *p = rt_param_list(); p; p = p->next)
        found += !strncmp(p->name, "TEST_", 5);
    CHECK_EQ_INT(found, 4, "all four parameters are listed (%d)", found);
    return tap_failed != 0;
}
