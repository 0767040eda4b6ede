/* SPDX-License-Identifier: BSD-3-Clause */
/* Public inspection: what a buffer, file or directory holds (from signatures and
 * the frame header only, so tools can choose how to open it), and an open
 * frame's header fields and chunk table as the frame layer parsed them. HDF5
 * files are told by their signature alone: the library links no HDF5. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_internal.h"

/* ---- what bytes hold ---- */

/* The bytes being inspected: a buffer, or a file read with pread. */
typedef struct insp_src {
    const uint8_t *buf; /* NULL: read fd */
    int fd;
    int64_t len;
    const char *name;   /* for messages */
} insp_src;

/* Read exactly n bytes at pos (the caller keeps pos + n <= len). */
static int src_read(const insp_src *s, int64_t pos, void *dst, size_t n)
{
    if (s->buf) {
        memcpy(dst, s->buf + pos, n);
        return B2_OK;
    }
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(s->fd, (uint8_t *)dst + got, n - got, (off_t)(pos + (int64_t)got));
        if (r < 0 && errno == EINTR)
            continue;
        B2_FAIL_IF(r < 0, B2_ERR_IO, "%s: %s", s->name, strerror(errno));
        B2_FAIL_IF(r == 0, B2_ERR_TRUNCATED, "%s: ends at %lld while read", s->name,
                   (long long)(pos + (int64_t)got));
        got += (size_t)r;
    }
    return B2_OK;
}

static const uint8_t hdf5_sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* HDF5 looks for its superblock at 0 and at 512 times each power of two (a user
 * block may come first); this looks from 512 on. */
static int has_hdf5_signature_past_0(const insp_src *s)
{
    uint8_t b[8];
    for (int64_t off = 512; off <= s->len - 8; off *= 2)
        if (src_read(s, off, b, 8) == B2_OK && !memcmp(b, hdf5_sig, 8))
            return 1;
    return 0;
}

/* A frame is a fixarray whose first element is the fixstr "b2frame\0"
 * (doc/format/frame.md §2): ten bytes no chunk header starts with. */
static int has_frame_magic(const uint8_t *p, size_t n)
{
    if (n < 10) /* cut inside the magic: still a frame (a truncated one) */
        return n >= 1 && (p[0] & 0xf0) == 0x90 && (n < 2 || p[1] == 0xa8) &&
               (n < 3 || !memcmp(p + 2, FRAME_MAGIC, n - 2));
    return (p[0] & 0xf0) == 0x90 && p[1] == 0xa8 && !memcmp(p + 2, FRAME_MAGIC, 8);
}

/* Kind of a frame whose first bytes carry the magic: parse its header (fixed
 * part and metalayers) and look for the b2nd metalayer. *sparse gets the frame type. */
static int frame_kind(const insp_src *s, int *sparse)
{
    uint8_t fixed[FRAME_HEADER_FIXED];
    frame_hdr h;
    B2_FAIL_IF(s->len < FRAME_HEADER_FIXED, B2_ERR_TRUNCATED,
               "%s: %lld bytes start like a frame, whose header alone has %d", s->name,
               (long long)s->len, FRAME_HEADER_FIXED);
    int rc = src_read(s, 0, fixed, sizeof fixed);
    if (rc >= 0 && (rc = b2_frame_header_parse_fixed(fixed, &h)) < 0)
        rc = B2_PREFIX(rc, s->name);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(h.header_len > s->len, B2_ERR_TRUNCATED, "%s: %lld of the frame's %lld bytes",
               s->name, (long long)s->len, (long long)h.frame_len);
    if ((rc = b2_mem_check(0, h.header_len, "the frame's header", "b2_open_options.memory_limit")) < 0)
        return rc;
    uint8_t *hdr = malloc((size_t)h.header_len);
    if (!hdr)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    frame_meta meta[B2_FRAME_MAX_METALAYERS];
    int nmeta = 0, nd = 0;
    rc = src_read(s, 0, hdr, (size_t)h.header_len);
    if (rc >= 0 && (rc = b2_frame_meta_parse(hdr, h.header_len, meta, &nmeta)) < 0)
        rc = B2_PREFIX(rc, s->name);
    free(hdr);
    /* "caterva" is the b2nd metalayer's older name, which readers still accept */
    for (int i = 0; rc >= 0 && i < nmeta; i++)
        nd |= !strcmp(meta[i].name, "b2nd") || !strcmp(meta[i].name, "caterva");
    b2_frame_meta_free_all(meta, nmeta);
    if (rc < 0)
        return rc;
    *sparse = (h.frame_type & 0x0f) == FRAME_TYPE_SPARSE;
    return nd ? B2_KIND_B2ND : B2_KIND_FRAME;
}

