/* SPDX-License-Identifier: BSD-3-Clause */
/* Byte-exact check of the BloscLZ codec against c-blosc2's output: walks the
 * reference chunks in $B2_INTEROP_DIR/chunks, parses them directly (doc/format/chunk.md
 * §3-5, independent of our chunk layer), decodes every BloscLZ stream and
 * re-encodes the result with the chunk's clevel, requiring identical bytes.
 *
 * maxout: c-blosc2 gives the codec min(neblock, destsize - ntbytes) (doc/format/chunk.md
 * §13.5) with destsize = nbytes + 32 for these vectors. We first try
 * maxout = neblock and, if that differs, the lowered value; both outcomes are
 * counted separately so a real mismatch cannot hide. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_common.h"
#include "codecs.h"
#include "manifest.h"

/* Ad-hoc manifest scan: the first '"<key>": <int>' after the vector's path. */
static int manifest_int(const char *man, const char *fname, const char *key, int dflt)
{
    char pat[512];
    snprintf(pat, sizeof pat, "\"path\": \"chunks/%s\"", fname);
    const char *p = strstr(man, pat);
    if (!p)
        return dflt;
    const char *next = strstr(p + 1, "\"path\":"); /* do not run into the next vector */
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *q = strstr(p, pat);
    if (!q || (next && q > next))
        return dflt;
    return atoi(q + strlen(pat));
}

struct counts {
    int chunks, streams_codec, identical, identical_lowered, differing, decode_fail;
    int stored, stored_ok, stored_ok_lowered, stored_bad, runs;
};

