/*
 * malloc-count.so: counts a process's heap calls, for the benchmarks only (never linked
 * into the daemon). Load it with LD_PRELOAD and name a file in MALLOC_COUNT_FILE; the
 * counters live in that file, mapped shared, so another process reads them at any moment
 * (pread) without signals, threads or writes in the measured process:
 *
 *   offset 0: allocations (malloc, calloc, realloc of NULL, posix_memalign, aligned_alloc,
 *             memalign, valloc), offset 8: reallocations, offset 16: frees of non-NULL,
 *             offset 24: bytes requested by the allocations and reallocations;
 *             all uint64, little-endian.
 *
 *   cc -O2 -shared -fPIC -o malloc-count.so bench/malloc-count.c
 *   MALLOC_COUNT_FILE=/tmp/m LD_PRELOAD=$PWD/malloc-count.so reactorhub ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

struct counters { uint64_t allocs, reallocs, frees, bytes; };

static struct counters before_start;
static struct counters *counts = &before_start;

__attribute__((constructor)) static void malloc_count_start(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (path == NULL || *path == 0) return;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    if (ftruncate(fd, 4096) != 0) { close(fd); return; }
    void *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    struct counters *shared = map;
    *shared = before_start;
    __atomic_store_n(&counts, shared, __ATOMIC_RELEASE);
}

static inline void count_alloc(size_t bytes) {
    struct counters *c = __atomic_load_n(&counts, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->allocs, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
}

void *malloc(size_t size) { count_alloc(size); return __libc_malloc(size); }

void *calloc(size_t n, size_t size) { count_alloc(n * size); return __libc_calloc(n, size); }

void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) {
        count_alloc(size);
    } else {
        struct counters *c = __atomic_load_n(&counts, __ATOMIC_RELAXED);
        __atomic_fetch_add(&c->reallocs, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&c->bytes, size, __ATOMIC_RELAXED);
    }
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) {
        struct counters *c = __atomic_load_n(&counts, __ATOMIC_RELAXED);
        __atomic_fetch_add(&c->frees, 1, __ATOMIC_RELAXED);
    }
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) { count_alloc(size); return __libc_memalign(alignment, size); }

void *aligned_alloc(size_t alignment, size_t size) { count_alloc(size); return __libc_memalign(alignment, size); }

void *valloc(size_t size) { count_alloc(size); return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_alloc(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}
