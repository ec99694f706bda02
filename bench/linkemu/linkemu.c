/*
 * linkemu: a userspace WAN link emulator joining two TUN devices.
 *
 * The testbed has no netem, so the WAN between the branch and DC namespaces is two
 * persistent TUN devices (one in each namespace) and this process in between. Each
 * direction has its own thread and its own link: IP packets read from one TUN are
 * (1) dropped at random with the configured loss probability, (2) dropped if the
 * drop-tail queue in front of the bottleneck is full, (3) serialized at the configured
 * rate (a clock, not tokens: packet i leaves the bottleneck at
 * max(arrival, previous departure) + size / rate), and (4) written to the other TUN a
 * fixed one-way delay after leaving the bottleneck. Rates count IP bytes.
 *
 * Usage:
 *   linkemu --ns-a NS --dev-a DEV --ns-b NS --dev-b DEV [LINK OPTIONS] [--stats FILE]
 *           [--params FILE] [--realtime] [--seed N]
 * LINK OPTIONS, each applying to both directions, or to one with the prefix "up-"
 * (a -> b) or "down-" (b -> a):
 *   --delay-ms X      one-way delay, milliseconds (fractions allowed), default 0
 *   --rate-mbit X     bottleneck rate in Mbit/s of IP bytes, 0 = unlimited, default 0
 *   --loss-pct X      random loss in percent, default 0
 *   --queue-pkts N    drop-tail queue limit in packets (0 = no limit), default 1000
 *   --queue-bytes N   drop-tail queue limit in bytes (0 = no limit), default 0
 * SIGHUP re-reads --params FILE (the same options, one "name value" per line, without
 * the leading dashes) and applies it to both threads. SIGUSR1 writes the counters to
 * --stats FILE (JSON); they are also written at exit. SIGINT/SIGTERM stop the emulator.
 *
 * Namespaces are joined with setns(2) on /var/run/netns/NAME; the TUN devices must
 * already exist there (ip tuntap add mode tun), so the testbed script owns addressing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PACKET 2048
#define RING_SLOTS 32768u /* power of two */
#define READ_BATCH 64
#define MAX_SLEEP_NS 50000000LL /* wake at least every 50 ms to notice stop/reconfigure */

struct link_params {
  double delay_ms;
  double rate_mbit;
  double loss_pct;
  long queue_pkts;
  long queue_bytes;
};

struct slot {
  int64_t departs_ns; /* leaves the bottleneck (end of serialization) */
  int64_t delivers_ns;
  uint16_t len;
  unsigned char data[MAX_PACKET];
};

struct counters {
  _Atomic uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes, drop_loss, drop_queue, drop_ring,
      write_errors, max_queue_pkts;
};

struct direction {
  const char *name;
  int in_fd, out_fd;
  struct slot *ring;
  uint32_t head;      /* oldest packet not yet delivered */
  uint32_t serialize; /* oldest packet still in the bottleneck queue */
  uint32_t tail;      /* next free slot */
  long queued_pkts;
  long queued_bytes;
  int64_t last_departure_ns;
  uint64_t rng;
  struct link_params params;
  unsigned seen_generation;
  struct counters counters;
};

static pthread_mutex_t params_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link_params shared_params[2];
static atomic_uint params_generation = 1;
static atomic_int stopping = 0;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "linkemu: %s: %s\n", what, strerror(errno));
  exit(1);
}

static uint64_t next_random(uint64_t *state) { /* xorshift64* */
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static int open_tun_in_namespace(const char *ns, const char *dev) {
  char path[512];
  snprintf(path, sizeof path, "/var/run/netns/%s", ns);
  int own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (own < 0) die("open /proc/self/ns/net");
  int target = open(path, O_RDONLY | O_CLOEXEC);
  if (target < 0) {
    fprintf(stderr, "linkemu: namespace %s: %s\n", path, strerror(errno));
    exit(1);
  }
  if (setns(target, CLONE_NEWNET) < 0) die("setns into namespace");
  int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) die("open /dev/net/tun");
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    fprintf(stderr, "linkemu: attach %s in %s: %s\n", dev, ns, strerror(errno));
    exit(1);
  }
  if (setns(own, CLONE_NEWNET) < 0) die("setns back");
  close(target);
  close(own);
  return fd;
}

