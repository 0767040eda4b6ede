/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages, timing, option parsing and file helpers shared by the subcommands. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2cli.h"

int b2cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    const char *prog = strncmp(cmd, "b2", 2) ? "b2 " : ""; /* "b2bench" is a program */
    fprintf(stderr, "%s%s: ", prog, cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see '%s%s --help')\n", prog, cmd);
    return B2CLI_EXIT_USAGE;
}

/* Remove from msg the first later copy of what ("name: "), if any. */
static void drop_copy(char *msg, const char *what, size_t from)
{
    size_t n = strlen(what);
    char *dup = strlen(msg) > from ? strstr(msg + from, what) : NULL;
    if (n && dup)
        memmove(dup, dup + n, strlen(dup + n) + 1);
}

/* b2: FILE: message, each part once (the library's message may name the
 * file, or the chunk the caller names, again). */
int b2cli_data_error(const char *file, const char *fmt, ...)
{
    va_list ap;
    char msg[2048], named[1024];
    const char *name = strcmp(file, "-") ? file : "(stdin)";
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(named, sizeof named, "%s: ", name);
    drop_copy(msg, named, 0);
    const char *colon = strstr(msg, ": "); /* "chunk 3: ...: chunk 3: ..." */
    if (colon && colon - msg < 64) {
        char lead[80];
        snprintf(lead, sizeof lead, "%.*s", (int)(colon - msg + 2), msg);
        drop_copy(msg, lead, strlen(lead));
    }
    fprintf(stderr, "b2: %s%s\n", named, msg);
    return B2CLI_EXIT_DATA;
}

const char *b2cli_err(int rc)
{
    return rc < 0 && b2_last_error_code() == rc ? b2_last_error_message() : b2_strerror(rc);
}

/* id's name, else "user <kind> N" in the user range, else NULL. */
static const char *label(const char *name, const char *kind, int id, char *buf, size_t cap)
{
    if (name)
        return name;
    if (id < B2_USER_ID_FIRST || id > B2_USER_ID_LAST)
        return NULL;
    snprintf(buf, cap, "user %s %d", kind, id);
    return buf;
}

const char *b2cli_codec_label(int id, char *buf, size_t cap)
{
    return label(b2_codec_name(id), "codec", id, buf, cap);
}

const char *b2cli_filter_label(int id, char *buf, size_t cap)
{
    return label(b2_filter_name(id), "filter", id, buf, cap);
}

/* A name as typed, '-' read as '_' ("zfp-acc" is zfp_acc). */
static void underscores(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        buf[i] = s[i] == '-' ? '_' : s[i];
    buf[i] = '\0';
}

int b2cli_codec_id(const char *s)
{
    char name[64];
    int64_t v;
    if (b2cli_parse_int(s, 0, 255, 0, &v) == 0)
        return (int)v;
    underscores(s, name, sizeof name);
    int id = b2_codec_from_name(name);
    return id < 0 ? -1 : id;
}

int b2cli_filter_id(const char *s)
{
    char name[64];
    int64_t v;
    if (!strcmp(s, "none"))
        return B2_FILTER_NONE;
    if (b2cli_parse_int(s, 0, 255, 0, &v) == 0)
        return (int)v;
    underscores(s, name, sizeof name);
    int id = b2_filter_from_name(name);
    return id < 0 ? -1 : id;
}

const char *b2cli_plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

int b2cli_is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

double b2cli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double b2cli_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int b2cli_parse_int(const char *s, int64_t lo, int64_t hi, int allow_suffix, int64_t *out)
{
    char *end;
    long long v;
    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (allow_suffix && *end) {
        int shift = 0;
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return -1;
        }
        end++;
        if (v > (INT64_MAX >> shift) || v < -(INT64_MAX >> shift))
            return -1;
        v *= (long long)1 << shift;
    }
    if (*end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int b2cli_opt_is(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return !strncmp(arg, opt, n) && (arg[n] == '\0' || arg[n] == '=');
}

const char *b2cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *opt)
{
    const char *eq = strchr(argv[*i], '=');
    if (eq)
        return eq + 1;
    if (*i + 1 >= argc) {
        b2cli_usage_error(cmd, "option %s needs a value", opt);
        return NULL;
    }
    return argv[++*i];
}

/* Read a stream of unknown length (pipe, stdin) by doubling a buffer. */
static int read_stream(FILE *f, uint8_t **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return B2_ERR_NOMEM;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *nb;
            if (cap > SIZE_MAX / 2) {
                free(buf);
                return B2_ERR_NOMEM;
            }
            nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return B2_ERR_NOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                return B2_ERR_IO;
            }
            break;
        }
    }
    *data = buf;
    *size = n;
    return B2_OK;
}

int b2cli_read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f;
    struct stat st;
    int rc;

    *data = NULL;
    *size = 0;
    if (!strcmp(path, "-")) {
        rc = read_stream(stdin, data, size);
        if (rc < 0)
            b2cli_data_error(path, "cannot read: %s", b2cli_err(rc));
        return rc;
    }
    f = fopen(path, "rb");
    if (!f) {
        b2cli_data_error(path, "cannot open: %s", strerror(errno));
        return B2_ERR_IO;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        b2cli_data_error(path, "is a directory");
        return B2_ERR_IO;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        size_t n = (size_t)st.st_size;
        uint8_t *buf = malloc(n ? n : 1);
        if (!buf) {
            fclose(f);
            b2cli_data_error(path, "out of memory reading %zu bytes", n);
            return B2_ERR_NOMEM;
        }
        if (fread(buf, 1, n, f) != n) {
            free(buf);
            fclose(f);
            b2cli_data_error(path, "read error");
            return B2_ERR_IO;
        }
        *data = buf;
        *size = n;
        rc = B2_OK;
    } else {
        rc = read_stream(f, data, size);
        if (rc < 0)
            b2cli_data_error(path, "cannot read: %s", b2cli_err(rc));
    }
    fclose(f);
    return rc;
}

