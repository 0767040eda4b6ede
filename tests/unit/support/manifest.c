/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal recursive-descent JSON parser for the test suite (see manifest.h). */
#include "manifest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *p, *end; int depth; } jparser;

static void skip_ws(jparser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int parse_value(jparser *ps, jnode *out);
static void free_inner(jnode *n);

static char *parse_string(jparser *ps)
{
    if (ps->p >= ps->end || *ps->p != '"')
        return NULL;
    ps->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (s && ps->p < ps->end && *ps->p != '"') {
        unsigned c = (unsigned char)*ps->p++;
        if (c == '\\' && ps->p < ps->end) {
            char e = *ps->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                for (int i = 0; i < 4 && ps->p < ps->end; i++) {
                    char h = *ps->p++;
                    v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                }
                c = v < 0x80 ? v : '?'; /* tests only need ASCII */
                break;
            }
            default: c = (unsigned char)e;
            }
        }
        if (n + 2 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                return NULL;
            }
            s = t;
        }
        s[n++] = (char)c;
    }
    if (!s || ps->p >= ps->end) {
        free(s);
        return NULL;
    }
    ps->p++;
    s[n] = 0;
    return s;
}

static int add_kid(jnode *out, jnode *kid, size_t *cap)
{
    if (out->nkids == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        jnode *t = realloc(out->kids, nc * sizeof *t);
        if (!t)
            return -1;
        out->kids = t;
        *cap = nc;
    }
    out->kids[out->nkids++] = *kid;
    return 0;
}

static int parse_container(jparser *ps, jnode *out, char close)
{
    size_t cap = 0;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        jnode kid;
        memset(&kid, 0, sizeof kid);
        skip_ws(ps);
        if (close == '}') {
            if (!(kid.key = parse_string(ps)))
                return -1;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':') {
                free(kid.key);
                return -1;
            }
        }
        if (parse_value(ps, &kid) < 0 || add_kid(out, &kid, &cap) < 0) {
            free_inner(&kid);
            return -1;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        return -1;
    }
}

static int parse_value(jparser *ps, jnode *out)
{
    skip_ws(ps);
    if (ps->p >= ps->end || ++ps->depth > 200)
        return -1;
    int r = 0;
    char c = *ps->p;
    if (c == '{') {
        out->type = J_OBJ;
        r = parse_container(ps, out, '}');
    } else if (c == '[') {
        out->type = J_ARR;
        r = parse_container(ps, out, ']');
    } else if (c == '"') {
        out->type = J_STR;
        r = (out->str = parse_string(ps)) ? 0 : -1;
    } else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        out->type = J_BOOL;
        out->num = c == 't';
        ps->p += c == 't' ? 4 : 5;
    } else if (!strncmp(ps->p, "null", 4)) {
        out->type = J_NULL;
        ps->p += 4;
    } else {
        char *e;
        out->type = J_NUM;
        out->num = strtod(ps->p, &e);
        if (e == ps->p)
            r = -1;
        ps->p = e;
    }
    ps->depth--;
    return r;
}

jnode *json_parse(const char *text, size_t len)
{
    jparser ps = {text, text + len, 0};
    jnode *root = calloc(1, sizeof *root);
    if (!root)
        return NULL;
    if (parse_value(&ps, root) < 0) {
        json_free(root);
        return NULL;
    }
    return root;
}

unsigned char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *len = (size_t)n;
    }
    return b;
}

jnode *json_load(const char *path)
{
    size_t n;
    char *t = (char *)test_read_file(path, &n);
    if (!t)
        return NULL;
    jnode *r = json_parse(t, n);
    free(t);
    return r;
}

/* Frees what n owns (not n itself, which may live in a parent's array). */
static void free_inner(jnode *n)
{
    for (size_t i = 0; i < n->nkids; i++)
        free_inner(&n->kids[i]);
    free(n->kids);
    free(n->str);
    free(n->key);
    memset(n, 0, sizeof *n);
}

void json_free(jnode *n)
{
    if (n) {
        free_inner(n);
        free(n);
    }
}

const jnode *json_get(const jnode *o, const char *key)
{
    if (!o || o->type != J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->nkids; i++)
        if (!strcmp(o->kids[i].key, key))
            return &o->kids[i];
    return NULL;
}

const jnode *json_path(const jnode *o, const char *path)
{
    char buf[256];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof buf)
            return NULL;
        memcpy(buf, path, n);
        buf[n] = 0;
        o = json_get(o, buf);
        path += n + (dot ? 1 : 0);
    }
    return o;
}

double json_num(const jnode *o, const char *path, double dflt)
{
    const jnode *n = json_path(o, path);
    return n && (n->type == J_NUM || n->type == J_BOOL) ? n->num : dflt;
}

const char *json_str(const jnode *o, const char *path, const char *dflt)
{
    const jnode *n = json_path(o, path);
    return n && n->type == J_STR ? n->str : dflt;
}

int json_bool(const jnode *o, const char *path, int dflt)
{
    const jnode *n = json_path(o, path);
    return n && (n->type == J_BOOL || n->type == J_NUM) ? n->num != 0 : dflt;
}

/* $B2_INTEROP_DIR/<sub>manifest.json, or NULL after a SKIP line. */
static jnode *load_manifest(const char *sub)
{
    const char *dir = getenv("B2_INTEROP_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%smanifest.json", dir ? dir : "", sub);
    jnode *man = dir ? json_load(path) : NULL;
    if (!man)
        printf("SKIP: %s not found (B2_INTEROP_DIR=%s)\n", path, dir ? dir : "(unset)");
    return man;
}

jnode *test_interop_manifest(void) { return load_manifest(""); }

jnode *test_plugin_manifest(void) { return load_manifest("plugins/"); }

const char *test_plugin_path(const jnode *v, const char *field, char *buf, size_t cap)
{
    const char *dir = getenv("B2_INTEROP_DIR");
    snprintf(buf, cap, "%s/plugins/%s", dir ? dir : ".", json_str(v, field, ""));
    return buf;
}
