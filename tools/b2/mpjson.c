/* SPDX-License-Identifier: BSD-3-Clause */
/* Metalayer contents shown as JSON: msgpack (what b2nd and most writers store)
 * is converted value by value with msgpack-c; anything else is shown as hex.
 * Binary strings and extension values have no JSON form and become hex strings
 * ({"ext": type, "hex": ...} for extensions). */
#define _POSIX_C_SOURCE 200809L
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "json.h"

/* Length of the valid UTF-8 sequence starting at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t need;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0 && s[0] >= 0xC2)
        need = 2;
    else if ((s[0] & 0xF0) == 0xE0)
        need = 3;
    else if ((s[0] & 0xF8) == 0xF0 && s[0] <= 0xF4)
        need = 4;
    else
        return 0;
    if (need > n)
        return 0;
    for (size_t i = 1; i < need; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return need;
}

void b2cli_json_write_mem(FILE *f, const void *p, size_t n)
{
    const unsigned char *s = p;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t l = utf8_len(s + i, n - i);
        if (l > 1) {
            fwrite(s + i, 1, l, f);
            i += l;
            continue;
        }
        i++;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c); /* invalid UTF-8 bytes read as Latin-1 */
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void b2cli_write_hex(FILE *f, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", s[i]);
}

static void hex_string(FILE *f, const void *p, size_t n)
{
    fputc('"', f);
    b2cli_write_hex(f, p, n);
    fputc('"', f);
}

static void write_obj(FILE *f, const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: fputs("null", f); break;
    case MSGPACK_OBJECT_BOOLEAN: fputs(o->via.boolean ? "true" : "false", f); break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: fprintf(f, "%llu", (unsigned long long)o->via.u64); break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: fprintf(f, "%lld", (long long)o->via.i64); break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        if (o->via.f64 == o->via.f64 && o->via.f64 - o->via.f64 == 0)
            fprintf(f, "%.17g", o->via.f64);
        else
            fputs("null", f); /* JSON has no inf/nan */
        break;
    case MSGPACK_OBJECT_STR: b2cli_json_write_mem(f, o->via.str.ptr, o->via.str.size); break;
    case MSGPACK_OBJECT_BIN: hex_string(f, o->via.bin.ptr, o->via.bin.size); break;
    case MSGPACK_OBJECT_EXT:
        fprintf(f, "{\"ext\": %d, \"hex\": ", (int)o->via.ext.type);
        hex_string(f, o->via.ext.ptr, o->via.ext.size);
        fputc('}', f);
        break;
    case MSGPACK_OBJECT_ARRAY:
        fputc('[', f);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i)
                fputs(", ", f);
            write_obj(f, &o->via.array.ptr[i]);
        }
        fputc(']', f);
        break;
    case MSGPACK_OBJECT_MAP:
        fputc('{', f);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (i)
                fputs(", ", f);
            if (kv->key.type == MSGPACK_OBJECT_STR) {
                write_obj(f, &kv->key);
            } else {
                /* JSON keys are strings: render the key as JSON text, then quote that. */
                char *buf = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&buf, &len);
                if (m) {
                    write_obj(m, &kv->key);
                    fclose(m);
                    b2cli_json_write_mem(f, buf, len);
                }
                free(buf);
            }
            fputs(": ", f);
            write_obj(f, &kv->val);
        }
        fputc('}', f);
        break;
    default: fputs("null", f);
    }
}

int b2cli_msgpack_to_json(FILE *f, const void *data, size_t len)
{
    msgpack_unpacked u;
    size_t off = 0;
    int ok;
    if (len == 0)
        return 0;
    msgpack_unpacked_init(&u);
    /* Exactly one complete value filling the buffer counts as msgpack. */
    ok = msgpack_unpack_next(&u, data, len, &off) == MSGPACK_UNPACK_SUCCESS && off == len;
    if (ok)
        write_obj(f, &u.data);
    msgpack_unpacked_destroy(&u);
    return ok;
}
