/*
 * flowgen: the many-flows and flow-rate load generator of the tcpopt benchmark (experiments 6
 * and 7 of bench/run.sh). One thread, epoll, non-blocking sockets: a new TCP connection costs it
 * a few microseconds, so the rate it measures is the network's (or the relay's), not the client's.
 *
 *   flowgen serve --bind IP --port P [--close-after N] [--stats FILE]
 *       Echo server. With --close-after N it closes a connection once it echoed N bytes (the
 *       server closes first, so clients keep no TIME_WAIT and never run out of ports).
 *       SIGUSR1 writes {"accepted":..,"open":..} to --stats; SIGTERM/SIGINT stop it.
 *   flowgen rate --host IP --port P [--size N] [--concurrency C] [--count N] [--duration S]
 *       New flows back to back, C at a time, until N flows or S seconds: each connects, writes N
 *       bytes (a pattern unique to the flow), reads the echo until the server's FIN and checks
 *       every byte. Prints JSON: flows completed, errors, mismatched bytes, flows/s, and the p50,
 *       p99 of the setup latency (connect() to the first echoed byte) and of the whole flow.
 *   flowgen hold --host IP --port P [--flows N] [--concurrency C] [--size N] [--hold S]
 *       Opens N flows (C connects in flight), each does one N-byte echo and then stays idle.
 *       Prints {"event":"held",...} when all are held (or the open deadline passed), keeps them
 *       S seconds, checks none was closed by the far end, closes them all and prints the result.
 *
 * Common: --deadline S bounds every flow (default 15 s); every run is bounded in time.
 * Exit code 0 when every flow completed with exact bytes, 1 otherwise, 2 on usage errors.
 * Built by bench/run.sh: gcc -O2 -Wall -Wextra -o bench/target/flowgen bench/tools/flowgen.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF 65536

static void die(const char *what) {
  fprintf(stderr, "flowgen: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void usage(const char *why) {
  fprintf(stderr, "flowgen: %s (see the comment at the top of bench/tools/flowgen.c)\n", why);
  exit(2);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned char pattern(long flow, long i) { return (unsigned char)(flow * 131 + i * 7 + (i >> 8)); }

/* Raises the open-file limit to the hard limit: 10,000 flows need 10,000 descriptors. */
static long raise_nofile(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) die("getrlimit");
  r.rlim_cur = r.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &r) != 0) die("setrlimit");
  return (long)r.rlim_cur;
}

static struct sockaddr_in address(const char *host, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) usage("not an IPv4 address");
  return a;
}

static volatile sig_atomic_t stop_requested, stats_requested;
static void on_stop(int s) { (void)s; stop_requested = 1; }
static void on_stats(int s) { (void)s; stats_requested = 1; }

/* ------------------------------------------------------------------------------- serve */

struct peer {
  long echoed;
  char *pending; /* bytes read but not yet echoed (the socket was full) */
  int pending_len, pending_off;
  int open;
};

