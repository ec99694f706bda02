#!/usr/bin/env python3
"""Load tools of the tcpopt testbed (stdlib only), run inside the testbed namespaces.

  serve     HTTP/1.1 server: GET /bytes/N answers N bytes (GET /bytes/N/S: N bytes of content
            seeded by S, see seeded()); keep-alive unless the client says "Connection: close". Counts accepted connections and requests, and the
            requests each connection served (by connection number); SIGUSR1 (and exit)
            writes them to --stats as JSON.
  fetch     HTTP/1.1 client: --requests R of --size bytes with --concurrency C, either a new
            connection per request (--new-connection) or R requests in turn over one
            connection. Prints JSON: completion times (each from connect start, or from
            sending the request on a reused connection, to the last byte), p50/p99, total.
            --verify asks each request for its own seeded content and checks the SHA-256 of
            every body (a response delivered to the wrong client fails).
  echo      UDP echo server.
  rtt       UDP round-trip probe against `echo`: prints JSON min/avg/max/mdev in ms.
  tcp-echo  TCP echo server: writes back every byte it reads (the interactive experiment).
  interactive
            TCP client against `tcp-echo`: one connection, a --size request every --interval
            seconds (on a fixed schedule, not waiting for the echo), each timed from its send to
            the last byte of its echo. Stops after --count requests, at --deadline, or on
            SIGTERM/SIGINT; prints JSON with every sample (send time since the epoch, latency).

End hosts use CUBIC: every TCP socket here selects it with TCP_CONGESTION (override with
--cc), because a non-initial network namespace may not let it be the default.
"""
import argparse
import asyncio
import hashlib
import json
import os
import signal
import socket
import statistics
import sys
import time

CHUNK = 256 * 1024
BODY = b"\x5a" * CHUNK


def seeded(seed, n):
    """N bytes of content that differ per seed (SHAKE-256 of the seed)."""
    return hashlib.shake_256(b"tcpopt-loadgen-%d" % seed).digest(n)


def set_congestion_control(sock, cc):
    if cc:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


# ---------------------------------------------------------------- server
class Server:
    def __init__(self, args):
        self.args = args
        self.connections = 0
        self.requests = 0
        self.bytes_sent = 0
        self.requests_by_connection = {}  # connection number -> requests it served

    def write_stats(self):
        if not self.args.stats:
            return
        tmp = self.args.stats + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"connections": self.connections, "requests": self.requests,
                       "bytes_sent": self.bytes_sent, "requests_by_connection": self.requests_by_connection}, f)
        os.replace(tmp, self.args.stats)

    async def handle(self, reader, writer):
        self.connections += 1
        number = self.connections
        sock = writer.get_extra_info("socket")
        try:
            set_congestion_control(sock, self.args.cc)
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                close = False
                while True:
                    header = await reader.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = header.decode("latin-1").partition(":")
                    if name.strip().lower() == "connection" and value.strip().lower() == "close":
                        close = True
                parts = request_line.decode("latin-1").split()
                size = None
                seed = None
                if len(parts) >= 2 and parts[0] == "GET" and parts[1].startswith("/bytes/"):
                    try:
                        fields = parts[1][len("/bytes/"):].split("/")
                        size = int(fields[0])
                        seed = int(fields[1]) if len(fields) > 1 else None
                    except (ValueError, IndexError):
                        size = None
                if size is None or size < 0:
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                self.requests += 1
                self.requests_by_connection[number] = self.requests_by_connection.get(number, 0) + 1
                head = "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: application/octet-stream\r\n%s\r\n" % (
                    size, "Connection: close\r\n" if close else "")
                writer.write(head.encode())
                if seed is not None:
                    writer.write(seeded(seed, size))
                    await writer.drain()
                left = 0 if seed is not None else size
                while left > 0:
                    n = min(left, CHUNK)
                    writer.write(BODY[:n] if n < CHUNK else BODY)
                    left -= n
                    await writer.drain()
                await writer.drain()
                self.bytes_sent += size
                if close:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def run(self):
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGUSR1, self.write_stats)
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        loop.add_signal_handler(signal.SIGINT, stop.set)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        set_congestion_control(listener, self.args.cc)
        listener.bind((self.args.bind, self.args.port))
        listener.listen(1024)
        server = await asyncio.start_server(self.handle, sock=listener, backlog=1024)
        self.write_stats()
        if self.args.ready:
            with open(self.args.ready, "w") as f:
                f.write("%d\n" % listener.getsockname()[1])
        await stop.wait()
        server.close()
        self.write_stats()


