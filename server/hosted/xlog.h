/* xlog — one row of a NetHack-style xlogfile, or of Crawl's logfile: the
 * record a game appends when a game ends, for importing hosted games'
 * scores.
 *
 * A row is key=value fields separated by tabs (NetHack 3.6 and later);
 * a row with no tab is split at ':', where "::" is a ':' of a value
 * (Crawl's logfile; NetHack 3.4's values hold no ':'). Crawl's keys fill
 * the same fields (sc: points, cls: role, turn: turns, dur: realtime,
 * start and end: its local times YYYYMMDDHHMMSS with the month from 0,
 * then S or D, as Unix seconds); its end (ktyp, killer, or tmsg where a
 * version writes it) becomes death. Unknown keys are ignored; a key given twice keeps its last
 * value. Text values are cut to their fields at a character's end and
 * are UTF-8: control characters (C0, DEL, C1), bidirectional controls and
 * bytes that are not UTF-8 become '?', since pages and lists show them.
 * Numbers are decimal; conduct, achieve and flags may be hex ("0x...").
 * A row needs name, points (or sc) and death (or ktyp or tmsg), else it
 * is an error.
 * No allocation, no state of its own (Crawl's times go through mktime,
 * in the machine's time zone, as Crawl wrote them). */
#ifndef WARREN_XLOG_H
#define WARREN_XLOG_H
#include <stddef.h>
#include <stdint.h>

#define XLOG_LINE_MAX 4096

typedef struct {
    char version[16]; /* "3.6.6" */
    char name[32];
    char role[24], race[24];         /* "Val", "Hum"; Crawl's "Fighter", "Hill Orc" */
    char gender[16], align[16];      /* "Fem", "Neu" */
    char gender0[16], align0[16];    /* at the start of the game */
    char death[256];                 /* "killed by a jackal" */
    char while_[128];                /* "while helpless" (3.7) */
    int64_t points, turns, realtime; /* realtime: seconds played */
    int64_t starttime, endtime;      /* Unix seconds */
    int64_t deathdate, birthdate;    /* YYYYMMDD */
    int64_t deathdnum, deathlev, maxlvl, hp, maxhp, deaths, uid;
    uint64_t conduct, achieve, flags;
    char ktyp[32], killer[96]; /* Crawl's: how the game ended, by whom */
} xlog_row_t;

/* Parses one row (len bytes, a trailing newline allowed; no NUL needed).
 * Returns 0, or -1 with a reason in err (row is then unspecified). */
int xlog_parse(const char *line, size_t len, xlog_row_t *row, char *err, size_t errlen);

#endif
