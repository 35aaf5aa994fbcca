/* log — timestamped, levelled lines on stderr. */
#include "log.h"
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static const char *const level_names[] = {"DEBUG", "INFO", "WARN", "ERROR"};

void log_msg(log_level_t lvl, const char *fmt, ...)
{
    char line[1024];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    n += snprintf(line + n, sizeof line - (size_t)n, ".%03ldZ %s ", ts.tv_nsec / 1000000L,
                  level_names[lvl <= LOG_ERROR ? lvl : LOG_ERROR]);
    va_list ap;
    va_start(ap, fmt);
    if (n < (int)sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* one write per line so concurrent threads never interleave inside it */
    fprintf(stderr, "%s\n", line);
}

int log_every(log_every_t *e, unsigned long long now_ms, unsigned long long interval_ms,
              unsigned *held)
{
    if (e->started && now_ms - e->last_ms < interval_ms) {
        e->held++;
        return 0;
    }
    *held = e->held;
    e->held = 0;
    e->last_ms = now_ms;
    e->started = 1;
    return 1;
}