# ---------------------------------------------------------------- client
async def open_connection(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    set_congestion_control(sock, args.cc)
    try:
        await asyncio.get_running_loop().sock_connect(sock, (args.host, args.port))
    except BaseException:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock, limit=CHUNK)


async def read_response(reader, expected, keep=False):
    """Reads one response of `expected` body bytes; returns the body when `keep`."""
    status = await reader.readline()
    if not status.startswith(b"HTTP/1.1 200"):
        raise ConnectionError("bad status: %r" % status[:60])
    length = None
    while True:
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length != expected:
        raise ConnectionError("content-length %r, expected %d" % (length, expected))
    left = length
    body = []
    while left > 0:
        data = await reader.read(min(left, CHUNK))
        if not data:
            raise ConnectionError("connection closed with %d bytes missing" % left)
        left -= len(data)
        if keep:
            body.append(data)
    return b"".join(body) if keep else None


async def fetch(args):
    def request(i):
        path = "/bytes/%d/%d" % (args.size, i) if args.verify else "/bytes/%d" % args.size
        return ("GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (
            path, args.host, "Connection: close\r\n" if args.new_connection else "")).encode()

    times, errors = [], []
    verified = [0]
    started = time.monotonic()
    deadline = started + args.deadline

    def check(i, body):
        if not args.verify:
            return
        if hashlib.sha256(body).digest() != hashlib.sha256(seeded(i, args.size)).digest():
            raise ConnectionError("response %d: SHA-256 differs from its request's content" % i)
        verified[0] += 1

    async def one_on_new_connection(i):
        t0 = time.monotonic()
        reader, writer = await open_connection(args)
        try:
            writer.write(request(i))
            check(i, await read_response(reader, args.size, args.verify))
        finally:
            writer.close()
        times.append(time.monotonic() - t0)

    async def worker(queue):
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                await asyncio.wait_for(one_on_new_connection(i), max(0.001, deadline - time.monotonic()))
            except Exception as e:  # recorded and reported; the run goes on
                errors.append(type(e).__name__ + ": " + str(e))

    async def all_over_one_connection():
        reader, writer = await open_connection(args)
        try:
            for i in range(args.requests):
                t0 = time.monotonic()
                writer.write(request(i))
                check(i, await read_response(reader, args.size, args.verify))
                times.append(time.monotonic() - t0)
        finally:
            writer.close()

    if args.new_connection:
        queue = asyncio.Queue()
        for i in range(args.requests):
            queue.put_nowait(i)
        await asyncio.gather(*(worker(queue) for _ in range(args.concurrency)))
    else:
        try:
            await asyncio.wait_for(all_over_one_connection(), args.deadline)
        except Exception as e:
            errors.append(type(e).__name__ + ": " + str(e))
    total = time.monotonic() - started
    result = {
        "requests": args.requests, "completed": len(times), "size": args.size,
        "concurrency": args.concurrency if args.new_connection else 1,
        "new_connection": args.new_connection, "total_s": round(total, 4),
        "p50_s": percentile(times, 50), "p90_s": percentile(times, 90), "p99_s": percentile(times, 99),
        "min_s": min(times) if times else None, "max_s": max(times) if times else None,
        "mean_s": statistics.mean(times) if times else None,
        "times_s": [round(t, 4) for t in times] if args.times else None,
        "errors": len(errors), "first_errors": errors[:3],
        "verified": verified[0] if args.verify else None,
        "capped": len(times) < args.requests,
    }
    print(json.dumps(result))
    return 0 if not errors else 1


# ---------------------------------------------------------------- tcp echo / interactive
async def tcp_echo(args):
    async def handle(reader, writer):
        sock = writer.get_extra_info("socket")
        try:
            set_congestion_control(sock, args.cc)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    server = await asyncio.start_server(handle, args.bind, args.port, reuse_address=True)
    await stop.wait()
    server.close()
    return 0


def latency_summary(samples_ms):
    """p50/p99/max/mean of latencies in ms (None when there are none)."""
    return {"samples": len(samples_ms),
            "p50_ms": percentile(samples_ms, 50), "p99_ms": percentile(samples_ms, 99),
            "max_ms": max(samples_ms) if samples_ms else None,
            "mean_ms": round(statistics.mean(samples_ms), 3) if samples_ms else None}


