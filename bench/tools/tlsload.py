#!/usr/bin/env python3
"""TLS load for the TLS-termination benchmark (bench/experiments/profiles.sh, issue 10).

  serve  the HTTP/1.1 server of loadgen.py (GET /bytes/N, keep-alive) behind TLS:
         --bind --port --cert --key [--stats FILE]
  page   page-like loads, one new TLS connection each: GET /bytes/FIRST (the page), then on the
         same connection GET /bytes/REST (its resources). --host --port --ca --sni --runs
         [--first 51200] [--rest 2097152] [--pause S]. Prints one JSON object: per run the TCP
         connect, the TLS handshake, time to the response's first byte (TTFB, from connect()),
         the first response complete, the whole page; and their medians.
"""
import argparse
import asyncio
import json
import os
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loadgen  # noqa: E402  (the HTTP server and the response reader)


class TlsServer(loadgen.Server):
    async def run(self):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.args.cert, self.args.key)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (loadgen.signal.SIGTERM, loadgen.signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(loadgen.signal.SIGUSR1, self.write_stats)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        loadgen.set_congestion_control(listener, self.args.cc)
        listener.bind((self.args.bind, self.args.port))
        listener.listen(1024)
        server = await asyncio.start_server(self.handle, sock=listener, backlog=1024, ssl=ctx)
        self.write_stats()
        await stop.wait()
        server.close()
        self.write_stats()


async def first_line(reader):
    line = await reader.readline()
    if not line.startswith(b"HTTP/1.1 200"):
        raise ConnectionError("bad status: %r" % line[:60])


async def rest_of_response(reader, expected):
    """The headers and body after a status line already read (loadgen.read_response without it)."""
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
    while left > 0:
        data = await reader.read(min(left, loadgen.CHUNK))
        if not data:
            raise ConnectionError("connection closed with %d bytes missing" % left)
        left -= len(data)


async def one_page(args, ctx):
    t0 = time.monotonic()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    loadgen.set_congestion_control(sock, args.cc)
    await asyncio.get_running_loop().sock_connect(sock, (args.host, args.port))
    t_tcp = time.monotonic()
    reader, writer = await asyncio.open_connection(sock=sock, ssl=ctx, server_hostname=args.sni, limit=loadgen.CHUNK)
    t_tls = time.monotonic()
    try:
        writer.write(("GET /bytes/%d HTTP/1.1\r\nHost: %s\r\n\r\n" % (args.first, args.sni)).encode())
        await writer.drain()
        await first_line(reader)
        t_first_byte = time.monotonic()
        await rest_of_response(reader, args.first)
        t_first_done = time.monotonic()
        writer.write(("GET /bytes/%d HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (args.rest, args.sni)).encode())
        await writer.drain()
        await loadgen.read_response(reader, args.rest)
        t_page = time.monotonic()
    finally:
        writer.close()
    return {"connect_s": t_tcp - t0, "handshake_s": t_tls - t_tcp, "ttfb_s": t_first_byte - t0,
            "first_response_s": t_first_done - t0, "page_s": t_page - t0}


async def pages(args):
    ctx = ssl.create_default_context(cafile=args.ca)
    runs, errors = [], []
    for _ in range(args.runs):
        try:
            runs.append(await asyncio.wait_for(one_page(args, ctx), args.timeout))
        except Exception as e:  # a failed run is reported, not fatal
            errors.append("%s: %s" % (type(e).__name__, e))
        await asyncio.sleep(args.pause)
    medians = {k: loadgen.percentile([r[k] for r in runs], 50) for k in runs[0]} if runs else {}
    print(json.dumps({"runs": args.runs, "completed": len(runs), "errors": errors, "median": medians, "each": runs}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cert", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--stats")
    s.add_argument("--ready")
    s.add_argument("--cc", default="cubic")
    c = sub.add_parser("page")
    c.add_argument("--host", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--ca", required=True)
    c.add_argument("--sni", required=True)
    c.add_argument("--runs", type=int, default=10)
    c.add_argument("--first", type=int, default=50 * 1024)
    c.add_argument("--rest", type=int, default=2 * 1024 * 1024)
    c.add_argument("--pause", type=float, default=1.5)
    c.add_argument("--timeout", type=float, default=30)
    c.add_argument("--cc", default="cubic")
    args = p.parse_args()
    if args.command == "serve":
        asyncio.run(TlsServer(args).run())
    else:
        asyncio.run(pages(args))


if __name__ == "__main__":
    main()
