/* SPDX-License-Identifier: BSD-3-Clause */
/* A tiny JSON writer: enough for `b2 info --json` style flat objects with
 * arrays. Strings are escaped per RFC 8259 (control bytes as \u00XX). */
#include <math.h>
#include <string.h>

#include "b2cli.h"
#include "json.h"

void b2cli_json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

static void sep(b2cli_json *j)
{
    if (j->need_comma)
        fputs(", ", j->f);
    j->need_comma = 1;
}

static void key(b2cli_json *j, const char *k)
{
    sep(j);
    b2cli_json_write_string(j->f, k);
    fputs(": ", j->f);
}

void b2cli_json_begin(b2cli_json *j, FILE *f)
{
    j->f = f;
    j->depth = 1;
    j->need_comma = 0;
    fputc('{', f);
}

void b2cli_json_end(b2cli_json *j)
{
    fputs("}\n", j->f);
    j->depth = 0;
}

void b2cli_json_str(b2cli_json *j, const char *k, const char *val)
{
    key(j, k);
    if (val)
        b2cli_json_write_string(j->f, val);
    else
        fputs("null", j->f);
}

void b2cli_json_int(b2cli_json *j, const char *k, int64_t val)
{
    key(j, k);
    fprintf(j->f, "%lld", (long long)val);
}

void b2cli_json_num(b2cli_json *j, const char *k, double val)
{
    key(j, k);
    if (isfinite(val))
        fprintf(j->f, "%.6g", val);
    else
        fputs("null", j->f); /* JSON has no inf/nan */
}

void b2cli_json_bool(b2cli_json *j, const char *k, int val)
{
    key(j, k);
    fputs(val ? "true" : "false", j->f);
}

/* A NULL key means "a value inside an array". */
static void key_or_sep(b2cli_json *j, const char *k)
{
    if (k)
        key(j, k);
    else
        sep(j);
}

void b2cli_json_object_begin(b2cli_json *j, const char *k)
{
    key_or_sep(j, k);
    fputc('{', j->f);
    j->need_comma = 0;
    j->depth++;
}

void b2cli_json_object_end(b2cli_json *j)
{
    fputc('}', j->f);
    j->depth--;
    j->need_comma = 1;
}

FILE *b2cli_json_raw(b2cli_json *j, const char *k)
{
    key_or_sep(j, k);
    return j->f;
}

void b2cli_json_array_begin(b2cli_json *j, const char *k)
{
    key_or_sep(j, k);
    fputc('[', j->f);
    j->need_comma = 0;
    j->depth++;
}

void b2cli_json_array_int(b2cli_json *j, int64_t val)
{
    sep(j);
    fprintf(j->f, "%lld", (long long)val);
}

void b2cli_json_array_str(b2cli_json *j, const char *val)
{
    sep(j);
    if (val)
        b2cli_json_write_string(j->f, val);
    else
        fputs("null", j->f);
}

void b2cli_json_array_end(b2cli_json *j)
{
    fputc(']', j->f);
    j->depth--;
    j->need_comma = 1;
}
