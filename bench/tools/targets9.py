"""Issue 9's targets ("one pipe at the link rate"), evaluated on the CSV rows of one
bench/run.sh results folder. Each target comes back met, missed or not measured, with the
value that decided it. Used by report.py (results.md, targets9.csv); reported, never asserted.

Floors and ceilings:
  goodput ceiling  = link rate x 1448/1500 (TCP payload per 1500-byte IP packet with timestamps)
  small window     = per download: the row's RTT + size at the link rate (timed from the request)
  transactions     = all of them: N x size at the link rate, or, when fewer bytes than a round trip's worth are
                     in flight (concurrency C x size below the bandwidth-delay product), ceil(N / C) x (RTT +
                     size at the link rate): each of the C connections carries one transaction at a time, each
                     at least a round trip and its bytes (rows without rtt_ms/concurrency ran at 100 ms, 23)
"""
from collections import namedtuple

PAYLOAD_SHARE = 1448.0 / 1500.0
LINK_MBIT = 250.0
SW_RTT_MS, SW_SIZE = 200.0, 3 * 1024 * 1024
TX_SIZE, TX_RTT_MS, TX_CONCURRENCY = 256 * 1024, 100.0, 23

Target = namedtuple("Target", "name verdict value")
MET, MISSED, NOT_MEASURED = "met", "missed", "not measured"


def ceiling(link_mbit):
    return float(link_mbit) * PAYLOAD_SHARE


def link_seconds(size_bytes, link_mbit=LINK_MBIT):
    return size_bytes * 8 / (link_mbit * 1e6)


def small_window_floor(r):
    """One download's floor for a small_window.csv row: its RTT (rows without one ran at SW_RTT_MS) + the size."""
    return float(r.get("rtt_ms") or SW_RTT_MS) / 1000 + link_seconds(SW_SIZE)


