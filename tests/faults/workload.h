/* SPDX-License-Identifier: BSD-3-Clause */
/* A deterministic workload for the real-fault tests (tests/faults/): a seeded
 * sequence of modifications of a file or sparse frame, a model of the state
 * after each one, and a reader that turns a frame back into that model.
 *
 * Every stored byte tells what it is: chunk data starts with its tag and size
 * and the rest follows from the tag, vlmetalayers and the metalayer likewise.
 * So a frame read back can be checked byte for byte without knowing which
 * state it is in, and then compared with the model states by tags alone. */
#ifndef B2_FAULT_WORKLOAD_H
#define B2_FAULT_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "b2_frame.h"

#define WL_CHUNK 16384 /* bytes of an ordinary chunk */
#define WL_NVL 3       /* vlmetalayers "va", "vb", "vc" */
#define WL_META_LEN 8  /* metalayer "m": tag, ~tag */

/* One chunk of the model: tag 0 is a zeros chunk (special), others data. */
typedef struct wl_chunk {
    uint32_t tag;
    int32_t nbytes;
} wl_chunk;

typedef struct wl_state {
    int64_t n, cap;
    wl_chunk *c;
    uint32_t meta;         /* tag in metalayer "m" */
    uint32_t vl[WL_NVL];   /* tag of each vlmetalayer, 0 = absent */
} wl_state;

enum wl_kind {
    WL_APPEND, WL_APPEND_ZEROS, WL_INSERT, WL_UPDATE, WL_UPDATE_ZEROS, WL_DELETE,
    WL_REORDER, WL_META, WL_VLSET, WL_VLDEL, WL_COMPACT, WL_NKINDS
};
extern const char *const wl_kind_names[WL_NKINDS];

typedef struct wl_op {
    int kind;
    int64_t pos;    /* chunk position; WL_REORDER: rotation */
    uint32_t tag;   /* new chunk, metalayer or vlmetalayer tag */
    int32_t nbytes; /* new chunk size */
    int vl;         /* vlmetalayer number */
} wl_op;

/* Which operations a workload draws (weights, 0 = never) and whether chunk
 * sizes vary (which turns the frame's chunksize to 0 on the way). */
typedef struct wl_profile {
    int weight[WL_NKINDS];
    int varsize;
    int64_t target_chunks; /* deletes win over inserts above this */
    int32_t nbytes;        /* chunk size (<= WL_CHUNK) when sizes do not vary */
} wl_profile;
extern const wl_profile wl_all_ops;     /* every operation */
extern const wl_profile wl_append_only; /* appends, metalayer and vlmetalayer updates */

void wl_init(wl_state *st);
void wl_free(wl_state *st);
void wl_copy(wl_state *dst, const wl_state *src);
int wl_equal(const wl_state *a, const wl_state *b);
/* Operation number j (1-based) of a workload, drawn from state st. */
void wl_next(const wl_profile *p, uint64_t seed, int64_t j, const wl_state *st, wl_op *op);
/* Apply op to the model. */
void wl_apply(wl_state *st, const wl_op *op);
/* Perform op on s; returns the library's result (< 0: a B2_ERR_* code). */
int64_t wl_exec(b2_schunk *s, const wl_op *op);
/* Print a state on one line after a label (for messages). */
void wl_print(FILE *f, const char *label, const wl_state *st);
/* Describe op in buf (for messages). */
const char *wl_describe(const wl_op *op, char *buf, size_t cap);

/* Create the frame of state wl_init (metalayer "m" with tag 0), as a file or a
 * sparse directory; path must not exist. */
int wl_create(const char *path, int sparse, b2_schunk **out);
/* Read every chunk, the metalayer and the vlmetalayers of s into st, checking
 * every byte against what its tag says. Returns 0, a B2_ERR_* code from the
 * library, or 1 (content that is not what any tag says), with why in msg. */
int wl_observe(b2_schunk *s, wl_state *st, char *msg, size_t cap);
/* wl_observe on a frame opened read-only from path. */
int wl_observe_path(const char *path, wl_state *st, char *msg, size_t cap);

#endif