int b2cli_write_all(FILE *f, const void *data, size_t size)
{
    return fwrite(data, 1, size, f) == size ? B2_OK : B2_ERR_IO;
}

int b2cli_write_zeros(FILE *f, size_t size)
{
    static const uint8_t zeros[1 << 16];
    while (size > 0) {
        size_t n = size < sizeof zeros ? size : sizeof zeros;
        if (fwrite(zeros, 1, n, f) != n)
            return B2_ERR_IO;
        size -= n;
    }
    return B2_OK;
}

int b2cli_out_open(b2cli_outfile *o, const char *path)
{
    int fd;
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return B2_OK;
    }
    o->path = strdup(path);
    o->tmp = malloc(strlen(path) + 16);
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        b2cli_data_error(path, "out of memory");
        return B2_ERR_NOMEM;
    }
    /* The temporary file sits in the target's directory so rename() stays atomic. */
    sprintf(o->tmp, "%s.tmp.XXXXXX", path);
    fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        b2cli_data_error(path, "cannot create temporary file: %s", strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->path);
        free(o->tmp);
        return B2_ERR_IO;
    }
    return B2_OK;
}

int b2cli_out_commit(b2cli_outfile *o)
{
    int rc = B2_OK;
    if (!o->tmp) {
        if (fflush(o->f) != 0)
            rc = B2_ERR_IO;
        if (rc < 0)
            b2cli_data_error("-", "write error on stdout");
        return rc;
    }
    /* mkstemp creates the file 0600; give it the usual permissions. */
    {
        mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fileno(o->f), 0666 & ~mask) != 0)
            rc = B2_ERR_IO;
    }
    if (fflush(o->f) != 0 || ferror(o->f))
        rc = B2_ERR_IO;
    if (fclose(o->f) != 0)
        rc = B2_ERR_IO;
    o->f = NULL;
    if (rc == B2_OK && rename(o->tmp, o->path) != 0)
        rc = B2_ERR_IO;
    if (rc < 0) {
        b2cli_data_error(o->path, "write failed: %s", strerror(errno));
        unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return rc;
}

void b2cli_out_abort(b2cli_outfile *o)
{
    if (!o->tmp)
        return;
    if (o->f)
        fclose(o->f);
    unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    o->path = o->tmp = NULL;
}

int b2cli_parse_dims(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out, int *n)
{
    char buf[512], *tok, *save = NULL;
    *n = 0;
    if (!strcmp(val, "") || !strcmp(val, "scalar") || !strcmp(val, "()"))
        return 0;
    if (strlen(val) >= sizeof buf)
        return b2cli_usage_error(cmd, "%s: value too long", opt);
    strcpy(buf, val);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == B2_ND_MAX_DIM)
            return b2cli_usage_error(cmd, "%s: at most %d dimensions", opt, B2_ND_MAX_DIM);
        if (b2cli_parse_int(tok, lo, hi, 0, &out[*n]) < 0)
            return b2cli_usage_error(cmd, "%s: '%s' is not a number %lld..%lld", opt, tok,
                                     (long long)lo, (long long)hi);
        (*n)++;
    }
    return 0;
}

char *b2cli_temp_name(const char *out)
{
    size_t n = strlen(out) + 32;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s.tmp.%ld", out, (long)getpid());
    return t;
}

void b2cli_temp_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    /* a sparse frame: chunks.b2frame and NNNNNNNN.chunk files only (ids may have
     * gaps); a directory holding anything else stays */
    DIR *d = opendir(path);
    char *p = malloc(strlen(path) + 300);
    struct dirent *e;
    while (d && p && (e = readdir(d))) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        int chunk = len == 14 && !strcmp(n + 8, ".chunk") && strspn(n, "0123456789ABCDEF") == 8;
        if (chunk || !strcmp(n, "chunks.b2frame")) {
            snprintf(p, strlen(path) + 300, "%s/%s", path, n);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    free(p);
    rmdir(path);
}

int b2cli_temp_commit(const char *tmp, const char *out)
{
    if (rename(tmp, out) != 0) {
        b2cli_data_error(out, "cannot rename the finished output into place: %s", strerror(errno));
        b2cli_temp_remove(tmp);
        return B2_ERR_IO;
    }
    return B2_OK;
}

/* ---- frames ---- */

int b2cli_frame_open(const char *path, int64_t offset, int flags, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.offset = offset;
    o.flags = flags;
    return b2_schunk_open_with(&o, out);
}

int b2cli_frame_open_buffer(const void *buf, size_t len, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = len ? buf : ""; /* an empty buffer still names the source */
    o.buffer_len = len;
    return b2_schunk_open_with(&o, out);
}

int b2cli_frame_create(const char *path, int sparse, const b2_cparams *cp, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.sparse = sparse;
    o.cparams = cp;
    return b2_schunk_open_with(&o, out);
}
