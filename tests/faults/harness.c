/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the real-fault tests (harness.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

char *fu_scratch(const char *prefix)
{
    const char *t = getenv("TMPDIR");
    char *d = malloc(4096);
    snprintf(d, 4096, "%s/%sXXXXXX", t && *t ? t : "/tmp", prefix);
    if (!mkdtemp(d)) {
        fprintf(stderr, "mkdtemp %s: %s\n", d, strerror(errno));
        exit(2);
    }
    return d;
}

int fu_b2_verify(const char *path, char *msg, size_t cap)
{
    const char *bin = getenv("B2_BIN");
    if (!bin || !*bin)
        return -1;
    int p[2];
    if (pipe(p) != 0)
        return snprintf(msg, cap, "pipe: %s", strerror(errno)), 1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(p[1], 2);
        close(p[0]);
        execl(bin, bin, "verify", "-q", path, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    char buf[4096];
    while ((r = read(p[0], buf, sizeof buf)) > 0) /* to the end, so b2 never blocks */
        for (ssize_t i = 0; i < r && got + 1 < cap; i++)
            msg[got++] = buf[i];
    msg[got] = 0;
    close(p[0]);
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return snprintf(msg, cap, "could not run %s", bin), 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (!got)
        snprintf(msg, cap, "%s verify %s: status %d", bin, path, status);
    return 1;
}

static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

int fu_copy(const char *src, const char *dst)
{
    struct stat st;
    if (stat(src, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return copy_file(src, dst);
    if (mkdir(dst, 0755) != 0)
        return -1;
    DIR *d = opendir(src);
    struct dirent *e;
    int rc = d ? 0 : -1;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", src, e->d_name);
        snprintf(b, sizeof b, "%s/%s", dst, e->d_name);
        rc = copy_file(a, b);
    }
    if (d)
        closedir(d);
    return rc;
}

int64_t fu_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

long fu_env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 0) : dflt;
}

uint64_t fu_seed(const char *test)
{
    const char *v = getenv("B2_FAULT_SEED");
    uint64_t seed = v && *v ? strtoull(v, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    printf("%s: seed %llu (B2_FAULT_SEED=%llu repeats the workload)\n", test,
           (unsigned long long)seed, (unsigned long long)seed);
    fflush(stdout);
    return seed;
}
