/* hostfiles — a bundle of a player's hosted files (their save, level and
 * lock files, their rc file), as copied between a player's directory and
 * the database so that a hosted game outlives the node that ran it.
 *
 * A bundle is bytes, little-endian whatever the machine:
 *     "WHF1"        magic
 *     u32 count     files that follow, at most HOSTFILES_FILES_MAX
 *     per file:  u16 path length, path (no NUL), u32 size, size bytes
 * A path is relative to the player's directory: names separated by one
 * '/', each 1..HOSTFILES_NAME_MAX bytes of [A-Za-z0-9._+-], never "." or
 * "..", at most HOSTFILES_DEPTH names and HOSTFILES_PATH_MAX bytes. The
 * player's directory is written by the hosted program (hostile), and a
 * bundle comes back from the database into it: both ends check every path
 * (hostfiles_path_ok) and every size against the caller's cap.
 *
 * Pure: building grows a caller-owned buffer (hostfiles_buf_free), reading
 * borrows the bytes read; but for the memfd calls at the end. */
#ifndef WARREN_HOSTFILES_H
#define WARREN_HOSTFILES_H
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTFILES_MAGIC     "WHF1"
#define HOSTFILES_FILES_MAX 512 /* files in one bundle */
#define HOSTFILES_PATH_MAX  200 /* bytes of a path */
#define HOSTFILES_NAME_MAX  100 /* bytes of one name in it */
#define HOSTFILES_DEPTH     6   /* names in a path */
#define HOSTFILES_HEAD      8   /* magic and count */
/* entries a walk of a player's directory for a bundle looks at, at most
 * (files, directories, links: 8 times the files it may hold): past it
 * the directory is more than a bundle holds, however few are files */
#define HOSTFILES_WALK_MAX  4096

/* Whether path (len bytes) is a path a bundle may hold. */
bool hostfiles_path_ok(const char *path, size_t len);

/* A bundle being built: at most max bytes in all. */
typedef struct {
    uint8_t *p;     /* owned: hostfiles_buf_free */
    size_t len;     /* bytes built */
    size_t cap;     /* bytes allocated */
    size_t max;     /* the cap on len */
    uint32_t count; /* files added */
} hostfiles_buf_t;

/* An empty bundle (its header) of at most max bytes: 0, or -1 (no memory). */
int hostfiles_buf_init(hostfiles_buf_t *b, size_t max);
void hostfiles_buf_free(hostfiles_buf_t *b);
/* Adds the file path with its data (len bytes). Returns 0; -1 with err
 * for a bad path, too many files, or past max bytes (b unchanged). */
int hostfiles_add(hostfiles_buf_t *b, const char *path, const void *data, size_t len, char *err,
                  size_t errlen);
/* Bytes one file of path_len and len bytes takes in a bundle. */
size_t hostfiles_cost(size_t path_len, size_t len);

/* One file read from a bundle: borrowed from its bytes. */
typedef struct {
    char path[HOSTFILES_PATH_MAX + 1];
    const uint8_t *data;
    size_t len;
} hostfiles_file_t;

typedef struct {
    const uint8_t *p;
    size_t len, off;
    uint32_t left; /* files not read yet */
} hostfiles_reader_t;

/* Reads the header of buf (len bytes, borrowed while r is used): 0 with
 * *count, or -1 with err (no magic, more than HOSTFILES_FILES_MAX files,
 * len over max). */
int hostfiles_open(hostfiles_reader_t *r, const void *buf, size_t len, size_t max, uint32_t *count,
                   char *err, size_t errlen);
/* The next file into f: 1, 0 at the end (nothing may trail the last), or
 * -1 with err (a bad path, a size past the end, bytes trailing). */
int hostfiles_next(hostfiles_reader_t *r, hostfiles_file_t *f, char *err, size_t errlen);
/* Every file of buf checked: 0 with *count, or -1 with err. */
int hostfiles_check(const void *buf, size_t len, size_t max, uint32_t *count, char *err,
                    size_t errlen);

/* ---- a bundle in a memfd, as it passes between warrend and its spawner ---- */

/* The seals a bundle's memfd carries once written (made with
 * MFD_ALLOW_SEALING): whoever else holds it can neither shrink it under
 * a mapping (the mapper's SIGBUS) nor change it after it was checked. */
#define HOSTFILES_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

/* A new memfd for a bundle (sealable, close-on-exec): its descriptor, or -1. */
int hostfiles_memfd(void);
/* fd (a bundle's memfd, written) sealed: 0, or -1 with errno. */
int hostfiles_seal(int fd);
/* fd's bytes mapped read-only (*len of them, munmap them): NULL with err
 * when it is not a regular file of at least one byte carrying every
 * seal of HOSTFILES_SEALS (an unsealed one could shrink under the map). */
void *hostfiles_map(int fd, size_t *len, char *err, size_t errlen);

#endif