static int check_chunk(const char *name, const uint8_t *c, long clen, int clevel, int nthreads,
                       struct counts *k)
{
    if (clen < 32)
        return 0;
    int flags = c[2], typesize = c[3];
    int32_t nbytes = b2_load_le32s(c + 4), blocksize = b2_load_le32s(c + 8);
    int32_t cbytes = b2_load_le32s(c + 12);
    if ((flags >> 5) != 0 || (flags & 0x05) != 0x05 || (flags & 0x02))
        return 0;
    if ((c[30] & 1) || (c[31] & 0x71))   /* VL blocks, dictionary, special values */
        return 0;
    if (nbytes <= 0 || blocksize <= 0 || cbytes > clen || cbytes < 32)
        return 0;
    if (blocksize > nbytes)
        blocksize = nbytes;
    int nblocks = (int)((nbytes + (int64_t)blocksize - 1) / blocksize);
    if (32 + 4 * (int64_t)nblocks > cbytes)
        return 0;
    k->chunks++;
    int bad = 0;
    uint8_t *dec = malloc((size_t)blocksize), *enc = malloc((size_t)blocksize + 16);
    for (int j = 0; j < nblocks; j++) {
        int32_t bsize = (j == nblocks - 1 && nbytes % blocksize) ? nbytes % blocksize : blocksize;
        int leftover = bsize != blocksize;
        int nstreams = (!(flags & 0x10) && !leftover) ? typesize : 1;
        int32_t neblock = bsize / nstreams;
        int64_t off = b2_load_le32s(c + 32 + 4 * j);
        for (int s = 0; s < nstreams; s++) {
            if (off < 0 || off + 4 > cbytes) {
                printf("  %s: block %d stream %d: bad offset\n", name, j, s);
                bad++;
                goto done;
            }
            int32_t csize = b2_load_le32s(c + off);
            int64_t payload = off + 4;
            if (csize <= 0) { /* run encodings */
                k->runs++;
                off = payload + (csize < 0 ? 1 : 0);
                continue;
            }
            if (payload + csize > cbytes) {
                printf("  %s: block %d stream %d: csize past the end\n", name, j, s);
                bad++;
                goto done;
            }
            const uint8_t *data = c + payload;
            int64_t lowered64 = (int64_t)nbytes + 32 - payload;
            int lowered = nthreads > 1 ? neblock : (int)(lowered64 < neblock ? lowered64 : neblock);
            if (csize == neblock) {
                k->stored++;
                int r = b2_blosclz_compress(clevel, data, neblock, enc, neblock);
                if (r == 0 || r == neblock) {
                    k->stored_ok++;
                } else if (lowered < neblock &&
                           ((r = b2_blosclz_compress(clevel, data, neblock, enc, lowered)) == 0 ||
                            r == neblock)) {
                    k->stored_ok_lowered++;
                } else {
                    printf("  %s: block %d stream %d stored by c-blosc2, our encoder gives %d "
                           "bytes (neblock %d)\n", name, j, s, r, neblock);
                    k->stored_bad++;
                    bad++;
                }
            } else {
                k->streams_codec++;
                int d = b2_blosclz_decompress(data, csize, dec, neblock);
                if (d != neblock) {
                    printf("  %s: block %d stream %d: decode gave %d, want %d\n", name, j, s, d,
                           neblock);
                    k->decode_fail++;
                    bad++;
                } else {
                    int r = b2_blosclz_compress(clevel, dec, neblock, enc, neblock);
                    if (r == csize && memcmp(enc, data, (size_t)csize) == 0) {
                        k->identical++;
                    } else {
                        int r2 = lowered < neblock
                                     ? b2_blosclz_compress(clevel, dec, neblock, enc, lowered)
                                     : -1;
                        if (r2 == csize && memcmp(enc, data, (size_t)csize) == 0) {
                            k->identical_lowered++;
                        } else {
                            int at = -1;
                            if (r > 0)
                                for (int i = 0; i < r && i < csize; i++)
                                    if (enc[i] != data[i]) { at = i; break; }
                            printf("  %s: block %d stream %d (neblock %d, clevel %d): ours %d "
                                   "bytes, c-blosc2 %d, first diff at %d\n",
                                   name, j, s, neblock, clevel, r, csize, at);
                            k->differing++;
                            bad++;
                        }
                    }
                }
            }
            off = payload + csize;
        }
    }
done:
    free(dec);
    free(enc);
    return bad;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    const char *dir = getenv("B2_INTEROP_DIR");
    char path[4096];
    if (!dir || !*dir) {
        printf("SKIP: B2_INTEROP_DIR not set\n");
        return 77;
    }
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    size_t mlen;
    char *man = (char *)test_read_file(path, &mlen);
    snprintf(path, sizeof path, "%s/chunks", dir);
    DIR *dd = opendir(path);
    if (!man || !dd) {
        printf("SKIP: interop vectors not found in %s\n", dir);
        free(man);
        if (dd)
            closedir(dd);
        return 77;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        size_t l = strlen(e->d_name);
        if (l > 8 && strcmp(e->d_name + l - 8, ".b2chunk") == 0) {
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn++] = strdup(e->d_name);
        }
    }
    closedir(dd);
    qsort(names, nn, sizeof *names, cmp_names);

    struct counts k = {0};
    int bad = 0, noclevel = 0;
    for (size_t i = 0; i < nn; i++) {
        snprintf(path, sizeof path, "%s/chunks/%s", dir, names[i]);
        size_t clen;
        uint8_t *c = test_read_file(path, &clen);
        if (c) {
            int clevel = manifest_int(man, names[i], "clevel", -1);
            int nthreads = manifest_int(man, names[i], "nthreads", 1);
            if (clevel >= 1 && clevel <= 9)
                bad += check_chunk(names[i], c, clen, clevel, nthreads, &k);
            else if (clen >= 32 && (c[2] >> 5) == 0 && (c[2] & 7) == 5)
                noclevel++;
        }
        free(c);
        free(names[i]);
    }
    free(names);
    free(man);

    printf("BloscLZ vectors: %d chunks (of %zu files), %d codec streams: %d identical with "
           "maxout=neblock, %d identical with lowered maxout (chunk.md 13.5), %d differing, "
           "%d failed to decode\n",
           k.chunks, nn, k.streams_codec, k.identical, k.identical_lowered, k.differing,
           k.decode_fail);
    printf("stored streams: %d (%d also refused by our encoder, %d refused with lowered "
           "maxout, %d compressed by us); run streams skipped: %d; BloscLZ chunks without "
           "clevel in manifest: %d\n",
           k.stored, k.stored_ok, k.stored_ok_lowered, k.stored_bad, k.runs, noclevel);
    if (k.chunks == 0) {
        printf("FAIL: no BloscLZ chunk found\n");
        return 1;
    }
    return bad ? 1 : 0;
}
