/* SPDX-License-Identifier: BSD-3-Clause */
/* The compression options `b2 compress` and `b2 convert` share: --codec,
 * --codec-meta, --clevel, --blocksize, --splitmode, --threads, --filter,
 * --filters, --filters-meta, --dict.
 *
 * Filter placement: the chunk has 6 pipeline slots, applied in order 0..5.
 * Repeated --filter options are right-aligned so the last one lands in slot 5
 * (the reference's default puts shuffle in slot 5, and its tools place filters
 * the same way). --filters/--filters-meta give all 6 slots explicitly. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "compress.h"

/* Split a comma-separated list of exactly 6 items into out[]; modifies s. */
static int split6(char *s, char *out[6])
{
    int n = 0;
    for (char *tok = s;; n++) {
        char *comma = strchr(tok, ',');
        if (n == 6)
            return -1;
        out[n] = tok;
        if (!comma)
            break;
        *comma = '\0';
        tok = comma + 1;
    }
    return n == 5 ? 0 : -1;
}

/* Split mode from its name; -1 when unknown. */
static int parse_splitmode(const char *s)
{
    if (!strcmp(s, "always")) return B2_SPLIT_ALWAYS;
    if (!strcmp(s, "never")) return B2_SPLIT_NEVER;
    if (!strcmp(s, "auto")) return B2_SPLIT_AUTO;
    if (!strcmp(s, "forward-compat") || !strcmp(s, "forward_compat")) return B2_SPLIT_FORWARD_COMPAT;
    return -1;
}

/* Parse one --filter value NAME[:META] into o. Returns 0 or an exit code. */
static int add_filter(const char *cmd, b2cli_cparam_opts *o, const char *val)
{
    char name[64];
    const char *colon = strchr(val, ':');
    size_t n = colon ? (size_t)(colon - val) : strlen(val);
    int64_t meta = 0;
    int id;
    if (n >= sizeof name)
        return b2cli_usage_error(cmd, "unknown filter '%s'", val);
    memcpy(name, val, n);
    name[n] = '\0';
    id = b2cli_filter_id(name);
    if (id < 0)
        return b2cli_usage_error(cmd, "unknown filter '%s'", name);
    if (colon && b2cli_parse_int(colon + 1, -128, 255, 0, &meta) < 0)
        return b2cli_usage_error(cmd, "filter meta '%s' is not a number -128..255", colon + 1);
    if (id == B2_FILTER_TRUNC_PREC && !colon)
        return b2cli_usage_error(cmd, "trunc_prec needs a precision: --filter trunc_prec:BITS");
    if (id == B2_FILTER_INT_TRUNC && !colon)
        return b2cli_usage_error(cmd, "int_trunc needs a bit count: --filter int_trunc:BITS");
    if ((id == B2_FILTER_NDCELL || id == B2_FILTER_NDMEAN) && !colon)
        return b2cli_usage_error(cmd, "%s needs a cell side: --filter %s:N", b2_filter_name(id),
                                 b2_filter_name(id));
    if (id == B2_FILTER_BYTEDELTA_BUGGY)
        return b2cli_usage_error(cmd, "bytedelta_buggy (34) is only read; use bytedelta (35)");
    if (id == B2_FILTER_NONE) {
        o->nfilter = 0; /* "none" clears the list: no filter at all */
        return 0;
    }
    if (o->nfilter == B2_MAX_FILTERS)
        return b2cli_usage_error(cmd, "at most %d filters", B2_MAX_FILTERS);
    o->fid[o->nfilter] = (uint8_t)id;
    o->fmeta[o->nfilter] = (uint8_t)(int)meta;
    o->nfilter++;
    return 0;
}

/* Parse --filters or --filters-meta (is_meta): exactly 6 comma-separated
 * filter names or numbers into out. Returns 0 or an exit code. */
static int parse_list6(const char *cmd, const char *opt, const char *val, int is_meta, uint8_t out[6])
{
    char buf[256], *items[6];
    if (strlen(val) >= sizeof buf)
        return b2cli_usage_error(cmd, "%s: value too long", opt);
    strcpy(buf, val);
    if (split6(buf, items) < 0)
        return b2cli_usage_error(cmd, "%s wants exactly 6 comma-separated values", opt);
    for (int i = 0; i < 6; i++) {
        if (is_meta) {
            int64_t v;
            if (b2cli_parse_int(items[i], -128, 255, 0, &v) < 0)
                return b2cli_usage_error(cmd, "%s: '%s' is not a number -128..255", opt, items[i]);
            out[i] = (uint8_t)(int)v;
        } else {
            int id = b2cli_filter_id(items[i]);
            if (id < 0)
                return b2cli_usage_error(cmd, "%s: unknown filter '%s'", opt, items[i]);
            out[i] = (uint8_t)id;
        }
    }
    return 0;
}

