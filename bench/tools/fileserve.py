#!/usr/bin/env python3
"""File transfers for the data-reduction benchmark (issue 11).

  fileserve.py serve --bind IP --port N --dir DIR      # sends DIR/<name> for each request line "<name>\\n"
  fileserve.py get --host IP --port N --name NAME       # prints JSON: bytes, seconds, sha256
"""
import argparse, hashlib, json, os, socket, socketserver, sys, time


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        name = self.rfile.readline().decode().strip()
        path = os.path.join(self.server.dir, os.path.basename(name))
        with open(path, "rb") as f:
            while True:
                b = f.read(1 << 20)
                if not b:
                    break
                self.wfile.write(b)
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_WR)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["serve", "get"])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--host")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir")
    p.add_argument("--name")
    a = p.parse_args()
    if a.cmd == "serve":
        s = Server((a.bind, a.port), Handler)
        s.dir = a.dir
        s.serve_forever()
        return
    h = hashlib.sha256()
    n = 0
    start = time.monotonic()
    with socket.create_connection((a.host, a.port), timeout=300) as c:
        c.sendall((a.name + "\n").encode())
        c.shutdown(socket.SHUT_WR)
        while True:
            b = c.recv(1 << 20)
            if not b:
                break
            h.update(b)
            n += len(b)
    print(json.dumps({"bytes": n, "seconds": time.monotonic() - start, "sha256": h.hexdigest()}))


if __name__ == "__main__":
    sys.exit(main())
