/* The floor of one action's socket work on libwebsockets 4.1.6 (BENCHMARKS.md, "Issue 38:
 * the socket floor"): a broadcast server that does for each received message only what
 * reactorhub's transport must also do, and nothing of the engine. It speaks
 * lws-mirror-protocol as reactorhub-bench's `--protocol mirror` expects (every text message
 * goes to every connection of its room, the sender included: with ten subscribers, one in
 * and eleven out, as an action with its ack and ten patches; the room is ?mirror=NAME), and
 * it writes as the daemon writes: a frame is built once (header and payload), appended to
 * each connection's pending bytes, and a writable callback sends everything pending in one
 * `lws_write(LWS_WRITE_RAW)`.
 *
 * With THREADS > 1 it runs one lws context per thread, each listening on its own port
 * (PORT, PORT+1, …; spread the connections over them), as the daemon's service threads
 * each serve their own connections: a frame received on one thread is appended there to
 * its own connections and posted once to each other thread's locked inbox, with
 * lws_cancel_service to wake it when the inbox was empty (the daemon posts a burst's
 * frames the same way). lws's default loop.
 *
 *   scripts/build-floor-server.sh floor-server
 *   ./floor-server PORT [THREADS]   (prints "listening on PORT[,PORT+1…]"; SIGTERM stops it)
 */
#include <libwebsockets.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define MAX_ROOMS 256

struct session {
    struct session *next, *prev;
    struct lws *wsi;
    int room;
    unsigned char *out;     /* LWS_PRE bytes, then `pending` bytes of complete frames */
    size_t pending, capacity;
    unsigned char *in;      /* a message's fragments until its last */
    size_t received, in_capacity;
};

struct buffer { unsigned char *bytes; size_t length, capacity; };

struct thread {
    int index, port;
    pthread_t id;
    struct lws_context *context;
    struct session *rooms[MAX_ROOMS];  /* this thread's connections, by room */
    pthread_mutex_t lock;
    struct buffer inbox;               /* posted by other threads: [room:4][length:4][frame] … */
    struct buffer draining;
};

static struct thread threads[MAX_THREADS];
static int thread_count = 1;
static volatile sig_atomic_t stopping;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[MAX_ROOMS][32];
static int name_count;

static void grow(unsigned char **bytes, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return;
    size_t next = *capacity ? *capacity : 4096;
    while (next < needed) next *= 2;
    unsigned char *moved = realloc(*bytes, next);
    if (!moved) { fprintf(stderr, "floor-server: out of memory\n"); exit(1); }
    *bytes = moved;
    *capacity = next;
}

static void append(struct buffer *buffer, const void *bytes, size_t length) {
    grow(&buffer->bytes, &buffer->capacity, buffer->length + length);
    memcpy(buffer->bytes + buffer->length, bytes, length);
    buffer->length += length;
}

/* The room's number: its name's place in one table of all threads (found at connect only). */
static int room_of(const char *name) {
    pthread_mutex_lock(&names_lock);
    int room = 0;
    while (room < name_count && strcmp(names[room], name)) room++;
    if (room == name_count && name_count < MAX_ROOMS) snprintf(names[name_count++], sizeof names[0], "%s", name);
    pthread_mutex_unlock(&names_lock);
    return room < MAX_ROOMS ? room : MAX_ROOMS - 1;
}

/* Appends one complete frame to each of this thread's connections in `room`. */
static void deliver(struct thread *t, int room, const unsigned char *frame, size_t length) {
    for (struct session *s = t->rooms[room]; s; s = s->next) {
        grow(&s->out, &s->capacity, LWS_PRE + s->pending + length);
        memcpy(s->out + LWS_PRE + s->pending, frame, length);
        s->pending += length;
        lws_callback_on_writable(s->wsi);
    }
}

/* A received message: framed once (unmasked text), delivered here, posted to the others. */
static void broadcast(struct thread *t, int room, const unsigned char *payload, size_t length) {
    static __thread struct buffer frame;
    frame.length = 0;
    unsigned char header[10];
    size_t header_length;
    header[0] = 0x81;
    if (length < 126) { header[1] = (unsigned char)length; header_length = 2; }
    else if (length < 65536) { header[1] = 126; header[2] = length >> 8; header[3] = length & 0xff; header_length = 4; }
    else { header[1] = 127; for (int i = 0; i < 8; i++) header[2 + i] = (length >> (56 - 8 * i)) & 0xff; header_length = 10; }
    append(&frame, header, header_length);
    append(&frame, payload, length);
    deliver(t, room, frame.bytes, frame.length);
    for (int other = 0; other < thread_count; other++) {
        if (other == t->index) continue;
        struct thread *o = &threads[other];
        uint32_t head[2] = { (uint32_t)room, (uint32_t)frame.length };
        pthread_mutex_lock(&o->lock);
        int was_empty = o->inbox.length == 0;
        append(&o->inbox, head, sizeof head);
        append(&o->inbox, frame.bytes, frame.length);
        pthread_mutex_unlock(&o->lock);
        if (was_empty) lws_cancel_service(o->context);
    }
}