def transactions_floor(r, count):
    """Seconds that count transactions of a transactions.csv row take at best: the link's or the round trips'."""
    rtt_s = float(r.get("rtt_ms") or TX_RTT_MS) / 1000
    concurrency = int(r.get("concurrency") or TX_CONCURRENCY)
    return max(count * link_seconds(TX_SIZE), -(-count // concurrency) * (rtt_s + link_seconds(TX_SIZE)))


def _row_name(r):
    return "%s ms/%s%%" % (r["rtt_ms"], r["loss_pct"])


def _verdict(ok):
    return MET if ok else MISSED


def _find(rows, mode, like):
    keys = ("link_mbit", "rtt_ms", "loss_pct")
    return next((r for r in rows if r["mode"] == mode and all(float(r[k]) == float(like[k]) for k in keys)), None)


def _ok(r):
    return r["status"] == "ok"


def bulk_targets(bulk9, mode):
    """The bulk targets at LINK_MBIT and at the faster link, for one mode."""
    out = []
    mine = [r for r in bulk9 if r["mode"] == mode and float(r["link_mbit"]) == LINK_MBIT]
    for label, pick, share in (("loss <= 1%", lambda r: float(r["loss_pct"]) <= 1.0, 0.95),
                               ("loss 2%", lambda r: float(r["loss_pct"]) > 1.0, 0.90)):
        rows = [r for r in mine if pick(r)]
        floor = share * ceiling(LINK_MBIT)
        name = "bulk, %s: >= %.0f%% of the goodput ceiling (%.1f Mbit/s) on every row" % (label, share * 100, floor)
        if not rows:
            out.append(Target(name, NOT_MEASURED, "no rows"))
            continue
        low = [r for r in rows if float(r["mbit_s"]) < floor or not _ok(r)]
        worst = min(rows, key=lambda r: float(r["mbit_s"]))
        out.append(Target(name, _verdict(not low), "%d/%d rows below%s; lowest %.1f at %s" % (
            len(low), len(rows), (" (" + ", ".join(_row_name(r) for r in low) + ")") if low else "",
            float(worst["mbit_s"]), _row_name(worst))))
    zero = [(r, _find(bulk9, "direct", r)) for r in mine if float(r["loss_pct"]) == 0]
    zero = [(r, d) for r, d in zero if d is not None]
    name = "bulk, zero loss: >= direct TCP on every row"
    if not zero:
        out.append(Target(name, NOT_MEASURED, "no zero-loss rows with direct"))
    else:
        behind = [(r, d) for r, d in zero if float(r["mbit_s"]) < float(d["mbit_s"]) or not _ok(r)]
        out.append(Target(name, _verdict(not behind), "behind on %d/%d rows%s" % (
            len(behind), len(zero), "".join("; %s: %.1f vs %.1f" % (_row_name(r), float(r["mbit_s"]), float(d["mbit_s"]))
                                            for r, d in behind))))
    fast = [r for r in bulk9 if r["mode"] == mode and float(r["link_mbit"]) != LINK_MBIT]
    for r in fast:
        d = _find(bulk9, "direct", r)
        name = "bulk, %s Mbit/s link at %s ms: >= direct TCP" % (r["link_mbit"], r["rtt_ms"])
        if d is None:
            out.append(Target(name, NOT_MEASURED, "%.1f Mbit/s, no direct row" % float(r["mbit_s"])))
        else:
            out.append(Target(name, _verdict(_ok(r) and float(r["mbit_s"]) >= float(d["mbit_s"])),
                              "%.1f vs direct %.1f Mbit/s%s" % (float(r["mbit_s"]), float(d["mbit_s"]),
                                                                "" if _ok(r) else " (" + r["status"] + ")")))
    if not fast:
        out.append(Target("bulk, faster link: >= direct TCP", NOT_MEASURED, "no row"))
    return out


def interactive_targets(interactive, mode):
    r = next((x for x in interactive if x["mode"] == mode), None)
    names = ("interactive beside bulk: echo p50 <= RTT + 10 ms", "interactive beside bulk: echo p99 <= RTT + 30 ms",
             "interactive beside bulk: bulk >= 95%% of the goodput ceiling (%.1f Mbit/s)" % (0.95 * ceiling(LINK_MBIT)))
    if r is None:
        return [Target(n, NOT_MEASURED, "no run") for n in names]
    rtt = float(r["rtt_ms"])
    ok = r["status"] == "ok"
    why = "" if ok else " (" + r["status"] + ")"
    return [
        Target(names[0], _verdict(ok and float(r["p50_ms"]) <= rtt + 10), "p50 %s ms, target %.0f ms%s" % (r["p50_ms"], rtt + 10, why)),
        Target(names[1], _verdict(ok and float(r["p99_ms"]) <= rtt + 30), "p99 %s ms, target %.0f ms%s" % (r["p99_ms"], rtt + 30, why)),
        Target(names[2], _verdict(r["bulk_status"] == "ok" and float(r["bulk_mbit_s"]) >= 0.95 * ceiling(LINK_MBIT)),
               "%s Mbit/s (%s)" % (r["bulk_mbit_s"], r["bulk_status"])),
    ]


def fairness_targets(fairness, mode):
    r = next((x for x in fairness if x["mode"] == mode), None)
    name = "fairness: N bulk flows get equal shares within 10%"
    if r is None:
        return [Target(name, NOT_MEASURED, "no run")]
    return [Target(name, _verdict(r["status"] == "ok" and int(r["flows"]) > 1 and float(r["max_deviation_pct"]) <= 10.0),
                   "%s flows, largest deviation from the mean %s%% (per flow %s..%s Mbit/s, Jain %s)" % (
                       r["flows"], r["max_deviation_pct"], r["min_mbit_s"], r["max_mbit_s"], r["jain"]))]


def small_window_targets(small_window, mode):
    name = "small window: every download, a connection's first included, within 1.2x its floor"
    runs = [r for r in small_window if r["mode"] == mode]
    if not runs:
        return [Target(name, NOT_MEASURED, "no run")]
    firsts, later = [], []
    for r in runs:
        times = [float(t) / small_window_floor(r) for t in r["download_s"].split(";") if t]
        firsts += times[:1]
        later += times[1:]
    missing = sum(3 - len([t for t in r["download_s"].split(";") if t]) for r in runs)
    worst_first = max(firsts) if firsts else None
    worst_later = max(later) if later else None
    ok = missing == 0 and all(t <= 1.2 for t in firsts + later)
    floors = sorted({"%.3f" % small_window_floor(r) for r in runs})
    value = "floor %s s; first downloads up to %s, later ones up to %s%s" % (
        "/".join(floors), "%.2fx" % worst_first if worst_first else "-", "%.2fx" % worst_later if worst_later else "-",
        "; %d downloads not done" % missing if missing else "")
    return [Target(name, _verdict(ok), value)]


def transactions_targets(transactions, mode):
    r = next((x for x in transactions if x["mode"] == mode), None)
    names = ("transactions: all within 1.15x their floor", "transactions: p99 <= 2x p50")
    if r is None:
        return [Target(n, NOT_MEASURED, "no run") for n in names]
    floor = transactions_floor(r, int(r["requests"]))
    ratio = float(r["total_s"]) / floor
    ok = r["status"] == "ok"
    p50, p99 = float(r["p50_s"]), float(r["p99_s"])
    return [
        Target(names[0], _verdict(ok and ratio <= 1.15), "%s/%s in %s s, floor %.2f s = %.2fx" % (
            r["completed"], r["requests"], r["total_s"], floor, ratio)),
        Target(names[1], _verdict(ok and p50 > 0 and p99 <= 2 * p50), "p50 %s s, p99 %s s = %.2fx" % (
            r["p50_s"], r["p99_s"], p99 / p50 if p50 else float("inf"))),
    ]


def no_link_targets(bulk9, mode, nolink_mode):
    """The link block optional: without it the node meets the same bulk targets."""
    name = "no link block: the bulk targets met without it too"
    rows = [r for r in bulk9 if r["mode"] == nolink_mode]
    if not rows:
        return [Target(name, NOT_MEASURED, "mode %s not run" % nolink_mode)]
    sub = bulk_targets(bulk9, nolink_mode)
    measured = [t for t in sub if t.verdict != NOT_MEASURED]
    missed = [t for t in measured if t.verdict == MISSED]
    pairs = [(r, _find(bulk9, mode, r)) for r in rows]
    ratios = [float(r["mbit_s"]) / float(w["mbit_s"]) for r, w in pairs if w is not None and float(w["mbit_s"]) > 0]
    value = "%d/%d bulk targets missed without it%s" % (len(missed), len(measured),
                                                        "; %s vs %s per row %.2f..%.2fx" % (nolink_mode, mode, min(ratios), max(ratios))
                                                        if ratios else "")
    if not measured:
        return [Target(name, NOT_MEASURED, "no %s row has a counterpart to compare with" % nolink_mode)]
    return [Target(name, _verdict(not missed), value)]


def efficiency_targets(efficiency, mode):
    name = "efficiency (loopback, TLS on): CPU s/GB <= HAProxy's and throughput >= HAProxy's"
    mine = next((r for r in efficiency if r["mode"] == mode and r["status"] == "ok"), None)
    peer = next((r for r in efficiency if r["mode"] == "haproxy" and r["status"] == "ok"), None)
    if mine is None or peer is None:
        return [Target(name, NOT_MEASURED, "not in this run")]
    ok = float(mine["cpu_s_per_gb"]) <= float(peer["cpu_s_per_gb"]) and float(mine["mbit_s"]) >= float(peer["mbit_s"])
    return [Target(name, _verdict(ok), "%s CPU s/GB at %s Mbit/s vs HAProxy %s at %s" % (
        mine["cpu_s_per_gb"], mine["mbit_s"], peer["cpu_s_per_gb"], peer["mbit_s"]))]


def evaluate(tables, mode="tcpopt", nolink_mode="tcpopt-nolink"):
    """tables: CSV name -> list of row dicts (bulk9, interactive, fairness, small_window,
    transactions, efficiency; missing ones empty). Returns the list of Targets for mode."""
    get = lambda name: tables.get(name) or []
    return (bulk_targets(get("bulk9"), mode)
            + interactive_targets(get("interactive"), mode)
            + fairness_targets(get("fairness"), mode)
            + small_window_targets(get("small_window"), mode)
            + transactions_targets(get("transactions"), mode)
            + no_link_targets(get("bulk9"), mode, nolink_mode)
            + efficiency_targets(get("efficiency"), mode))