/* Applies "name value" to params[0] (up), params[1] (down) or both; 0 if unknown. */
static int apply_option(struct link_params params[2], const char *name, const char *value) {
  int first = 0, last = 1;
  if (strncmp(name, "up-", 3) == 0) {
    name += 3;
    last = 0;
  } else if (strncmp(name, "down-", 5) == 0) {
    name += 5;
    first = 1;
  }
  char *end;
  double number = strtod(value, &end);
  if (end == value || *end != '\0' || number < 0) {
    fprintf(stderr, "linkemu: %s: not a non-negative number: '%s'\n", name, value);
    exit(2);
  }
  for (int i = first; i <= last; i++) {
    if (strcmp(name, "delay-ms") == 0) params[i].delay_ms = number;
    else if (strcmp(name, "rate-mbit") == 0) params[i].rate_mbit = number;
    else if (strcmp(name, "loss-pct") == 0) {
      if (number > 100) {
        fprintf(stderr, "linkemu: loss-pct: must be at most 100, got %s\n", value);
        exit(2);
      }
      params[i].loss_pct = number;
    } else if (strcmp(name, "queue-pkts") == 0) params[i].queue_pkts = (long)number;
    else if (strcmp(name, "queue-bytes") == 0) params[i].queue_bytes = (long)number;
    else return 0;
  }
  return 1;
}

static int read_params_file(const char *file, struct link_params params[2]) {
  FILE *f = fopen(file, "r");
  if (f == NULL) {
    fprintf(stderr, "linkemu: params %s: %s\n", file, strerror(errno));
    return -1;
  }
  char line[256], name[128], value[128];
  while (fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%127s %127s", name, value) != 2 || !apply_option(params, name, value)) {
      fprintf(stderr, "linkemu: params %s: cannot use line: %s", file, line);
      fclose(f);
      return -1;
    }
  }
  fclose(f);
  return 0;
}

static void describe(const char *name, const struct link_params *p) {
  fprintf(stderr, "linkemu: %s: delay %.3f ms, rate %.3f Mbit/s, loss %.3f%%, queue %ld pkts / %ld bytes\n",
          name, p->delay_ms, p->rate_mbit, p->loss_pct, p->queue_pkts, p->queue_bytes);
}

static void refresh_params(struct direction *d, int index) {
  unsigned generation = atomic_load(&params_generation);
  if (generation == d->seen_generation) return;
  pthread_mutex_lock(&params_lock);
  d->params = shared_params[index];
  pthread_mutex_unlock(&params_lock);
  d->seen_generation = generation;
}

/* Takes a freshly read packet in d->ring[d->tail] into the link, or drops it. */
static void admit(struct direction *d, uint16_t len, int64_t now) {
  struct counters *c = &d->counters;
  c->rx_pkts++;
  c->rx_bytes += len;
  const struct link_params *p = &d->params;
  if (p->loss_pct > 0 && (double)(next_random(&d->rng) >> 11) * 0x1.0p-53 * 100.0 < p->loss_pct) {
    c->drop_loss++;
    return;
  }
  if ((p->queue_pkts > 0 && d->queued_pkts >= p->queue_pkts) ||
      (p->queue_bytes > 0 && d->queued_bytes + len > p->queue_bytes)) {
    c->drop_queue++;
    return;
  }
  int64_t start = d->last_departure_ns > now ? d->last_departure_ns : now;
  int64_t serialization = p->rate_mbit > 0 ? (int64_t)(len * 8.0 * 1000.0 / p->rate_mbit) : 0;
  struct slot *s = &d->ring[d->tail & (RING_SLOTS - 1)];
  s->len = len;
  s->departs_ns = start + serialization;
  s->delivers_ns = s->departs_ns + (int64_t)(p->delay_ms * 1e6);
  d->last_departure_ns = s->departs_ns;
  d->tail++;
  d->queued_pkts++;
  d->queued_bytes += len;
  if ((uint64_t)d->queued_pkts > c->max_queue_pkts) c->max_queue_pkts = d->queued_pkts;
}

