/* log — one line per event on stderr: "2026-11-22T05:45:22.123Z INFO what".
 * Callers never pass secrets (passwords) to it. Thread-safe (one fprintf). */
#ifndef WARREN_LOG_H
#define WARREN_LOG_H

typedef enum { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR } log_level_t;

void log_msg(log_level_t lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

/* A line that may repeat fast (a flood's refusals, an accept error) is
 * logged at most once per interval: log_every says whether now is the time
 * and how many were held back since the last line. Zero-initialise it. */
typedef struct {
    unsigned long long last_ms; /* when a line was last allowed */
    unsigned held;              /* occurrences since then */
    int started;
} log_every_t;

/* True when a line may be logged at now_ms (then *held is how many
 * occurrences were held back before this one); false counts one more. */
int log_every(log_every_t *e, unsigned long long now_ms, unsigned long long interval_ms,
              unsigned *held);

#endif