static void drain(struct thread *t) {
    pthread_mutex_lock(&t->lock);
    struct buffer taken = t->inbox;
    t->inbox = t->draining;  /* the emptied buffer of the last drain, reused */
    t->inbox.length = 0;
    pthread_mutex_unlock(&t->lock);
    for (size_t at = 0; at + 8 <= taken.length;) {
        uint32_t head[2];
        memcpy(head, taken.bytes + at, sizeof head);
        deliver(t, (int)head[0], taken.bytes + at + 8, head[1]);
        at += 8 + head[1];
    }
    t->draining = taken;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct session *s = user;
    struct thread *t = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        char name[40] = "";
        const char *value = name;
        lws_get_urlarg_by_name(wsi, "mirror", name, sizeof name - 1);
        if (strchr(name, '=')) value = strchr(name, '=') + 1;
        memset(s, 0, sizeof *s);
        s->wsi = wsi;
        s->room = room_of(value);
        s->next = t->rooms[s->room];
        if (s->next) s->next->prev = s;
        t->rooms[s->room] = s;
        break;
    }
    case LWS_CALLBACK_CLOSED:
        if (!s->wsi) break;
        if (s->prev) s->prev->next = s->next; else t->rooms[s->room] = s->next;
        if (s->next) s->next->prev = s->prev;
        free(s->out);
        free(s->in);
        break;
    case LWS_CALLBACK_RECEIVE:
        if (lws_is_first_fragment(wsi) && lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            broadcast(t, s->room, in, len);  /* the whole message in one piece: no copy */
            break;
        }
        grow(&s->in, &s->in_capacity, s->received + len);
        memcpy(s->in + s->received, in, len);
        s->received += len;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            broadcast(t, s->room, s->in, s->received);
            s->received = 0;
        }
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (s->pending) {
            size_t length = s->pending;
            s->pending = 0;
            if (lws_write(wsi, s->out + LWS_PRE, length, LWS_WRITE_RAW) < (int)length) return -1;
        }
        break;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (t) drain(t);
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    { "lws-mirror-protocol", callback, sizeof(struct session), 4096, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 }
};

static void stop(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

static void *serve(void *argument) {
    struct thread *t = argument;
    while (!stopping && lws_service(t->context, 0) >= 0) {}
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) { fprintf(stderr, "usage: floor-server PORT [THREADS]\n"); return 2; }
    int port = atoi(argv[1]);
    thread_count = argc == 3 ? atoi(argv[2]) : 1;
    if (port <= 0 || thread_count < 1 || thread_count > MAX_THREADS) { fprintf(stderr, "floor-server: bad PORT or THREADS\n"); return 2; }
    lws_set_log_level(LLL_ERR, NULL);
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    for (int i = 0; i < thread_count; i++) {
        struct thread *t = &threads[i];
        t->index = i;
        t->port = port + i;
        pthread_mutex_init(&t->lock, NULL);
        struct lws_context_creation_info info;
        memset(&info, 0, sizeof info);
        info.port = t->port;
        info.iface = "127.0.0.1";
        info.protocols = protocols;
        info.user = t;
        info.gid = -1;
        info.uid = -1;
        t->context = lws_create_context(&info);
        if (!t->context) { fprintf(stderr, "floor-server: lws_create_context failed on port %d\n", t->port); return 1; }
    }
    printf("listening on %d", port);
    for (int i = 1; i < thread_count; i++) printf(",%d", port + i);
    printf("\n");
    fflush(stdout);
    /* The other threads never take the signals: the main thread's wait is the one they end. */
    sigset_t signals, previous;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, &previous);
    for (int i = 1; i < thread_count; i++) pthread_create(&threads[i].id, NULL, serve, &threads[i]);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    serve(&threads[0]);
    for (int i = 1; i < thread_count; i++) { lws_cancel_service(threads[i].context); pthread_join(threads[i].id, NULL); }
    for (int i = 0; i < thread_count; i++) lws_context_destroy(threads[i].context);
    return 0;
}