static void advance(struct direction *d, int64_t now) {
  while (d->serialize != d->tail && d->ring[d->serialize & (RING_SLOTS - 1)].departs_ns <= now) {
    d->queued_pkts--;
    d->queued_bytes -= d->ring[d->serialize & (RING_SLOTS - 1)].len;
    d->serialize++;
  }
  while (d->head != d->serialize) {
    struct slot *s = &d->ring[d->head & (RING_SLOTS - 1)];
    if (s->delivers_ns > now) break;
    if (write(d->out_fd, s->data, s->len) < 0) d->counters.write_errors++;
    else {
      d->counters.tx_pkts++;
      d->counters.tx_bytes += s->len;
    }
    d->head++;
  }
}

static void *run_direction(void *arg) {
  struct direction *d = arg;
  int index = strcmp(d->name, "up") == 0 ? 0 : 1;
  static unsigned char scratch[2][MAX_PACKET];
  struct pollfd pfd = {.fd = d->in_fd, .events = POLLIN};
  while (!atomic_load(&stopping)) {
    refresh_params(d, index);
    int64_t now = now_ns();
    advance(d, now);
    int64_t sleep_ns = MAX_SLEEP_NS;
    if (d->head != d->tail) { /* the next event that matters is the oldest packet's delivery */
      int64_t due = d->ring[d->head & (RING_SLOTS - 1)].delivers_ns - now;
      if (due < sleep_ns) sleep_ns = due < 0 ? 0 : due;
    }
    struct timespec timeout = {.tv_sec = sleep_ns / 1000000000LL, .tv_nsec = sleep_ns % 1000000000LL};
    int ready = ppoll(&pfd, 1, &timeout, NULL);
    if (ready < 0) {
      if (errno == EINTR) continue;
      die("ppoll");
    }
    if (ready == 0) continue;
    for (int i = 0; i < READ_BATCH; i++) {
      int full = d->tail - d->head >= RING_SLOTS;
      unsigned char *buffer = full ? scratch[index] : d->ring[d->tail & (RING_SLOTS - 1)].data;
      ssize_t n = read(d->in_fd, buffer, MAX_PACKET);
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        die("read tun");
      }
      if (full) {
        d->counters.rx_pkts++;
        d->counters.drop_ring++;
        continue;
      }
      int64_t now_read = now_ns();
      advance(d, now_read);
      admit(d, (uint16_t)n, now_read);
    }
  }
  return NULL;
}

static void write_stats(const char *file, struct direction dirs[2]) {
  if (file == NULL) return;
  char temp[600];
  snprintf(temp, sizeof temp, "%s.tmp", file);
  FILE *f = fopen(temp, "w");
  if (f == NULL) {
    fprintf(stderr, "linkemu: stats %s: %s\n", temp, strerror(errno));
    return;
  }
  fprintf(f, "{");
  for (int i = 0; i < 2; i++) {
    struct counters *c = &dirs[i].counters;
    fprintf(f,
            "%s\"%s\": {\"rx_pkts\": %llu, \"rx_bytes\": %llu, \"tx_pkts\": %llu, \"tx_bytes\": %llu, "
            "\"drop_loss\": %llu, \"drop_queue\": %llu, \"drop_ring\": %llu, \"write_errors\": %llu, "
            "\"max_queue_pkts\": %llu}",
            i == 0 ? "" : ", ", dirs[i].name, (unsigned long long)c->rx_pkts,
            (unsigned long long)c->rx_bytes, (unsigned long long)c->tx_pkts,
            (unsigned long long)c->tx_bytes, (unsigned long long)c->drop_loss,
            (unsigned long long)c->drop_queue, (unsigned long long)c->drop_ring,
            (unsigned long long)c->write_errors, (unsigned long long)c->max_queue_pkts);
  }
  fprintf(f, "}\n");
  fclose(f);
  rename(temp, file);
}