async def interactive(args):
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    sent = {}          # sequence -> (epoch send time, monotonic send time)
    samples = []       # [epoch send time, latency ms]
    errors = []
    reader, writer = await open_connection(args)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    started = time.monotonic()

    async def send_all():
        for seq in range(args.count):
            due = started + seq * args.interval
            now = time.monotonic()
            if due > now:
                await asyncio.sleep(due - now)
            if stop.is_set() or time.monotonic() - started > args.deadline:
                return
            sent[seq] = (time.time(), time.monotonic())
            writer.write(b"%08d" % seq + b"r" * (args.size - 8))
            await writer.drain()

    async def read_all():
        for seq in range(args.count):
            echo = await reader.readexactly(args.size)
            got = int(echo[:8])
            if got != seq:
                raise ConnectionError("echo %d out of order, expected %d" % (got, seq))
            epoch, t0 = sent.pop(got)
            samples.append([round(epoch, 4), round((time.monotonic() - t0) * 1000.0, 3)])

    sender, receiver = asyncio.ensure_future(send_all()), asyncio.ensure_future(read_all())
    stopper = asyncio.ensure_future(stop.wait())
    try:
        # until everything is sent (count, deadline or a stop signal), then at most
        # --drain seconds for the echoes still on their way
        await asyncio.wait([sender, receiver], timeout=args.deadline + 1, return_when=asyncio.FIRST_COMPLETED)
        if not sender.done():
            stop.set()
            await asyncio.wait([sender], timeout=1)
        drain_until = time.monotonic() + args.drain
        while sent and not receiver.done() and time.monotonic() < drain_until:
            await asyncio.wait([receiver], timeout=0.05)
        for t in (sender, receiver):
            if t.done() and not t.cancelled() and t.exception():
                errors.append(type(t.exception()).__name__ + ": " + str(t.exception()))
    finally:
        for t in (sender, receiver, stopper):
            t.cancel()
        writer.close()
    result = {"interval_s": args.interval, "size": args.size, "sent": len(samples) + len(sent),
              "unanswered": len(sent), "errors": errors[:3], "samples_s_ms": samples}
    result.update(latency_summary([s[1] for s in samples]))
    print(json.dumps(result))
    return 0 if not errors else 1


# ---------------------------------------------------------------- udp echo / rtt
def echo(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((args.bind, args.port))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        data, peer = sock.recvfrom(2048)
        sock.sendto(data, peer)


def rtt(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(args.timeout)
    samples = []
    lost = 0
    for i in range(args.count):
        payload = b"%08d" % i + b"\0" * max(0, args.size - 8)
        t0 = time.monotonic()
        sock.sendto(payload, (args.host, args.port))
        try:
            while True:
                data, _ = sock.recvfrom(2048)
                if data[:8] == payload[:8]:
                    samples.append((time.monotonic() - t0) * 1000.0)
                    break
        except socket.timeout:
            lost += 1
        time.sleep(args.interval)
    result = {"count": args.count, "received": len(samples), "lost": lost}
    if samples:
        result.update(min_ms=round(min(samples), 3), avg_ms=round(statistics.mean(samples), 3),
                      max_ms=round(max(samples), 3),
                      mdev_ms=round(statistics.pstdev(samples), 3))
    print(json.dumps(result))
    return 0 if samples else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve")
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--stats")
    p.add_argument("--ready", help="file to write the bound port to once listening")
    p.add_argument("--cc", default="cubic")
    p = sub.add_parser("fetch")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--requests", type=int, default=1)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--new-connection", action="store_true")
    p.add_argument("--deadline", type=float, default=120.0, help="seconds; unfinished requests are reported as capped")
    p.add_argument("--times", action="store_true", help="include every completion time")
    p.add_argument("--verify", action="store_true", help="seeded content per request, SHA-256 of every body checked")
    p.add_argument("--cc", default="cubic")
    p = sub.add_parser("echo")
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--port", type=int, default=7)
    p = sub.add_parser("rtt")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, default=7)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--interval", type=float, default=0.05)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--timeout", type=float, default=2.0)
    p = sub.add_parser("tcp-echo")
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--port", type=int, default=7007)
    p.add_argument("--cc", default="cubic")
    p = sub.add_parser("interactive")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, default=7007)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--interval", type=float, default=0.05)
    p.add_argument("--count", type=int, default=1200, help="at most this many requests")
    p.add_argument("--deadline", type=float, default=60.0, help="seconds; no request is sent after it")
    p.add_argument("--drain", type=float, default=3.0, help="seconds to wait for the last echoes once sending stops")
    p.add_argument("--cc", default="cubic")
    args = parser.parse_args()
    if args.command == "serve":
        asyncio.run(Server(args).run())
        return 0
    if args.command == "fetch":
        return asyncio.run(fetch(args))
    if args.command == "echo":
        return echo(args)
    if args.command == "tcp-echo":
        return asyncio.run(tcp_echo(args))
    if args.command == "interactive":
        if args.size < 8:
            parser.error("--size must be at least 8 (the sequence number)")
        return asyncio.run(interactive(args))
    return rtt(args)


if __name__ == "__main__":
    sys.exit(main())