/* Kind of the bytes of s; *sparse is set for frames. */
static int bytes_kind(const insp_src *s, int *sparse)
{
    uint8_t head[FRAME_HEADER_FIXED];
    size_t n = s->len < (int64_t)sizeof head ? (size_t)s->len : sizeof head;
    b2_chunk_info ci;
    *sparse = 0;
    B2_FAIL_IF(s->len <= 0, B2_ERR_TRUNCATED, "%s: empty", s->name);
    int rc = src_read(s, 0, head, n);
    if (rc < 0)
        return rc;
    if (n >= 8 && !memcmp(head, hdf5_sig, 8))
        return B2_KIND_HDF5;
    if (has_frame_magic(head, n))
        return frame_kind(s, sparse);
    /* A chunk's header has no magic: it must parse and its cbytes fill the input. */
    if (b2_chunk_get_info(head, n, &ci) == B2_OK && (int64_t)ci.cbytes == s->len)
        return B2_KIND_CHUNK;
    return has_hdf5_signature_past_0(s) ? B2_KIND_HDF5 : B2_KIND_UNKNOWN;
}

int b2_inspect_buffer(const void *buf, size_t len)
{
    B2_FAIL_IF(!buf && len, B2_ERR_INVALID_PARAM, "NULL buffer of %zu bytes", len);
    insp_src s = {.buf = buf, .fd = -1, .len = (int64_t)len, .name = "buffer"};
    int sparse;
    int kind = bytes_kind(&s, &sparse);
    B2_FAIL_IF(kind >= 0 && sparse, B2_ERR_FORMAT,
               "buffer: a sparse frame's chunks.b2frame (open its directory)");
    return kind;
}

/* Kind of the regular file path; dir_index: it is a directory's chunks.b2frame. */
static int file_kind(const char *path, int dir_index)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return B2_FAIL(errno == ENOENT ? B2_ERR_NOT_FOUND : B2_ERR_IO, "%s: %s", path,
                       strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return B2_FAIL(B2_ERR_IO, "%s: %s", path, strerror(e));
    }
    insp_src s = {.fd = fd, .len = (int64_t)st.st_size, .name = path};
    int sparse;
    int kind = bytes_kind(&s, &sparse);
    close(fd);
    if (kind < 0 || !dir_index) {
        B2_FAIL_IF(kind >= 0 && sparse, B2_ERR_FORMAT,
                   "%s: a sparse frame's chunks.b2frame (inspect its directory)", path);
        return kind;
    }
    if (kind == B2_KIND_B2ND && sparse)
        return B2_KIND_B2ND;
    return kind == B2_KIND_FRAME && sparse ? B2_KIND_SFRAME : B2_KIND_UNKNOWN;
}

int b2_inspect_path(const char *path)
{
    struct stat st;
    B2_FAIL_IF(!path, B2_ERR_INVALID_PARAM, "NULL path");
    if (stat(path, &st) != 0)
        return B2_FAIL(errno == ENOENT ? B2_ERR_NOT_FOUND : B2_ERR_IO, "%s: %s", path,
                       strerror(errno));
    if (S_ISREG(st.st_mode))
        return file_kind(path, 0);
    B2_FAIL_IF(!S_ISDIR(st.st_mode), B2_ERR_UNSUPPORTED,
               "%s: neither a regular file nor a directory (read it into memory)", path);
    /* A directory is a sparse frame when its chunks.b2frame is a sparse frame's index. */
    size_t n = strlen(path) + sizeof "/chunks.b2frame";
    char *index = malloc(n);
    if (!index)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    snprintf(index, n, "%s/chunks.b2frame", path);
    int kind = stat(index, &st) == 0 && S_ISREG(st.st_mode) ? file_kind(index, 1)
                                                             : B2_KIND_UNKNOWN;
    free(index);
    return kind;
}