static void usage(void) {
  fprintf(stderr,
          "usage: linkemu --ns-a NS --dev-a DEV --ns-b NS --dev-b DEV [--[up-|down-]delay-ms X]\n"
          "       [--[up-|down-]rate-mbit X] [--[up-|down-]loss-pct X] [--[up-|down-]queue-pkts N]\n"
          "       [--[up-|down-]queue-bytes N] [--stats FILE] [--params FILE] [--realtime] [--seed N]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *ns[2] = {NULL, NULL}, *dev[2] = {NULL, NULL};
  const char *stats_file = NULL, *params_file = NULL;
  int realtime = 0;
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  struct link_params params[2] = {{0, 0, 0, 1000, 0}, {0, 0, 0, 1000, 0}};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0) usage();
    arg += 2;
    if (strcmp(arg, "realtime") == 0) {
      realtime = 1;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char *value = argv[++i];
    if (strcmp(arg, "ns-a") == 0) ns[0] = value;
    else if (strcmp(arg, "ns-b") == 0) ns[1] = value;
    else if (strcmp(arg, "dev-a") == 0) dev[0] = value;
    else if (strcmp(arg, "dev-b") == 0) dev[1] = value;
    else if (strcmp(arg, "stats") == 0) stats_file = value;
    else if (strcmp(arg, "params") == 0) params_file = value;
    else if (strcmp(arg, "seed") == 0) seed = strtoull(value, NULL, 0) | 1;
    else if (!apply_option(params, arg, value)) usage();
  }
  if (ns[0] == NULL || ns[1] == NULL || dev[0] == NULL || dev[1] == NULL) usage();
  if (params_file != NULL && read_params_file(params_file, params) < 0) exit(2);

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, NULL);

  prctl(PR_SET_TIMERSLACK, 1UL);
  if (realtime) {
    struct sched_param sp = {.sched_priority = 10};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
      fprintf(stderr, "linkemu: realtime scheduling unavailable (%s), continuing\n", strerror(errno));
  }

  static struct direction dirs[2];
  int fd_a = open_tun_in_namespace(ns[0], dev[0]);
  int fd_b = open_tun_in_namespace(ns[1], dev[1]);
  memcpy(shared_params, params, sizeof params);
  dirs[0] = (struct direction){.name = "up", .in_fd = fd_a, .out_fd = fd_b, .rng = seed};
  dirs[1] = (struct direction){.name = "down", .in_fd = fd_b, .out_fd = fd_a, .rng = seed * 31 + 7};
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) {
    dirs[i].ring = calloc(RING_SLOTS, sizeof(struct slot));
    if (dirs[i].ring == NULL) die("calloc ring");
    dirs[i].params = params[i];
    dirs[i].seen_generation = 1;
    describe(dirs[i].name, &params[i]);
    if (pthread_create(&threads[i], NULL, run_direction, &dirs[i]) != 0) die("pthread_create");
  }
  fprintf(stderr, "linkemu: running between %s/%s and %s/%s\n", ns[0], dev[0], ns[1], dev[1]);

  for (;;) {
    int sig;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig == SIGUSR1) {
      write_stats(stats_file, dirs);
    } else if (sig == SIGHUP) {
      if (params_file == NULL) continue;
      struct link_params fresh[2];
      memcpy(fresh, shared_params, sizeof fresh);
      if (read_params_file(params_file, fresh) < 0) continue;
      pthread_mutex_lock(&params_lock);
      memcpy(shared_params, fresh, sizeof fresh);
      pthread_mutex_unlock(&params_lock);
      atomic_fetch_add(&params_generation, 1);
      describe("up", &fresh[0]);
      describe("down", &fresh[1]);
    } else {
      break;
    }
  }
  atomic_store(&stopping, 1);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  write_stats(stats_file, dirs);
  fprintf(stderr, "linkemu: stopped\n");
  return 0;
}