static int serve(const char *bind_ip, int port, long close_after, const char *stats) {
  long limit = raise_nofile();
  struct peer *peers = calloc((size_t)limit, sizeof *peers);
  if (!peers) die("calloc");
  int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (ls < 0) die("socket");
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = address(bind_ip, port);
  if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
  if (listen(ls, 4096) != 0) die("listen");
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
  epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
  signal(SIGTERM, on_stop);
  signal(SIGINT, on_stop);
  signal(SIGUSR1, on_stats);
  signal(SIGPIPE, SIG_IGN);
  long accepted = 0, open_now = 0;
  static char buf[BUF];
  struct epoll_event events[256];
  while (!stop_requested) {
    if (stats_requested && stats) {
      stats_requested = 0;
      char tmp[4096];
      snprintf(tmp, sizeof tmp, "%s.tmp", stats);
      FILE *f = fopen(tmp, "w");
      if (f) {
        fprintf(f, "{\"accepted\": %ld, \"open\": %ld}\n", accepted, open_now);
        fclose(f);
        rename(tmp, stats);
      }
    }
    int n = epoll_wait(ep, events, 256, 200);
    for (int e = 0; e < n; e++) {
      int fd = events[e].data.fd;
      if (fd == ls) {
        for (;;) {
          int c = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
          if (c < 0) break;
          if (c >= limit) { close(c); continue; }
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          memset(&peers[c], 0, sizeof peers[c]);
          peers[c].open = 1;
          accepted++;
          open_now++;
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        }
        continue;
      }
      struct peer *p = &peers[fd];
      int done = 0;
      if (p->pending) { /* writable again: echo what waits, then read on */
        ssize_t w = write(fd, p->pending + p->pending_off, (size_t)(p->pending_len - p->pending_off));
        if (w < 0 && errno != EAGAIN) done = 1;
        if (w > 0) { p->pending_off += (int)w; p->echoed += w; }
        if (!done && p->pending_off == p->pending_len) {
          free(p->pending);
          p->pending = NULL;
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = fd};
          epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
        }
      } else {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0) {
          if (r == 0 || errno != EAGAIN) done = 1;
        } else {
          ssize_t w = write(fd, buf, (size_t)r);
          if (w < 0 && errno != EAGAIN) done = 1;
          if (w < 0) w = 0;
          p->echoed += w;
          if (!done && w < r) {
            p->pending_len = (int)(r - w);
            p->pending_off = 0;
            p->pending = malloc((size_t)p->pending_len);
            memcpy(p->pending, buf + w, (size_t)p->pending_len);
            struct epoll_event cev = {.events = EPOLLOUT, .data.fd = fd};
            epoll_ctl(ep, EPOLL_CTL_MOD, fd, &cev);
          }
        }
      }
      if (close_after > 0 && p->echoed >= close_after && !p->pending) done = 1;
      if (done && p->open) {
        free(p->pending);
        p->pending = NULL;
        p->open = 0;
        open_now--;
        close(fd);
      }
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------------- clients */

enum state { FREE, CONNECTING, WRITING, READING, HELD };

struct flow {
  enum state state;
  int fd;
  long id;
  long written, got;
  double started, first_byte, deadline;
};

struct run {
  struct sockaddr_in target;
  long size;
  int ep;
  double flow_deadline;
  int hold_mode;
  long started, completed, errors, mismatches, held;
  double *setup, *complete;
  long samples, samples_cap;
  char last_error[160];
};

static void note_error(struct run *r, const char *what, int err) {
  r->errors++;
  snprintf(r->last_error, sizeof r->last_error, "%s: %s", what, strerror(err));
}

static void finish(struct run *r, struct flow *f, int ok) {
  if (f->fd >= 0) {
    epoll_ctl(r->ep, EPOLL_CTL_DEL, f->fd, NULL);
    close(f->fd);
  }
  if (ok) {
    r->completed++;
    if (r->samples < r->samples_cap) {
      r->setup[r->samples] = f->first_byte - f->started;
      r->complete[r->samples] = now_s() - f->started;
      r->samples++;
    }
  }
  f->state = FREE;
  f->fd = -1;
}

static void begin(struct run *r, struct flow *f) {
  f->id = r->started++;
  f->written = f->got = 0;
  f->first_byte = 0;
  f->started = now_s();
  f->deadline = f->started + r->flow_deadline;
  f->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (f->fd < 0) {
    note_error(r, "socket", errno);
    f->state = FREE;
    return;
  }
  int one = 1;
  setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(f->fd, (struct sockaddr *)&r->target, sizeof r->target) != 0 && errno != EINPROGRESS) {
    note_error(r, "connect", errno);
    close(f->fd);
    f->fd = -1;
    f->state = FREE;
    return;
  }
  f->state = CONNECTING;
  struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = f};
  epoll_ctl(r->ep, EPOLL_CTL_ADD, f->fd, &ev);
}

