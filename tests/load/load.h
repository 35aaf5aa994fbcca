/* load — what warren-load's two halves share: the run (load.c: options,
 * ramp-up, pacing, figures) and one telnet session (sess.c: the stream,
 * what the session sees and what it types). A tool, not a library: the
 * run owns every session and both halves read each other's fields as
 * marked below. */
#ifndef WARREN_LOAD_H
#define WARREN_LOAD_H

#include <libtelnet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <uv.h>
#include "vt.h"

typedef struct load load_t;

typedef enum {
    SS_IDLE,   /* not connected yet */
    SS_MENU,   /* connected, working through the menus to a game */
    SS_PLAY,   /* a player in its game, or a watcher watching */
    SS_FAILED, /* closed: never got to play, or lost */
} sess_state_t;

typedef struct {
    /* set by load.c before sess_start */
    load_t *L;
    int idx;
    bool watcher;
    int target; /* a watcher's player (--watched) */
    char name[24];
    /* written by sess.c, read by load.c */
    sess_state_t state;
    bool reached;                 /* has played (or watched) once */
    bool in_ramp;                 /* counted in load_t.inflight */
    uint64_t progress_ns;         /* last frame while in the menus */
    uint64_t typed_ns;            /* last keys sent */
    uint64_t sent_ns;             /* when the key awaiting its frame went out; 0: none */
    bool measured;                /* that key went out inside the measured window */
    unsigned acked;               /* keys of its current game answered (--acked) */
    uint64_t frame_ns, frame_seq; /* a player's last answer, for its watchers */
    uint64_t key_ns;              /* when the key of that answer went out */
    bool paused;                  /* its game shows the storage notice: no keys */
    /* written by load.c */
    uint64_t late_due; /* a key fell due then while one was out: sent on the answer */
    /* written by sess.c, acted on by load.c's sweep through sess_retry */
    uint64_t retry_ns; /* the daemon was busy: register again from then (0: no) */
    /* --reconnect, sess.c's: a player dropped after it played comes back */
    bool rejoining;     /* from the drop until its game's frame again */
    int rejoin_tries;   /* connections of this return that closed early */
    uint64_t rejoin_ns; /* connect again from then (0: not waiting) */
    uint64_t rejoin_t0; /* when the return's connection began */
    uint64_t play_ns;   /* its last 'p' while returning */
    /* private to sess.c */
    uv_tcp_t tcp;
    uv_connect_t creq;
    telnet_t *tn;
    bool open, framed, picked;
    bool leaving; /* a watcher typed q: no other key until the menu */
    bool opted;   /* the turn counter was turned on (the options menu) */
    int acted, tries, busy, actions;
    unsigned keyno;
    int dir;      /* --hosted: the last move's direction (index in sess.c's MOVES) */
    uint32_t sig; /* --hosted: the menu screen last answered (a hash of its rows) */
    uint64_t seen_seq;
    uint64_t gone_ns; /* a watcher: when its game went from under it (0: not gone) */
    vt_t vt;
} sess_t;

typedef struct {
    uint64_t *v;
    size_t n, cap;
} samples_t;

/* One second of the measured window, by when its keys went out: how
 * many, how many slow, the slowest, and the load tool's own longest
 * pause between two ticks then (its loop busy: not the daemon's doing). */
typedef struct {
    uint64_t keys, over5ms, over50ms, max_ns, tick_gap_ns;
} second_t;

typedef struct {
    const char *host, *tag, *term, *acked, *hosted;
    const char *watch_host; /* the watchers' daemon, when not host's (another node) */
    const char *bind;       /* --bind: first source address of the sessions' spread */
    int port, n, m, watched, inflight, pid, saturate, help, reconnect, bind_count, in_step;
    double seconds, warmup, interval, key_timeout, ramp_timeout, detach_all;
} load_opts_t;

typedef enum { PH_RAMP, PH_RUN, PH_DRAIN, PH_DETACH, PH_DONE } phase_t;

struct load {
    load_opts_t o;
    uv_loop_t *loop;
    struct sockaddr_in addr;
    sess_t *s;
    int total;
    phase_t phase;
    /* ramp-up */
    int next_start, inflight, ready, failed, dropped, reported, busy;
    uint64_t ramp_t0, ramp_ns;
    /* the run: key times and counts (keys sent inside the window) */
    uint64_t t0, t_meas, t_end, interval_ns, cur_k;
    int cur_i, outstanding;
    bool kicked;
    uint64_t sent, answered, late, unanswered, skipped, games_ended;
    uint64_t noanswer;       /* --hosted: keys that drew nothing before the next fell due */
    uint64_t answers;        /* --hosted: keys that answered NetHack (--More--, questions) */
    uint64_t in_doubt, held; /* keys out when a game paused; keys due while paused */
    samples_t lat, wdel;
    second_t *secs; /* the window's seconds (report: the timeline) */
    size_t nsecs;
    uint64_t last_tick;
    samples_t wkey; /* a watcher's frame, timed from its player's key */
    /* --reconnect: time from a return's connection to its game's frame */
    samples_t resume;
    /* a watcher's return: from its game going to that game's screen again */
    samples_t wback;
    uint64_t rejoined, told, rejoin_new; /* returns done; told "another server"; new games */
    uint64_t watch_ends;                 /* watchers sent back to the menus */
    uint64_t watch_nudges;               /* watchers whose screen stood still: acted again */
    int rejoining;
    /* SIGUSR1 (a mark): each samples' length at the last mark */
    size_t mark_lat, mark_wkey, mark_wdel, mark_resume, mark_wback;
    int marks;
    uv_signal_t usr1;
    struct sockaddr_in baddr; /* --bind */
    struct sockaddr_in waddr; /* --watch-host */
    /* --detach-all: player 0 keys on while every other session closes */
    uint64_t detach_end, stall_ns, detach_keys;
    long rss0, rss_end;
    /* the daemon's CPU (clock ticks, all threads) at t_meas and t_end; -1: not yet */
    long long cpu_meas, cpu_end;
    uv_timer_t tick, sweep;
    char rbuf[65536]; /* every read lands here and is consumed at once */
};

/* sess.c */
void sess_start(sess_t *s); /* connect; the menus follow by themselves */
/* The next game key, timed; due: when it was meant to go (0: now), which
 * decides whether it belongs to the measured window. */
void sess_key(sess_t *s, uint64_t due);
void sess_fail(sess_t *s, const char *why);
void sess_close(sess_t *s);
void sess_retry(sess_t *s); /* registers again after a busy refusal */
/* --reconnect, from the sweep: connects a dropped player again when its
 * time comes, and presses p again when told its game runs elsewhere. */
void sess_tick(sess_t *s, uint64_t now);
bool sess_following(const sess_t *s);             /* a watcher watching its own player's game */
void sess_print_screen(const sess_t *s, FILE *f); /* its non-blank rows */

/* load.c: what a session tells the run */
void load_playing(load_t *L, sess_t *s);           /* in play (or watching), first time or again */
void load_failed(load_t *L, sess_t *s);            /* after sess_fail */
void load_answered(load_t *L, sess_t *s);          /* a key's frame came and s still plays */
void load_detach_answer(load_t *L, uint64_t took); /* --detach-all: player 0's key took ns */
void samples_push(samples_t *a, uint64_t v);
void load_timed(load_t *L, uint64_t sent, uint64_t took); /* a measured key's answer */

#endif