const char *b2_kind_name(int kind)
{
    static const char *const names[] = {"unknown", "chunk", "cframe", "sframe", "b2nd", "hdf5"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : NULL;
}

/* ---- an open frame ---- */

int b2_schunk_frame_info(b2_schunk *s, b2_frame_info *info)
{
    B2_FAIL_IF(!s || !info, B2_ERR_INVALID_PARAM, "NULL %s", s ? "info" : "super-chunk");
    const frame_hdr *h = &s->head.h;
    memset(info, 0, sizeof *info);
    info->storage = s->io.storage;
    info->header_len = h->header_len;
    info->frame_len = h->frame_len;
    info->version = h->general_flags & 0x0f;
    info->sparse = (h->frame_type & 0x0f) == FRAME_TYPE_SPARSE;
    info->general_flags = h->general_flags;
    info->frame_type = h->frame_type;
    info->codec_flags = h->codec_flags;
    info->other_flags = h->other_flags;
    info->other_flags2 = h->other_flags2;
    /* codec ids from 6 on do not fit the nibble: 6 says "see byte 77" */
    info->codec = (h->codec_flags & 0x0f) == 6 ? h->udcodec : (h->codec_flags & 0x0f);
    info->codec_meta = h->compcode_meta;
    info->clevel = h->codec_flags >> 4;
    info->splitmode = (h->other_flags & 3) + 1;
    info->use_dict = h->other_flags2 & 1;
    memcpy(info->filters, h->filters, sizeof info->filters);
    memcpy(info->filters_meta, h->filters_meta, sizeof info->filters_meta);
    info->blocksize = h->blocksize;
    info->typesize = h->typesize;
    info->chunksize = h->chunksize;
    info->tcomp = h->tcomp;
    info->tdecomp = h->tdecomp;
    info->has_vlmeta = h->has_vlmeta;
    info->nbytes = h->nbytes;
    info->cbytes = h->cbytes;
    info->nchunks = s->ix.nchunks;
    info->nmetalayers = s->head.nmeta;
    info->nvlmetalayers = s->head.nvlmeta;
    info->trailer_len = s->head.trailer_len;
    /* an unreadable chunk header leaves the rest of the answer useful */
    info->dead_bytes = b2_schunk_dead_bytes(s);
    return B2_OK;
}

static int frame_entry_body(b2_schunk *s, int64_t i, b2_frame_entry *e)
{
    b2_chunk_info ci;
    int sp;
    B2_FAIL_IF(!e, B2_ERR_INVALID_PARAM, "NULL entry");
    memset(e, 0, sizeof *e);
    int rc = b2_schunk_chunk_header(s, i, &ci, &sp);
    if (rc < 0)
        return rc;
    e->raw = frame_entry(s, i);
    if (sp) {
        int32_t nb = b2_schunk_special_nbytes(s, i);
        if (nb < 0)
            return nb;
        e->kind = B2_ENTRY_SPECIAL;
        e->offset = -1;
        e->special = sp;
        e->cbytes = B2_HEADER_LEN; /* the chunk the entry stands for */
        e->nbytes = nb;
        return B2_OK;
    }
    e->kind = s->io.place->chunk_files ? B2_ENTRY_FILE : B2_ENTRY_OFFSET;
    e->offset = e->raw;
    e->special = ci.special;
    e->stored_bytes = e->cbytes = ci.cbytes;
    e->nbytes = ci.nbytes;
    return B2_OK;
}

int b2_schunk_frame_entry(b2_schunk *s, int64_t i, b2_frame_entry *e)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "NULL super-chunk");
    return B2_KEEP(&s->err, frame_entry_body(s, i, e));
}
