#!/usr/bin/env python3
"""Turns the CSV files of one bench/run.sh results folder into results.md, summary.csv
(Mbit/s, ratio to direct, ratio to link rate, per mode) and throughput-vs-rtt.png; with the
issue 9 experiments also targets9.csv (each target met/missed with its value) and issue9-bulk.png.

    report.py RESULTS_DIR
"""
import csv
import os
import sys

import targets9

LINK_MBIT, SW_SIZE, TX_SIZE = targets9.LINK_MBIT, targets9.SW_SIZE, targets9.TX_SIZE
link_seconds = targets9.link_seconds
MODE_ORDER = ["direct", "tcpopt", "tcpopt-nolink", "haproxy", "kcptun"]


def read(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def modes_in(rows):
    seen = {r["mode"] for r in rows}
    return [m for m in MODE_ORDER if m in seen] + sorted(seen - set(MODE_ORDER))


def fmt(value, digits=1):
    return "-" if value is None else ("%.*f" % (digits, value))


def bulk_section(folder, out):
    rows = read(folder, "bulk.csv")
    if not rows:
        return
    modes = modes_in(rows)
    table = {(r["mode"], float(r["rtt_ms"]), float(r["loss_pct"])): r for r in rows}
    settings = sorted({(float(r["loss_pct"]), float(r["rtt_ms"])) for r in rows})
    summary = []
    out.append("## 1. Throughput vs RTT (4 parallel streams server -> client, %g Mbit/s)\n" % LINK_MBIT)
    out.append("Mbit/s of goodput for the whole transfer (start-up included); in brackets the ratio to "
               "direct TCP and to the link rate. *capped* = stopped at the per-run time cap, rate of the "
               "bytes moved until then.\n")
    out.append("| loss | RTT ms | " + " | ".join(modes) + " |")
    out.append("|---|---|" + "---|" * len(modes))
    for loss, rtt in settings:
        direct = table.get(("direct", rtt, loss))
        direct_mbit = float(direct["mbit_s"]) if direct and float(direct["mbit_s"]) > 0 else None
        cells = []
        for mode in modes:
            r = table.get((mode, rtt, loss))
            if r is None:
                cells.append("-")
                continue
            mbit = float(r["mbit_s"])
            to_direct = mbit / direct_mbit if direct_mbit else None
            to_link = mbit / LINK_MBIT
            summary.append({"mode": mode, "rtt_ms": "%g" % rtt, "loss_pct": "%g" % loss, "mbit_s": "%.1f" % mbit,
                            "ratio_to_direct": fmt(to_direct, 2), "ratio_to_link": "%.3f" % to_link,
                            "status": r["status"]})
            note = "" if r["status"] == "ok" else " *%s*" % r["status"].split(":")[0]
            cells.append("%.1f (%sx, %.0f%%)%s" % (mbit, fmt(to_direct, 2), to_link * 100, note))
        out.append("| %g%% | %g | %s |" % (loss, rtt, " | ".join(cells)))
    out.append("")
    with open(os.path.join(folder, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["mode", "rtt_ms", "loss_pct", "mbit_s", "ratio_to_direct", "ratio_to_link", "status"])
        w.writeheader()
        w.writerows(summary)
    if "tcpopt" in modes:
        misses = [s for s in summary if s["mode"] == "tcpopt" and float(s["ratio_to_link"]) < 0.95]
        out.append("Target (tcpopt >= 95%% of the link rate on every row): %s\n" % (
            "met" if not misses else "missed on %d of %d rows" % (len(misses), len([s for s in summary if s["mode"] == "tcpopt"]))))
    chart(folder, rows, modes)
    out.append("![throughput vs RTT](throughput-vs-rtt.png)\n")


def pyplot():
    """matplotlib's pyplot without a display, or None (and a note) where it is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("report.py: matplotlib missing, no chart", file=sys.stderr)
        return None


def chart(folder, rows, modes):
    plt = pyplot()
    if plt is None:
        return
    losses = sorted({float(r["loss_pct"]) for r in rows})
    fig, axes = plt.subplots(1, len(losses), figsize=(6 * len(losses), 4.5), sharey=True, squeeze=False)
    for ax, loss in zip(axes[0], losses):
        for mode in modes:
            points = sorted((float(r["rtt_ms"]), float(r["mbit_s"]), r["status"]) for r in rows
                            if r["mode"] == mode and float(r["loss_pct"]) == loss)
            if not points:
                continue
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=mode)
            for x, y, status in points:
                if status != "ok":
                    ax.annotate(status.split(":")[0], (x, y), textcoords="offset points", xytext=(0, 6),
                                fontsize=7, ha="center")
        ax.axhline(LINK_MBIT, color="grey", linestyle=":", label="link rate")
        ax.axhline(0.95 * LINK_MBIT, color="grey", linestyle="--", linewidth=0.8, label="95% target")
        ax.set_title("loss %g%%" % loss)
        ax.set_xlabel("RTT (ms)")
        ax.set_ylim(0, LINK_MBIT * 1.1)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Mbit/s (4 streams, whole transfer)")
    axes[0][-1].legend(loc="lower left", fontsize=8)
    fig.suptitle("Throughput vs RTT, %g Mbit/s WAN" % LINK_MBIT)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "throughput-vs-rtt.png"), dpi=110)


def small_window_section(folder, out):
    rows = read(folder, "small_window.csv")
    if not rows:
        return
    per_download_floor = targets9.small_window_floor(rows[0])
    out.append("## 2. Small-window client (no window scaling, 3 x 3 MiB per run over one connection, %.0f ms RTT)\n"
               % float(rows[0].get("rtt_ms") or targets9.SW_RTT_MS))
    out.append("Floor per download: RTT + 3 MiB at link rate = %.3f s; per run of 3: %.2f s.\n"
               % (per_download_floor, 3 * per_download_floor))
    out.append("| mode | runs (s) | downloads done | total s | floor s | total / floor | KB/s |")
    out.append("|---|---|---|---|---|---|---|")
    for mode in modes_in(rows):
        mine = [r for r in rows if r["mode"] == mode]
        total = sum(float(r["total_s"]) for r in mine)
        done = sum(int(r["completed"]) for r in mine)
        floor = done * per_download_floor
        notes = [r["status"] for r in mine if r["status"] != "ok"]
        out.append("| %s | %s | %d | %.2f | %.2f | %s | %.0f |%s" % (
            mode, ", ".join("%.2f" % float(r["total_s"]) for r in mine), done, total, floor,
            fmt(total / floor if floor else None, 2), done * SW_SIZE / 1000 / total if total else 0,
            " " + ", ".join(notes) if notes else ""))
    out.append("\nTarget: tcpopt within 120% of the floor.\n")


def transactions_shape(r):
    """RTT (ms) and concurrency of a transactions.csv row; rows without them ran at targets9's defaults."""
    return float(r.get("rtt_ms") or targets9.TX_RTT_MS), int(r.get("concurrency") or targets9.TX_CONCURRENCY)


def transactions_p50_target(r):
    rtt_ms, concurrency = transactions_shape(r)
    return 1.3 * (rtt_ms / 1000 + link_seconds(concurrency * TX_SIZE))


def transactions_section(folder, out):
    rows = read(folder, "transactions.csv")
    if not rows:
        return
    rtt_ms, concurrency = transactions_shape(rows[0])
    out.append("## 3. Short transactions (256 KiB each, a new connection each, concurrency %d, %.0f ms RTT)\n"
               % (concurrency, rtt_ms))
    p50_target = transactions_p50_target(rows[0])
    out.append("Floor for all: N x 256 KiB at link rate, or ceil(N / concurrency) x (RTT + 256 KiB at link rate) if longer; p50 target: 130%% of (RTT + %d x 256 KiB at link rate) = %.3f s.\n"
               % (concurrency, p50_target))
    out.append("| mode | completed | total s | floor s | total / floor | p50 s | p99 s | server connections | WAN packets |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        floor = targets9.transactions_floor(r, int(r["completed"]))
        out.append("| %s | %s/%s | %s | %.2f | %s | %s | %s | %s | %s |%s" % (
            r["mode"], r["completed"], r["requests"], r["total_s"], floor,
            fmt(float(r["total_s"]) / floor if floor else None, 2), r["p50_s"], r["p99_s"],
            r["server_connections"], r["wan_packets"], "" if r["status"] == "ok" else " " + r["status"]))
    out.append("\nTargets: tcpopt within 115%% of the floor, p50 within %.3f s.\n" % p50_target)


def efficiency_section(folder, out):
    rows = read(folder, "efficiency.csv")
    if not rows:
        return
    out.append("## 5. Efficiency: branch/DC pair on loopback, no WAN emulation (4 streams)\n")
    out.append("CPU = user + system seconds of the two relay processes only (iperf3 excluded); all "
               "processes share the machine's CPUs, so throughput is CPU-bound.\n")
    out.append("| mode | Mbit/s | relay CPU s | CPU s per GB |")
    out.append("|---|---|---|---|")
    for r in rows:
        out.append("| %s | %s | %s | %s |%s" % (r["mode"], r["mbit_s"], r["relay_cpu_s"], r["cpu_s_per_gb"],
                                            "" if r["status"] == "ok" else " " + r["status"]))
    out.append("")


def targets_section(folder, out):
    """The issue's targets for tcpopt, each marked met or missed (reported, not asserted)."""
    bulk = [r for r in read(folder, "bulk.csv")]
    mine = [r for r in bulk if r["mode"] == "tcpopt"]
    if not mine:
        return
    lines = []
    def by(mode, r):
        return next((x for x in bulk if x["mode"] == mode and x["rtt_ms"] == r["rtt_ms"] and x["loss_pct"] == r["loss_pct"]), None)
    low = [r for r in mine if float(r["mbit_s"]) < 0.95 * LINK_MBIT]
    lines.append("| bulk: >= 95%% of the link rate on every row | %s |" % (
        "met" if not low else "missed on %d/%d rows (lowest %.1f Mbit/s = %.0f%%)" % (
            len(low), len(mine), min(float(r["mbit_s"]) for r in low), 100 * min(float(r["mbit_s"]) for r in low) / LINK_MBIT)))
    zero = [(r, by("direct", r)) for r in mine if float(r["rtt_ms"]) == 0]
    slower = [r for r, d in zero if d is not None and float(r["mbit_s"]) < float(d["mbit_s"])]
    lines.append("| bulk: at RTT 0 no slower than direct | %s |" % ("met" if zero and not slower else
        "missed at loss %s" % ", ".join(r["loss_pct"] + "%" for r in slower) if slower else "not measured"))
    for peer in ("haproxy", "kcptun"):
        rows = [(r, by(peer, r)) for r in mine if by(peer, r) is not None]
        if rows:
            behind = [r for r, p in rows if float(r["mbit_s"]) <= float(p["mbit_s"])]
            lines.append("| bulk: ahead of %s on every row | %s |" % (
                peer, "met" if not behind else "missed on %d/%d rows" % (len(behind), len(rows))))
    sw = [r for r in read(folder, "small_window.csv") if r["mode"] == "tcpopt"]
    if sw:
        done = sum(int(r["completed"]) for r in sw)
        total = sum(float(r["total_s"]) for r in sw)
        floor = sum(int(r["completed"]) * targets9.small_window_floor(r) for r in sw)
        ratio = total / floor if floor else float("inf")
        lines.append("| small window: within 120%% of the floor | %s (%.0f%% of the floor) |" % ("met" if ratio <= 1.2 and done == 3 * len(sw) else "missed", 100 * ratio))
    tx = [r for r in read(folder, "transactions.csv") if r["mode"] == "tcpopt"]
    for r in tx:
        floor = targets9.transactions_floor(r, int(r["requests"]))
        ratio = float(r["total_s"]) / floor
        lines.append("| transactions: all within 115%% of the floor | %s (%.0f%%) |" % ("met" if ratio <= 1.15 and r["status"] == "ok" else "missed", 100 * ratio))
        p50_target = transactions_p50_target(r)
        lines.append("| transactions: p50 within %.3f s | %s (p50 %s s) |" % (p50_target, "met" if float(r["p50_s"]) <= p50_target else "missed", r["p50_s"]))
    out.append("## Targets (issue 5) for tcpopt\n")
    out.append("| target | result |")
    out.append("|---|---|")
    out.extend(lines)
    out.append("")


def issue9_section(folder, out):
    tables = {name: read(folder, name + ".csv")
              for name in ("bulk9", "interactive", "fairness", "small_window", "transactions", "efficiency")}
    if not (tables["bulk9"] or tables["interactive"] or tables["fairness"]):
        return
    targets = targets9.evaluate(tables)
    with open(os.path.join(folder, "targets9.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["target", "verdict", "value"])
        w.writerows(targets)
    out.append("## Targets (issue 9) for tcpopt\n")
    out.append("| target | verdict | value |")
    out.append("|---|---|---|")
    out.extend("| %s | %s | %s |" % t for t in targets)
    out.append("")
    bulk = tables["bulk9"]
    if bulk:
        modes = modes_in(bulk)
        table = {(r["mode"], float(r["link_mbit"]), float(r["rtt_ms"]), float(r["loss_pct"])): r for r in bulk}
        settings = []
        for r in bulk:
            key = (float(r["link_mbit"]), float(r["rtt_ms"]), float(r["loss_pct"]))
            if key not in settings:
                settings.append(key)
        out.append("## 9.1-9.2 Fixed-size bulk (4 streams, 400 MB in all, whole transfer counted)\n")
        out.append("Mbit/s; in brackets the share of the goodput ceiling (link rate x 1448/1500). "
                   "*capped* = stopped at the time cap, rate of the bytes moved until then.\n")
        out.append("| link Mbit/s | RTT ms | loss | " + " | ".join(modes) + " |")
        out.append("|---|---|---|" + "---|" * len(modes))
        for link, rtt, loss in settings:
            cells = []
            for mode in modes:
                r = table.get((mode, link, rtt, loss))
                if r is None:
                    cells.append("-")
                    continue
                cells.append("%.1f (%.0f%%)%s" % (float(r["mbit_s"]), 100 * float(r["mbit_s"]) / targets9.ceiling(link),
                                                  "" if r["status"] == "ok" else " *%s*" % r["status"].split(":")[0]))
            out.append("| %g | %g | %g%% | %s |" % (link, rtt, loss, " | ".join(cells)))
        out.append("")
        issue9_chart(folder, bulk, modes)
        out.append("![issue 9 bulk](issue9-bulk.png)\n")
    if tables["interactive"]:
        out.append("## 9.3 Interactive beside bulk (1 KB request/echo every 50 ms, own connection, 4 bulk streams)\n")
        out.append("Echo latency of the requests sent while the bulk transfer ran; idle = before it started.\n")
        out.append("| mode | RTT ms | samples | echo p50 ms | echo p99 ms | max ms | idle p50 ms | bulk Mbit/s | status |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in tables["interactive"]:
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s |" % (
                r["mode"], r["rtt_ms"], r["samples"], r["p50_ms"], r["p99_ms"], r["max_ms"], r["idle_p50_ms"],
                r["bulk_mbit_s"], r["bulk_status"], r["status"]))
        out.append("")
    if tables["fairness"]:
        out.append("## 9.4 Fairness (N bulk flows at once, 100 ms RTT)\n")
        out.append("| mode | flows | Mbit/s in all | per flow min..max | largest deviation from the mean | Jain | status |")
        out.append("|---|---|---|---|---|---|---|")
        for r in tables["fairness"]:
            out.append("| %s | %s | %s | %s..%s | %s%% | %s | %s |" % (
                r["mode"], r["flows"], r["total_mbit_s"], r["min_mbit_s"], r["max_mbit_s"], r["max_deviation_pct"],
                r["jain"], r["status"]))
        out.append("")


def issue9_chart(folder, rows, modes):
    plt = pyplot()
    if plt is None:
        return
    base = [r for r in rows if float(r["link_mbit"]) == LINK_MBIT]
    fast = [r for r in rows if float(r["link_mbit"]) != LINK_MBIT]
    losses = sorted({float(r["loss_pct"]) for r in base})
    panels = len(losses) + (1 if fast else 0)
    fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 4.2), squeeze=False)
    for ax, loss in zip(axes[0], losses):
        for mode in modes:
            points = sorted((float(r["rtt_ms"]), float(r["mbit_s"])) for r in base
                            if r["mode"] == mode and float(r["loss_pct"]) == loss)
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=mode,
                        color="C%d" % modes.index(mode))
        ax.axhline(targets9.ceiling(LINK_MBIT), color="grey", linestyle=":", label="goodput ceiling")
        ax.axhline((0.95 if loss <= 1 else 0.90) * targets9.ceiling(LINK_MBIT), color="grey", linestyle="--",
                   linewidth=0.8, label="target")
        ax.set_title("%g Mbit/s, loss %g%%" % (LINK_MBIT, loss))
        ax.set_xlabel("RTT (ms)")
        ax.set_xlim(-10, max(float(r["rtt_ms"]) for r in base) + 10)
        ax.set_ylim(0, LINK_MBIT * 1.05)
        ax.grid(alpha=0.3)
    if fast:
        ax = axes[0][-1]
        names = [m for m in modes if any(r["mode"] == m for r in fast)]
        values = [float(next(r for r in fast if r["mode"] == m)["mbit_s"]) for m in names]
        ax.bar(range(len(names)), values, color=["C%d" % modes.index(m) for m in names])
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, fontsize=8)
        link = float(fast[0]["link_mbit"])
        ax.axhline(targets9.ceiling(link), color="grey", linestyle=":")
        ax.set_title("%g Mbit/s, %s ms, loss 0%%" % (link, fast[0]["rtt_ms"]))
        ax.set_ylim(0, link * 1.05)
        ax.grid(alpha=0.3, axis="y")
    axes[0][0].set_ylabel("Mbit/s (4 x 100 MB, whole transfer)")
    axes[0][0].legend(loc="lower left", fontsize=7)
    fig.suptitle("Issue 9: fixed-size bulk, CUBIC end hosts")
    fig.tight_layout()
    fig.savefig(os.path.join(folder, "issue9-bulk.png"), dpi=100)


def main():
    folder = sys.argv[1]
    out = ["# tcpopt benchmark results\n"]
    env = os.path.join(folder, "environment.txt")
    if os.path.exists(env):
        out.append("```\n" + open(env).read().strip() + "\n```\n")
    unavailable = os.path.join(folder, "unavailable.txt")
    if os.path.exists(unavailable):
        out.append("Modes not measured:\n")
        out.extend("- " + line.strip() for line in open(unavailable) if line.strip())
        out.append("")
    targets_section(folder, out)
    issue9_section(folder, out)
    bulk_section(folder, out)
    small_window_section(folder, out)
    transactions_section(folder, out)
    efficiency_section(folder, out)
    with open(os.path.join(folder, "results.md"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
