/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON output: a streaming writer (json.c), msgpack values as JSON (mpjson.c). */
#ifndef B2CLI_JSON_H
#define B2CLI_JSON_H

#include "b2cli.h"

/* A minimal streaming writer for one flat or nested JSON object. */
typedef struct b2cli_json {
    FILE *f;
    int depth;
    int need_comma;
} b2cli_json;
void b2cli_json_begin(b2cli_json *j, FILE *f);          /* writes "{" */
void b2cli_json_end(b2cli_json *j);                     /* writes "}\n" */
void b2cli_json_str(b2cli_json *j, const char *key, const char *val); /* NULL -> null */
void b2cli_json_int(b2cli_json *j, const char *key, int64_t val);
void b2cli_json_num(b2cli_json *j, const char *key, double val);
void b2cli_json_bool(b2cli_json *j, const char *key, int val);
/* Nested objects (key NULL inside an array); pair with b2cli_json_object_end. */
void b2cli_json_object_begin(b2cli_json *j, const char *key);
void b2cli_json_object_end(b2cli_json *j);
/* Start a member (key NULL inside an array) whose value the caller writes itself
 * to the returned stream (e.g. msgpack converted to JSON). */
FILE *b2cli_json_raw(b2cli_json *j, const char *key);
/* Arrays of values (key NULL inside an array); pair with b2cli_json_array_end. */
void b2cli_json_array_begin(b2cli_json *j, const char *key);
void b2cli_json_array_int(b2cli_json *j, int64_t val);
void b2cli_json_array_str(b2cli_json *j, const char *val);
void b2cli_json_array_end(b2cli_json *j);
/* Write s as a JSON string literal (quotes and escapes included). */
void b2cli_json_write_string(FILE *f, const char *s);

/* Write n bytes as a JSON string (valid UTF-8 kept, other bytes as \u00XX). */
void b2cli_json_write_mem(FILE *f, const void *p, size_t n);
/* Write n bytes as lowercase hex digits. */
void b2cli_write_hex(FILE *f, const void *p, size_t n);
/* When data is exactly one msgpack value, write it as JSON and return 1;
 * otherwise write nothing and return 0. */
int b2cli_msgpack_to_json(FILE *f, const void *data, size_t len);

#endif
