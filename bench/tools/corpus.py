#!/usr/bin/env python3
"""A compressible corpus for the data-reduction benchmark (issue 11), stdlib only.

  corpus.py --size 200M [--seed 1] [--out FILE]      (stdout when --out is omitted)

Writes --size bytes of what WAN links carry when they carry compressible data: plain text
(prose from a Zipf-distributed vocabulary), logs (web access lines and application log lines
with increasing timestamps) and JSON (API records, one document per line), interleaved in
sections of 64 KiB to 1 MiB. The output depends only on --seed and --size: the same arguments
give the same bytes on any machine and Python 3 version (random.Random with an integer seed and
only getrandbits-derived draws; no hash-ordered containers).

The ratio to beat is that of zstd alone on the corpus (issue 11: WAN bytes reduced by at least
what zstd achieves on the corpus alone, minus 10%); see docs/data-reduction.md for the figure
and the command (`zstd -3 -c FILE | wc -c`).
"""
import argparse
import random
import sys

SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "an", "el", "or", "us", "tra",
             "pen", "dor", "ith", "mar", "sel", "qu", "ex", "ion", "ent", "al", "ic", "ber")
WORDS_COMMON = ("the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was",
                "with", "be", "by", "on", "not", "he", "this", "are", "or", "his", "from",
                "at", "which", "but", "have", "an", "had", "they", "you", "were", "their")
PATHS = ("/", "/index.html", "/api/v1/orders", "/api/v1/users", "/api/v1/search", "/static/app.js",
         "/static/style.css", "/img/logo.png", "/login", "/logout", "/cart", "/checkout",
         "/api/v2/inventory", "/healthz", "/metrics", "/docs/getting-started", "/download/report.pdf")
AGENTS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
          "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
          "curl/8.5.0", "python-requests/2.31.0", "Go-http-client/1.1", "okhttp/4.12.0")
LEVELS = ("INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "ERROR")
LOGGERS = ("o.a.c.c.C.[Tomcat].[localhost]", "com.example.orders.OrderService", "com.example.auth.TokenFilter",
           "io.netty.channel.DefaultChannelPipeline", "com.example.inventory.StockSync", "org.hibernate.SQL")
MESSAGES = ("Completed request in {ms} ms", "Order {id} created for customer {cust}",
            "Token refreshed for user {cust}", "Cache miss for key order:{id}",
            "Retrying call to inventory-service (attempt {n} of 5)", "select o.id, o.total from orders o where o.customer_id=?",
            "Connection pool stats: active={n}, idle={ms}, waiting=0", "Payment declined for order {id}: insufficient funds")
CITIES = ("Berlin", "Lyon", "Osaka", "Porto", "Denver", "Nairobi", "Quito", "Perth", "Oslo", "Pune")
PRODUCTS = ("widget", "gadget", "sprocket", "flange", "gizmo", "doohickey", "bracket", "valve")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1] if t and t[-1] in "KMG" else ""
    number = t[:-1] if unit else t
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"bad size {text!r} (expected N, NK, NM or NG)")
    return int(number) * units[unit]


