/* Messages to the user: one line each, prefixed with the rank. */
#ifndef RT_LOG_H
#define RT_LOG_H

extern int rt_verbosity;

#define RT_PRINTF(a, b) __attribute__((format(printf, a, b)))

void rt_log_init(void);
/* Verbosity-gated information (level 1: what was chosen and why). */
void rt_info(int level, const char *fmt, ...) RT_PRINTF(2, 3);
/* Something the user should fix, but the job goes on. */
void rt_warn(const char *fmt, ...) RT_PRINTF(1, 2);
/* Print the message and end the whole job. */
_Noreturn void rt_fatal(const char *fmt, ...) RT_PRINTF(1, 2);

#endif
