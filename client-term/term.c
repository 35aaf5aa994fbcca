/* term: raw mode for the user's terminal and the restore that must always
 * happen. See term.h. */
#include "term.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* Process-wide on purpose: atexit() and signal handlers take no argument. */
static struct termios saved_tio;
static int saved_fd = -1;
static volatile sig_atomic_t raw_on;
static int hooks_installed;

/* Signals that end the process without running atexit(): restore the
 * terminal, then die of the same signal so the exit status stays honest. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};

static void term_fatal_handler(int sig)
{
    term_restore();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void term_install_hooks(void)
{
    if (hooks_installed)
        return;
    hooks_installed = 1;
    atexit(term_restore);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_DFL)
            continue; /* someone (a sanitizer) handles it already */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = term_fatal_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

int term_raw_enter(int fd)
{
    struct termios tio;
    if (!isatty(fd))
        return -ENOTTY;
    if (tcgetattr(fd, &tio) < 0)
        return -errno;
    saved_tio = tio;
    saved_fd = fd;
    term_install_hooks();
    /* The same choices as ssh's raw mode: the remote side does all echo,
     * editing and signal keys; bytes pass through unchanged both ways. */
    tio.c_iflag |= IGNPAR;
    tio.c_iflag &= ~(ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXANY | IXOFF | BRKINT);
    tio.c_lflag &= ~(ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHONL | IEXTEN);
    tio.c_oflag &= ~OPOST;
    tio.c_cflag |= CS8;
    tio.c_cc[VMIN] = 1;
    tio.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSADRAIN, &tio) < 0)
        return -errno;
    raw_on = 1;
    return 0;
}

void term_restore(void)
{
    if (!raw_on || saved_fd < 0)
        return;
    raw_on = 0;
    /* TCSANOW: a hung-up or stopped output must not keep us waiting. */
    tcsetattr(saved_fd, TCSANOW, &saved_tio);
}

int term_get_size(int fd, unsigned *cols, unsigned *rows)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) < 0)
        return -errno;
    if (ws.ws_col == 0 || ws.ws_row == 0)
        return -EINVAL;
    *cols = ws.ws_col;
    *rows = ws.ws_row;
    return 0;
}
