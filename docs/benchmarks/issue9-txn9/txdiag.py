#!/usr/bin/env python3
"""Transaction phase diagnostics (txn9): a server and a client like loadgen.py's serve/fetch
(--new-connection), each logging wall-clock timestamps per transaction as JSON lines."""
import argparse, asyncio, json, socket, sys, time

CHUNK = 256 * 1024
BODY = b"\x5a" * CHUNK

def cubic(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")

async def serve(args):
    async def handle(reader, writer):
        t = {"accept": time.time()}
        sock = writer.get_extra_info("socket")
        t["port"] = writer.get_extra_info("peername")[1]
        cubic(sock)
        try:
            line = await reader.readline()
            t["req"] = time.time()
            f = line.split()[1].decode().split("/")
            size = int(f[2]); t["i"] = int(f[3]) if len(f) > 3 else -1
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            t["write"] = time.time()
            writer.write(("HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size).encode())
            left = size
            while left > 0:
                n = min(left, CHUNK)
                writer.write(BODY[:n])
                left -= n
                await writer.drain()
            t["drained"] = time.time()
        except Exception as e:
            t["error"] = repr(e)
        finally:
            writer.close()
            with open(args.log, "a") as out:
                out.write(json.dumps(t) + "\n")
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); cubic(l)
    l.bind((args.bind, args.port)); l.listen(1024)
    srv = await asyncio.start_server(handle, sock=l, backlog=1024)
    await asyncio.Event().wait()

async def fetch(args):
    out = open(args.log, "w", buffering=1) if args.log else None
    times = []
    async def one(i):
        t = {"i": i, "t0": time.time()}
        s = socket.socket(); s.setblocking(False); cubic(s)
        await asyncio.get_running_loop().sock_connect(s, (args.host, args.port))
        t["conn"] = time.time(); t["port"] = s.getsockname()[1]
        r, w = await asyncio.open_connection(sock=s, limit=CHUNK)
        w.write(("GET /bytes/%d/%d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (args.size, i)).encode())
        await r.readline(); t["first"] = time.time()
        while (await r.readline()) not in (b"\r\n", b"\n", b""):
            pass
        left = args.size
        while left > 0:
            d = await r.read(min(left, CHUNK))
            if not d: raise ConnectionError("short")
            left -= len(d)
        t["last"] = time.time()
        w.close()
        times.append(t["last"] - t["t0"])
        if out: out.write(json.dumps(t) + "\n")
    q = asyncio.Queue()
    for i in range(args.requests): q.put_nowait(i)
    async def worker():
        while not q.empty():
            await one(q.get_nowait())
    st = time.time()
    await asyncio.gather(*(worker() for _ in range(args.concurrency)))
    total = time.time() - st
    times.sort()
    print(json.dumps({"total_s": round(total, 3), "p50": round(times[len(times)//2], 4), "p99": round(times[int(len(times)*0.99)-1], 4),
                      "min": round(times[0], 4), "start": st}))

p = argparse.ArgumentParser()
p.add_argument("cmd"); p.add_argument("--bind", default="0.0.0.0"); p.add_argument("--port", type=int, default=8081)
p.add_argument("--host"); p.add_argument("--size", type=int, default=262144); p.add_argument("--requests", type=int, default=600)
p.add_argument("--concurrency", type=int, default=23); p.add_argument("--log")
a = p.parse_args()
asyncio.run(serve(a) if a.cmd == "serve" else fetch(a))