class Corpus:
    def __init__(self, seed):
        self.r = random.Random(seed)
        r = self.r
        # A vocabulary of invented words, then Zipf-like weights: common words dominate, as in prose.
        vocab = list(WORDS_COMMON)
        while len(vocab) < 4000:
            vocab.append("".join(SYLLABLES[r.randrange(len(SYLLABLES))] for _ in range(1 + r.randrange(3))))
        self.vocab = vocab
        self.cum = []
        total = 0.0
        for rank in range(len(vocab)):
            total += 1.0 / (rank + 1)
            self.cum.append(total)
        self.ips = [f"198.18.{r.randrange(256)}.{r.randrange(1, 255)}" for _ in range(300)]
        self.clock = 1_700_000_000  # seconds, advances with every log line
        self.order = 100_000

    def word(self):
        return self.r.choices(self.vocab, cum_weights=self.cum)[0]

    def text(self, out, limit):
        r = self.r
        while len(out) < limit:
            sentences = []
            for _ in range(3 + r.randrange(6)):
                words = [self.word() for _ in range(5 + r.randrange(18))]
                words[0] = words[0].capitalize()
                sentences.append(" ".join(words) + r.choice((".", ".", ".", "?", "!")))
            out += (" ".join(sentences) + "\n\n").encode()

    def stamp(self):
        self.clock += self.r.randrange(0, 3)
        t = self.clock
        day, rem = divmod(t, 86400)
        h, rem = divmod(rem, 3600)
        m, s = divmod(rem, 60)
        return day % 28 + 1, MONTHS[(day // 28) % 12], h, m, s, self.r.randrange(1000)

    def logs(self, out, limit):
        r = self.r
        while len(out) < limit:
            d, mon, h, m, s, ms = self.stamp()
            if r.randrange(2):
                line = (f'{r.choice(self.ips)} - - [{d:02d}/{mon}/2025:{h:02d}:{m:02d}:{s:02d} +0000] '
                        f'"{r.choice(("GET", "GET", "GET", "POST", "PUT"))} {r.choice(PATHS)}'
                        f'{"?page=" + str(r.randrange(50)) if r.randrange(4) == 0 else ""} HTTP/1.1" '
                        f'{r.choice((200, 200, 200, 200, 304, 404, 500, 302))} {r.randrange(200, 90000)} '
                        f'"-" "{r.choice(AGENTS)}" rt={r.randrange(1, 900) / 1000:.3f}\n')
            else:
                msg = r.choice(MESSAGES).format(ms=r.randrange(1, 2000), id=self.order + r.randrange(500),
                                                cust=f"C{r.randrange(10000):05d}", n=r.randrange(1, 6))
                line = (f"2025-{(d % 12) + 1:02d}-{d:02d}T{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z "
                        f"{r.choice(LEVELS):5s} [{r.choice(('main', 'http-nio-8080-exec-' + str(r.randrange(1, 40)), 'scheduler-1'))}] "
                        f"{r.choice(LOGGERS)} - {msg}\n")
            out += line.encode()

    def json(self, out, limit):
        r = self.r
        while len(out) < limit:
            self.order += 1
            d, mon, h, m, s, ms = self.stamp()
            items = []
            for _ in range(1 + r.randrange(4)):
                items.append('{"sku":"%s-%04d","name":"%s","quantity":%d,"unitPrice":%d.%02d}' % (
                    r.choice(PRODUCTS).upper()[:3], r.randrange(10000), r.choice(PRODUCTS), 1 + r.randrange(9),
                    r.randrange(1, 500), r.randrange(100)))
            city = r.choice(CITIES)
            doc = ('{"id":%d,"customer":{"id":"C%05d","name":"%s %s","city":"%s","vip":%s},'
                   '"createdAt":"2025-%02d-%02dT%02d:%02d:%02d.%03dZ","status":"%s","items":[%s],'
                   '"shipping":{"method":"%s","cost":%d.%02d},"tags":["%s","%s"]}\n') % (
                self.order, r.randrange(10000), self.word().capitalize(), self.word().capitalize(), city,
                r.choice(("true", "false", "false")), (d % 12) + 1, d, h, m, s, ms,
                r.choice(("NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED")), ",".join(items),
                r.choice(("standard", "express", "pickup")), r.randrange(0, 40), r.randrange(100),
                self.word(), city.lower())
            out += doc.encode()

    def write(self, sink, size):
        kinds = (self.text, self.logs, self.json)
        written = 0
        while written < size:
            section = bytearray()
            kinds[self.r.randrange(3)](section, min(size - written, 64 * 1024 + self.r.randrange(960 * 1024)))
            piece = bytes(section[: size - written])
            sink.write(piece)
            written += len(piece)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=parse_size, required=True, help="bytes to write: N, NK, NM or NG")
    p.add_argument("--seed", type=int, default=1, help="the same seed and size give the same bytes (default 1)")
    p.add_argument("--out", help="output file (default: stdout)")
    a = p.parse_args()
    if a.out:
        with open(a.out, "wb") as f:
            Corpus(a.seed).write(f, a.size)
    else:
        Corpus(a.seed).write(sys.stdout.buffer, a.size)


if __name__ == "__main__":
    main()
