/* SPDX-License-Identifier: BSD-3-Clause */
/* User I/O backends for the frame tests (user_io.h). */
#include "user_io.h"

#include <stdlib.h>
#include <string.h>

/* ---- one growable buffer ---- */

static int64_t mb_read(void *u, int64_t pos, void *dst, size_t n)
{
    test_membuf *b = u;
    if (b->fail_reads)
        return -5;
    if ((uint64_t)pos >= b->len)
        return 0;
    size_t k = b->len - (size_t)pos < n ? b->len - (size_t)pos : n;
    memcpy(dst, b->p + pos, k);
    return (int64_t)k;
}

static int64_t mb_write(void *u, int64_t pos, const void *src, size_t n)
{
    test_membuf *b = u;
    if (b->fail_write_at >= 0 && b->writes++ >= b->fail_write_at)
        return -28;
    size_t end = (size_t)pos + n;
    if (end > b->cap) {
        uint8_t *p = realloc(b->p, end * 2);
        if (!p)
            return -1;
        memset(p + b->cap, 0, end * 2 - b->cap);
        b->p = p;
        b->cap = end * 2;
    }
    if ((size_t)pos > b->len) /* a hole reads as zeros */
        memset(b->p + b->len, 0, (size_t)pos - b->len);
    memcpy(b->p + pos, src, n);
    if (end > b->len)
        b->len = end;
    return (int64_t)n;
}

static int64_t mb_size(void *u) { return (int64_t)((test_membuf *)u)->len; }

static int mb_truncate(void *u, int64_t len)
{
    test_membuf *b = u;
    if ((uint64_t)len < b->len)
        b->len = (size_t)len;
    return 0;
}

static void mb_close(void *u) { ((test_membuf *)u)->closed++; }

const b2_io test_membuf_io = {mb_read, mb_write, mb_size, mb_truncate, NULL, mb_close};

/* ---- a hash map of pages (open addressing, linear probing) ---- */

#define PAGE 4096

typedef struct page {
    int64_t no; /* -1: empty slot */
    uint8_t *data;
} page;

struct test_pagemap {
    page *slot;
    int64_t cap, used, len; /* len: the frame's length in bytes */
};

test_pagemap *test_pagemap_new(void)
{
    test_pagemap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 64;
    m->slot = malloc((size_t)m->cap * sizeof *m->slot);
    for (int64_t i = 0; m->slot && i < m->cap; i++)
        m->slot[i] = (page){-1, NULL};
    if (!m->slot) {
        free(m);
        return NULL;
    }
    return m;
}

void test_pagemap_free(test_pagemap *m)
{
    if (!m)
        return;
    for (int64_t i = 0; i < m->cap; i++)
        free(m->slot[i].data);
    free(m->slot);
    free(m);
}

int64_t test_pagemap_pages(const test_pagemap *m) { return m->used; }

static page *find(page *slot, int64_t cap, int64_t no)
{
    uint64_t h = (uint64_t)no * 0x9E3779B97F4A7C15ull;
    for (int64_t i = (int64_t)(h % (uint64_t)cap);; i = (i + 1) % cap)
        if (slot[i].no == no || slot[i].no == -1)
            return &slot[i];
}

/* The page numbered no, made (zeroed) when create is set; NULL if absent. */
static uint8_t *page_at(test_pagemap *m, int64_t no, int create)
{
    page *p = find(m->slot, m->cap, no);
    if (p->no == no || !create)
        return p->no == no ? p->data : NULL;
    if (2 * (m->used + 1) > m->cap) { /* grow at half full */
        int64_t cap = m->cap * 2;
        page *slot = malloc((size_t)cap * sizeof *slot);
        if (!slot)
            return NULL;
        for (int64_t i = 0; i < cap; i++)
            slot[i] = (page){-1, NULL};
        for (int64_t i = 0; i < m->cap; i++)
            if (m->slot[i].no >= 0)
                *find(slot, cap, m->slot[i].no) = m->slot[i];
        free(m->slot);
        m->slot = slot;
        m->cap = cap;
        p = find(m->slot, m->cap, no);
    }
    p->data = calloc(1, PAGE);
    if (!p->data)
        return NULL;
    p->no = no;
    m->used++;
    return p->data;
}

static int64_t pm_read(void *u, int64_t pos, void *dst, size_t n)
{
    test_pagemap *m = u;
    if (pos >= m->len)
        return 0;
    if ((int64_t)n > m->len - pos)
        n = (size_t)(m->len - pos);
    for (size_t done = 0; done < n;) {
        int64_t at = pos + (int64_t)done, off = at % PAGE;
        size_t k = PAGE - (size_t)off < n - done ? PAGE - (size_t)off : n - done;
        const uint8_t *pg = page_at(m, at / PAGE, 0);
        if (pg)
            memcpy((uint8_t *)dst + done, pg + off, k);
        else
            memset((uint8_t *)dst + done, 0, k);
        done += k;
    }
    return (int64_t)n;
}

static int64_t pm_write(void *u, int64_t pos, const void *src, size_t n)
{
    test_pagemap *m = u;
    for (size_t done = 0; done < n;) {
        int64_t at = pos + (int64_t)done, off = at % PAGE;
        size_t k = PAGE - (size_t)off < n - done ? PAGE - (size_t)off : n - done;
        uint8_t *pg = page_at(m, at / PAGE, 1);
        if (!pg)
            return -1;
        memcpy(pg + off, (const uint8_t *)src + done, k);
        done += k;
    }
    if (pos + (int64_t)n > m->len)
        m->len = pos + (int64_t)n;
    return (int64_t)n;
}

static int64_t pm_size(void *u) { return ((test_pagemap *)u)->len; }

/* Pages wholly past the new end go; the rest of a cut page reads as zeros. */
static int pm_truncate(void *u, int64_t len)
{
    test_pagemap *m = u;
    if (len >= m->len)
        return 0;
    for (int64_t i = 0; i < m->cap; i++) {
        page *p = &m->slot[i];
        if (p->no < 0 || (p->no + 1) * PAGE <= len)
            continue;
        if (p->no * PAGE >= len) { /* rehash-free removal: keep the slot, zero the page */
            memset(p->data, 0, PAGE);
        } else {
            memset(p->data + len % PAGE, 0, PAGE - (size_t)(len % PAGE));
        }
    }
    m->len = len;
    return 0;
}

const b2_io test_pagemap_io = {pm_read, pm_write, pm_size, pm_truncate, NULL, NULL};

/* ---- counting ---- */

static int64_t ct_read(void *u, int64_t pos, void *dst, size_t n)
{
    test_counted *c = u;
    int64_t r = c->io->read(c->user, pos, dst, n);
    c->reads++;
    c->read_bytes += r > 0 ? r : 0;
    return r;
}

static int64_t ct_write(void *u, int64_t pos, const void *src, size_t n)
{
    test_counted *c = u;
    int64_t r = c->io->write ? c->io->write(c->user, pos, src, n) : -1;
    c->writes++;
    c->write_bytes += r > 0 ? r : 0;
    return r;
}

static int64_t ct_size(void *u)
{
    test_counted *c = u;
    return c->io->size(c->user);
}

static int ct_truncate(void *u, int64_t len)
{
    test_counted *c = u;
    return c->io->truncate ? c->io->truncate(c->user, len) : 0;
}

const b2_io test_counted_io = {ct_read, ct_write, ct_size, ct_truncate, NULL, NULL};