/* Advances one flow on an epoll event. */
static void step(struct run *r, struct flow *f, uint32_t events) {
  static unsigned char buf[BUF];
  if (f->state == CONNECTING) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err) {
      note_error(r, "connect", err);
      finish(r, f, 0);
      return;
    }
    f->state = WRITING;
  }
  if (f->state == WRITING) {
    while (f->written < r->size) {
      long n = r->size - f->written < BUF ? r->size - f->written : BUF;
      for (long i = 0; i < n; i++) buf[i] = pattern(f->id, f->written + i);
      ssize_t w = write(f->fd, buf, (size_t)n);
      if (w < 0) {
        if (errno == EAGAIN) return;
        note_error(r, "write", errno);
        finish(r, f, 0);
        return;
      }
      f->written += w;
    }
    f->state = READING;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = f};
    epoll_ctl(r->ep, EPOLL_CTL_MOD, f->fd, &ev);
    return;
  }
  if (f->state == HELD) { /* an idle flow must stay silent: anything readable is a close or a reset */
    (void)events;
    note_error(r, "held flow closed by the far end", ECONNRESET);
    r->held--;
    finish(r, f, 0);
    return;
  }
  for (;;) {
    ssize_t n = read(f->fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EAGAIN) return;
      note_error(r, "read", errno);
      finish(r, f, 0);
      return;
    }
    if (n == 0) { /* the server's FIN: the flow is done if every byte came back */
      if (f->got != r->size) {
        note_error(r, "short echo", EPIPE);
        finish(r, f, 0);
      } else {
        finish(r, f, 1);
      }
      return;
    }
    if (f->first_byte == 0) f->first_byte = now_s();
    for (ssize_t i = 0; i < n; i++) {
      if (f->got + i >= r->size || buf[i] != pattern(f->id, f->got + i)) r->mismatches++;
    }
    f->got += n;
    if (r->hold_mode && f->got >= r->size) {
      f->state = HELD;
      r->held++;
      return;
    }
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, long n, double p) {
  if (n == 0) return 0;
  long rank = (long)(p / 100.0 * n + 0.5) - 1;
  if (rank < 0) rank = 0;
  if (rank >= n) rank = n - 1;
  return v[rank];
}

/*
 * Runs the event loop: starts flows (at most `concurrency` in flight) until `count` started or
 * `start_until`, then lets those in flight finish (each bounded by its deadline). With `watch` it
 * starts nothing and only watches held flows until `end_by`.
 */
static void pump(struct run *r, struct flow *flows, long nflows, int concurrency, long count, double start_until, double end_by, int watch) {
  struct epoll_event events[256];
  int in_flight = 0;
  long next = 0;
  for (;;) {
    double t = now_s();
    if (t >= end_by || stop_requested) break;
    int can_start = !watch && t < start_until && r->started < count;
    for (long i = 0; i < nflows && can_start && in_flight < concurrency && r->started < count; i++) {
      long k = (next + i) % nflows;
      if (flows[k].state == FREE && (!r->hold_mode || flows[k].id < 0)) {
        begin(r, &flows[k]);
        if (flows[k].state != FREE) in_flight++;
        next = k + 1;
      }
    }
    if (!watch && in_flight == 0 && !can_start) break;
    int n = epoll_wait(r->ep, events, 256, 50);
    for (int e = 0; e < n; e++) {
      struct flow *f = events[e].data.ptr;
      enum state before = f->state;
      step(r, f, events[e].events);
      if (before != HELD && (f->state == FREE || f->state == HELD)) in_flight--;
    }
    t = now_s();
    for (long i = 0; i < nflows; i++) {
      if (flows[i].state != FREE && flows[i].state != HELD && t > flows[i].deadline) {
        note_error(r, "flow deadline", ETIMEDOUT);
        finish(r, &flows[i], 0);
        in_flight--;
      }
    }
  }
}

