/* term: the user's terminal for the `warren` client.
 *
 * Puts the controlling terminal (stdin) into raw mode and puts it back
 * exactly as it was on every way out: a normal return, exit(), a fatal
 * signal. The saved settings live in this module (one terminal per
 * process), which is what lets the restore run from atexit() and from a
 * signal handler; term_restore() only calls async-signal-safe functions.
 */
#ifndef WARREN_CLIENT_TERM_H
#define WARREN_CLIENT_TERM_H

/* Saves the settings of fd and switches it to raw mode (no echo, no line
 * editing, no signal keys, no output processing). Installs the atexit and
 * fatal-signal restore hooks the first time. Returns 0, or -errno (for
 * example -ENOTTY when fd is not a terminal: nothing is changed then). */
int term_raw_enter(int fd);

/* Restores the saved settings if raw mode is on; safe to call any number of
 * times and from a signal handler. */
void term_restore(void);

/* Window size of fd in cells. Returns 0, or -errno when fd is not a
 * terminal or reports a zero size. */
int term_get_size(int fd, unsigned *cols, unsigned *rows);

#endif
