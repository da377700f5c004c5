// What reactorhub-bench needs from Linux that Swift's Glibc module leaves out:
// epoll, timerfd and memmem (a GNU extension).
#ifndef REACTORHUB_BENCH_SHIM_H
#define REACTORHUB_BENCH_SHIM_H

#include <stddef.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

/// epoll_event is packed on x86-64; these keep Swift away from its layout.
static inline int bench_epoll_add(int epfd, int fd, unsigned int events, unsigned long long key) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = key;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

static inline int bench_epoll_mod(int epfd, int fd, unsigned int events, unsigned long long key) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = key;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
}

static inline unsigned int bench_event_flags(const struct epoll_event *events, int index) {
    return events[index].events;
}

static inline unsigned long long bench_event_key(const struct epoll_event *events, int index) {
    return events[index].data.u64;
}

static inline int bench_timerfd(long long period_ns) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) return fd;
    struct itimerspec spec;
    spec.it_interval.tv_sec = period_ns / 1000000000LL;
    spec.it_interval.tv_nsec = period_ns % 1000000000LL;
    spec.it_value = spec.it_interval;
    timerfd_settime(fd, 0, &spec, 0);
    return fd;
}

enum {
    BENCH_EPOLLIN = EPOLLIN,
    BENCH_EPOLLOUT = EPOLLOUT,
    BENCH_EPOLLERR = EPOLLERR,
    BENCH_EPOLLHUP = EPOLLHUP,
};

#endif