static int client(int hold, const char *host, int port, long size, int concurrency, long count, double duration, double hold_s,
    double deadline) {
  long limit = raise_nofile();
  if (hold && count + 64 > limit) {
    fprintf(stderr, "flowgen: %ld flows need %ld open files, the limit is %ld\n", count, count + 64, limit);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, on_stop);
  signal(SIGINT, on_stop);
  struct run r;
  memset(&r, 0, sizeof r);
  r.target = address(host, port);
  r.size = size;
  r.flow_deadline = deadline;
  r.hold_mode = hold;
  r.ep = epoll_create1(0);
  r.samples_cap = count < 2000000 ? count : 2000000;
  r.setup = calloc((size_t)r.samples_cap, sizeof(double));
  r.complete = calloc((size_t)r.samples_cap, sizeof(double));
  long nflows = hold ? count : concurrency;
  struct flow *flows = calloc((size_t)nflows, sizeof *flows);
  if (!flows || !r.setup || !r.complete) die("calloc");
  for (long i = 0; i < nflows; i++) { flows[i].fd = -1; flows[i].id = -1; }
  double t0 = now_s();
  pump(&r, flows, nflows, concurrency, count, t0 + duration, t0 + duration + deadline + 1, 0);
  double opened_s = now_s() - t0;
  if (!hold) {
    for (long i = 0; i < nflows; i++) {
      if (flows[i].state != FREE) { note_error(&r, "unfinished at the end of the run", ETIMEDOUT); finish(&r, &flows[i], 0); }
    }
    qsort(r.setup, (size_t)r.samples, sizeof(double), cmp_double);
    qsort(r.complete, (size_t)r.samples, sizeof(double), cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* this client's own CPU (user + system), for the CPU per flow beside the relay's */
    double cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    printf("{\"mode\": \"rate\", \"size\": %ld, \"concurrency\": %d, \"started\": %ld, \"completed\": %ld, \"errors\": %ld, "
        "\"mismatched_bytes\": %ld, \"seconds\": %.3f, \"flows_per_s\": %.1f, \"setup_p50_ms\": %.3f, \"setup_p99_ms\": %.3f, "
        "\"flow_p50_ms\": %.3f, \"flow_p99_ms\": %.3f, \"client_cpu_s\": %.3f, \"last_error\": \"%s\"}\n",
        size, concurrency, r.started, r.completed, r.errors, r.mismatches, opened_s, r.completed / opened_s, pct(r.setup, r.samples, 50) * 1e3,
        pct(r.setup, r.samples, 99) * 1e3, pct(r.complete, r.samples, 50) * 1e3, pct(r.complete, r.samples, 99) * 1e3, cpu_s, r.last_error);
    return r.completed == r.started && r.errors == 0 && r.mismatches == 0 ? 0 : 1;
  }
  /* hold: report, keep the idle flows (watching for closes), then close them all */
  for (long i = 0; i < nflows; i++) {
    if (flows[i].state != FREE && flows[i].state != HELD) { note_error(&r, "not held by the open deadline", ETIMEDOUT); finish(&r, &flows[i], 0); }
  }
  printf("{\"event\": \"held\", \"held\": %ld, \"errors\": %ld, \"open_seconds\": %.3f}\n", r.held, r.errors, opened_s);
  fflush(stdout);
  double until = now_s() + hold_s;
  pump(&r, flows, nflows, 0, 0, 0, until, 1);
  long still = 0;
  for (long i = 0; i < nflows; i++) {
    if (flows[i].state == HELD) { still++; flows[i].state = READING; finish(&r, &flows[i], 1); }
  }
  printf("{\"mode\": \"hold\", \"flows\": %ld, \"held\": %ld, \"held_to_the_end\": %ld, \"errors\": %ld, \"mismatched_bytes\": %ld, "
      "\"open_seconds\": %.3f, \"last_error\": \"%s\"}\n", count, r.held, still, r.errors, r.mismatches, opened_s, r.last_error);
  return still == count && r.errors == 0 && r.mismatches == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) usage("needs a mode: serve, rate or hold");
  const char *mode = argv[1], *host = "127.0.0.1", *stats = NULL;
  int port = 0, concurrency = 64;
  long size = 1024, count = 1000000, close_after = 0;
  double duration = 10, hold_s = 5, deadline = 15;
  int hold = strcmp(mode, "hold") == 0;
  if (hold) { size = 100; count = 1000; }
  for (int i = 2; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) usage("option without a value");
    i++;
    if (!strcmp(o, "--host") || !strcmp(o, "--bind")) host = v;
    else if (!strcmp(o, "--port")) port = atoi(v);
    else if (!strcmp(o, "--size")) size = atol(v);
    else if (!strcmp(o, "--concurrency")) concurrency = atoi(v);
    else if (!strcmp(o, "--count") || !strcmp(o, "--flows")) count = atol(v);
    else if (!strcmp(o, "--duration")) duration = atof(v);
    else if (!strcmp(o, "--hold")) hold_s = atof(v);
    else if (!strcmp(o, "--deadline")) deadline = atof(v);
    else if (!strcmp(o, "--close-after")) close_after = atol(v);
    else if (!strcmp(o, "--stats")) stats = v;
    else usage("unknown option");
  }
  if (port <= 0 || port > 65535) usage("--port is required (1-65535)");
  if (size <= 0 || concurrency <= 0 || count <= 0 || duration <= 0 || deadline <= 0) usage("sizes, counts and times must be positive");
  if (!strcmp(mode, "serve")) return serve(host, port, close_after, stats);
  if (!strcmp(mode, "rate")) return client(0, host, port, size, concurrency, count, duration, 0, deadline);
  if (hold) return client(1, host, port, size, concurrency, count, duration, hold_s, deadline);
  usage("unknown mode");
  return 2;
}