void b2cli_cparam_opts_init(b2cli_cparam_opts *o)
{
    memset(o, 0, sizeof *o);
    b2_cparams_init(&o->p);
}

int b2cli_cparam_opt(const char *cmd, b2cli_cparam_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    int64_t n;
    int rc;
    if (!strcmp(a, "--dict")) {
        o->p.use_dict = 1;
        o->given = 1;
        return 0;
    }
#define VALUE(name) if (!(v = b2cli_opt_value(cmd, argc, argv, i, name))) return B2CLI_EXIT_USAGE
    if (b2cli_opt_is(a, "--codec")) {
        VALUE("--codec");
        if ((o->p.codec = b2cli_codec_id(v)) < 0)
            return b2cli_usage_error(cmd, "unknown codec '%s'", v);
    } else if (b2cli_opt_is(a, "--codec-meta")) {
        VALUE("--codec-meta");
        if (b2cli_parse_int(v, -128, 255, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--codec-meta wants -128..255, not '%s'", v);
        o->p.codec_meta = (uint8_t)(int)n;
    } else if (b2cli_opt_is(a, "--clevel")) {
        VALUE("--clevel");
        if (b2cli_parse_int(v, 0, 9, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--clevel wants 0..9, not '%s'", v);
        o->p.clevel = (int)n;
    } else if (b2cli_opt_is(a, "--blocksize")) {
        VALUE("--blocksize");
        if (b2cli_parse_int(v, 0, B2_MAX_BLOCKSIZE, 1, &n) < 0)
            return b2cli_usage_error(cmd, "--blocksize wants 0..%d, not '%s'", B2_MAX_BLOCKSIZE, v);
        o->p.blocksize = (int32_t)n;
    } else if (b2cli_opt_is(a, "--splitmode")) {
        VALUE("--splitmode");
        if ((o->p.splitmode = parse_splitmode(v)) < 0)
            return b2cli_usage_error(cmd, "unknown split mode '%s'", v);
    } else if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
        VALUE("--threads");
        if (b2cli_parse_int(v, 1, 256, 0, &n) < 0)
            return b2cli_usage_error(cmd, "--threads wants 1..256, not '%s'", v);
        o->p.nthreads = (int)n;
        return 0; /* threads do not change what is written */
    } else if (b2cli_opt_is(a, "--filter")) {
        VALUE("--filter");
        if ((rc = add_filter(cmd, o, v)) != 0)
            return rc;
        o->filter_opt = 1;
    } else if (b2cli_opt_is(a, "--filters-meta")) {
        VALUE("--filters-meta");
        if ((rc = parse_list6(cmd, "--filters-meta", v, 1, o->p.filters_meta)) != 0)
            return rc;
        o->explicit_meta = 1;
    } else if (b2cli_opt_is(a, "--filters")) {
        VALUE("--filters");
        if ((rc = parse_list6(cmd, "--filters", v, 0, o->p.filters)) != 0)
            return rc;
        o->explicit_filters = 1;
    } else {
        return -1;
    }
#undef VALUE
    o->given = 1;
    return 0;
}

int b2cli_cparam_opts_finish(const char *cmd, b2cli_cparam_opts *o)
{
    if (o->explicit_filters && o->filter_opt)
        return b2cli_usage_error(cmd, "use either --filter or --filters, not both");
    if (o->explicit_meta && !o->explicit_filters)
        return b2cli_usage_error(cmd, "--filters-meta goes with --filters; use --filter NAME:META");
    if (o->explicit_filters && !o->explicit_meta)
        memset(o->p.filters_meta, 0, sizeof o->p.filters_meta);
    if (o->filter_opt) {
        /* --filter list (possibly empty after "none") right-aligned; no option at
         * all keeps the default from b2_cparams_init (shuffle in slot 5). */
        memset(o->p.filters, 0, sizeof o->p.filters);
        memset(o->p.filters_meta, 0, sizeof o->p.filters_meta);
        for (int k = 0; k < o->nfilter; k++) {
            int slot = B2_MAX_FILTERS - o->nfilter + k;
            o->p.filters[slot] = o->fid[k];
            o->p.filters_meta[slot] = o->fmeta[k];
        }
    }
    return 0;
}

