#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw results of tools/bench/guest/bench.sh into a JSON file and
a table.

Usage: report.py RAW_DIR JSON_OUT TXT_OUT

RAW_DIR holds params.txt, notes.txt (lines printed as they are),
writeback.txt (key=value lines, one per run), devbw-DEVICE.json,
io/DRIVER-ENGINE-RW-RUN.json (fio JSON output), calls.txt and memory.txt
(key=value lines, one per run), slot-size.txt (tools/build/slot-size.sh's
line, for stock's bytes per slot), for a profiled iowb suite,
iowb-profile.txt (key=value lines), and for suite wbread
io/DRIVER-wbread-STATE-ENGINE-RUN.json (fio JSON) and wbread.txt (key=value
lines, one per fio run: the backing device's reads during it).
"""

import json
import os
import re
import statistics
import sys

# a driver: MODULE[-packed][-bN] (tools/bench/guest/lib.sh)
DRIVER_RE = re.compile(r"^(stock|ours)(-packed)?(?:-b(\d+))?$")
# ratio columns of the writeback tables: (numerator, denominator, title)
WB_RATIOS = [("ours", "stock", "ours/stock"),
             ("ours-packed", "stock-packed", "packed/stock-packed"),
             ("ours-packed", "ours", "packed/ours")]
# The rework's targets against stock (upstream's zram of the booted
# kernel), on the flash model, each driver at its defaults: (title, suite, case, numerator, denominator, metric, op, bound).
# A writeback case is a bitmap and its ratio one of medians; an io case is
# (engine, rw) and its ratio the median of the runs' own ratios.
TARGET_DEVICE = "flash"
TARGETS = [
    ("fresh: wall stock/ours (compressed_writeback 0)", "writeback",
     "fresh", "stock", "ours", "wall_s", ">=", 2.0),
    ("fresh: wall stock-packed/ours-packed (compressed_writeback 1)",
     "writeback", "fresh", "stock-packed", "ours-packed", "wall_s", ">=",
     3.0),
    ("fresh: bd_writes ours-packed/stock-packed", "writeback", "fresh",
     "ours-packed", "stock-packed", "bd_writes", "<=", 0.6),
    ("fragmented: wall stock/ours", "writeback", "fragmented", "stock",
     "ours", "wall_s", ">=", 1.0),
    ("fragmented: wall stock-packed/ours-packed", "writeback", "fragmented",
     "stock-packed", "ours-packed", "wall_s", ">=", 2.0),
    ("io_uring randread: iops ours/stock", "io", ("io_uring", "randread"),
     "ours", "stock", "iops", ">=", 1.2),
    ("psync randread: iops ours/stock", "io", ("psync", "randread"),
     "ours", "stock", "iops", ">=", 0.98),
    ("psync randwrite: iops ours/stock", "io", ("psync", "randwrite"),
     "ours", "stock", "iops", ">=", 0.98),
]
# runs the targets ask for at least: writeback, io, wbread
TARGET_RUNS = {"writeback": 3, "io": 5, "wbread": 5}
# printed under the targets when they ran: stock with more bios in flight
COMPARE = [
    ("fresh: wall stock-b256/ours", "writeback", "fresh", "stock-b256",
     "ours", "wall_s", None, None),
    ("fresh: wall stock-packed-b256/ours-packed", "writeback", "fresh",
     "stock-packed-b256", "ours-packed", "wall_s", None, None),
    ("fragmented: wall stock-b256/ours", "writeback", "fragmented",
     "stock-b256", "ours", "wall_s", None, None),
    ("fragmented: wall stock-packed-b256/ours-packed", "writeback",
     "fragmented", "stock-packed-b256", "ours-packed", "wall_s", None, None),
]
# suite calls: (title, (case, driver) numerator, (case, driver)
# denominator, metric, op, bound); the ratio is the median of the runs' own
CALLS_TARGETS = [
    ("pages: wall ours/stock (4096 one-page calls)", ("pages", "ours"),
     ("pages", "stock"), "wall_s", "<=", 1.0),
    ("pages: wall ours-packed/stock-packed", ("pages", "ours-packed"),
     ("pages", "stock-packed"), "wall_s", "<=", 1.0),
    ("ours: wall 64 calls of 1 MiB / one call of 64 MiB",
     ("ranges", "ours"), ("one", "ours"), "wall_s", "<=", 1.3),
    ("ours-packed: wall 64 calls of 1 MiB / one call",
     ("ranges", "ours-packed"), ("one", "ours-packed"), "wall_s", "<=", 1.3),
    ("ours: wall 256 page_index= / one range per call",
     ("params", "ours"), ("params-r", "ours"), "wall_s", "<=", 1.5),
    ("ours-packed: wall 256 page_index= / one range per call",
     ("params", "ours-packed"), ("params-r", "ours-packed"), "wall_s", "<=",
     1.5),
    ("ours-packed: bd_writes 256 page_index= / one range per call",
     ("params", "ours-packed"), ("params-r", "ours-packed"), "bd_writes",
     "<=", 1.0),
]
# suite memory: (title, driver, metric, bound); metric values are medians
MEM_TARGETS = [
    ("ours: slot table bytes per slot <= stock's", "ours", "slot_bytes",
     "stock"),
    ("ours: backing maps KiB per GiB of backing device", "ours",
     "maps_kib_per_gib_bd", 64),
    ("ours-packed: maps + packing KiB per GiB of backing device",
     "ours-packed", "bd_meta_kib_per_gib_bd", 640),
    ("ours-packed: metadata a writeback allocated (bytes)", "ours-packed",
     "wb_alloc_bytes", 0),
]
MEM_METRICS = ["slot_bytes", "table_kib_per_gib_disk", "maps_kib_per_gib_bd",
               "pack_kib_per_gib_bd", "bd_meta_kib_per_gib_bd",
               "wb_alloc_bytes", "mem_used_kib_per_mib"]
# suite wbread: (states, engines, numerator, denominator, metric, op,
# bound), a target on each state and each engine of the kind (rand-*,
# seq-*) that ran; the ratio is the median of the runs' own. The
# denominator "device" is the null_blk's own seq-psync of the same run.
WBREAD_TARGETS = [
    (("s1", "s2"), "rand", "ours", "stock", "iops", ">=", 1.0),
    (("s1", "s2"), "rand", "ours-packed", "stock-packed", "iops", ">=", 1.0),
    (("s1",), "seq", "ours", "device", "mibps", ">=", 0.9),
    (("s1",), "seq", "stock", "ours", "cmds_per_mib", ">=", 4.0),
    (("s2",), "seq", "ours", "stock", "mibps", ">=", 1.2),
]
# suite wbread: its states and engines, in the order of the table
WBREAD_STATES = ["s1", "s2"]
WBREAD_ENGINES = ["rand-uring1", "rand-uring2", "rand-psync4", "seq-psync",
                  "seq-uring"]
# io/DRIVER-wbread-STATE-ENGINE-RUN.json (tools/bench/guest/wbread.sh)
WBREAD_JSON_RE = re.compile(
    r"^(?P<driver>.+)-wbread-(?P<state>[^-]+)-(?P<engine>.+)-(?P<run>\d+)"
    r"\.json$")
CALLS_CASES = ["one", "ranges", "pages", "params", "params-r"]
CALLS_METRICS = ["wall_s", "ms_per_call", "sys_s", "bd_writes", "calls"]
WB_METRICS = ["wall_s", "sys_s", "sys_all_s", "mbps", "pct_dev_bw",
              "bd_writes", "setup_wb_s", "setup_discarded"]
IO_METRICS = ["iops", "ctx", "slat_p99_us", "clat_p99_us", "clat_mean_us",
              "cpu_sys_pct", "cpu_usr_pct"]
# (suites, line): the legend's lines, each printed when one of its suites ran
LEGEND = [
    ("writeback", "wall_s: `echo idle > writeback`; sys_s: its system CPU "
     "time in the writer (bash time);"),
    ("writeback", "sys_all_s: system+irq+softirq of all CPUs (/proc/stat "
     "ticks, coarse and undercounting under TCG);"),
    ("writeback", "mbps: bd_writes delta * 4 KiB / wall_s; pct_dev_bw: of "
     "the device's fio 128k qd8 sequential write (CPU bound under TCG);"),
    ("writeback", "bitmap: fresh; fragmented: every other block used; "
     "random: a random half of the blocks used (runs of mixed length);"),
    ("writeback", "setup_wb_s: untimed writeback of 2x the data + 1 MiB "
     "that fragments the bitmap (setup_discarded: pages it left in RAM, "
     "discarded);"),
    ("io iowb", "io: fio 4 KiB, O_DIRECT, 2 jobs, io_uring qd16 / psync "
     "(psync has no slat); iops_run_ratio: median [min-max] of each run's "
     "own ratio (the drivers of a run share its boot);"),
    ("writeback io iowb", "stock: the booted kernel's own zram.ko; "
     "-packed: with compressed_writeback (stock: an object per block; "
     "ours: objects packed into blocks); -bN: writeback_batch_size=N;"),
    ("writeback", "ours-packed's fragmented setup writes incompressible "
     "data;"),
    ("calls", "calls (suite calls, NVMe-model null_blk, no bandwidth cap): "
     "one: one write of page_indexes= over all; ranges: one per MiB; "
     "pages: page_index= per page over 4096 pages; params: writes of 256 "
     "page_index= over 9984 pages; params-r: a range per such write;"),
    ("iowb", "io randreadwb: io_uring randread of data written back to a "
     "flash-model null_blk (suite iowb) with 4 KiB logical blocks; "
     "randreadwb512: the same with 512-byte ones."),
    ("wbread", "wbread: fio O_DIRECT reads of zram0, all of it written "
     "back to a flash-model null_blk (4 KiB blocks); s1: after one idle "
     "writeback; s2: then cycles of every other page discarded, rewritten "
     "and written back; rand-uring1/2: io_uring randread 4k qd16, 1/2 "
     "jobs; rand-psync4: psync randread 4k, 4 jobs; seq-psync: psync read "
     "128k; seq-uring: io_uring read 128k qd4;"),
    ("wbread", "wbread: IOPS (rand-*) or MiB/s (seq-*); cmds/MiB: the "
     "null_blk's read commands per MiB fio read; device: the null_blk's own "
     "seq-psync read (its MiB/s, its cmds/MiB); ratios: median [min-max] "
     "of the runs' own;"),
    ("memory", "memory: ours' metadata from debugfs metadata; stock's from "
     "its layout (bytes per slot by pahole, one bitmap bit per block, no "
     "packing state); wb_alloc_bytes: metadata grown by the writeback; "
     "mem_used: mm_stat mem_used_total after the fill, per MiB stored."),
]
PAGE = 4096
MIB = 1 << 20
# BENCH_IOWB_PROFILE: rows of the profile table, in order (symbol, title),
# out of every kernel symbol the guest records; the idle loop gives the
# busy row, the others their time with callees
PROF_IDLE = "pv_native_safe_halt"
PROF_ROWS = [
    ("__do_sys_io_uring_enter", "io_uring_enter (submission)"),
    ("zram_submit_bio", "zram_submit_bio"),
    ("zram_bdev_read", "zram_bdev_read (backing read issue)"),
    ("null_queue_rq", "null_queue_rq (the device)"),
    ("handle_softirqs", "softirq"),
    ("zram_bdev_pdone_fn", "zram_bdev_pdone_fn (packed done)"),
    ("zram_obj_decompress", "zram_obj_decompress"),
    ("__kmalloc_noprof", "__kmalloc_noprof"),
    ("kfree", "kfree"),
    ("memset_orig", "memset_orig"),
]


def kv_line(line):
    """Split 'a=1 b=x' into a dict."""
    return dict(tok.split("=", 1) for tok in line.split() if "=" in tok)


def kv_lines(path):
    """The non-empty key=value lines of a file, as dicts."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = kv_line(line)
            if r:
                yield r


def load_fio(path):
    """fio JSON, skipping any text fio printed before the JSON object."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def driver_key(name):
    """stock before ours, each at its defaults first, then packed, then by
    writeback_batch_size"""
    m = DRIVER_RE.match(name)
    if not m:
        return (2, 0, 0, name)
    return (m.group(1) != "stock", bool(m.group(2)), int(m.group(3) or 0),
            name)


def median_record(base, runs):
    rec = dict(base)
    rec["runs"] = runs
    rec["median"] = statistics.median(runs) if runs else None
    return rec


def dev_bandwidth(raw):
    """MiB/s of the measured fio pass per device name."""
    bw = {}
    for name in os.listdir(raw):
        if name.startswith("devbw-") and name.endswith(".json"):
            job = load_fio(os.path.join(raw, name))["jobs"][0]
            bw[name[6:-5]] = job["write"]["bw_bytes"] / MIB
    return bw


def writeback_records(raw, bw):
    path = os.path.join(raw, "writeback.txt")
    if not os.path.exists(path):
        return []
    runs = {}
    knobs = {}
    for r in kv_lines(path):
        knobs[r["driver"]] = {k: r.get(k, "-") for k in
                              ("wb_max_bio_pages", "writeback_batch_size",
                               "compressed_writeback")}
        wall = float(r["wall_s"])
        vals = {k: float(r.get(k, 0)) for k in
                ("wall_s", "sys_s", "sys_all_s", "bd_writes",
                 "setup_wb_s", "setup_discarded")}
        vals["mbps"] = vals["bd_writes"] * PAGE / MIB / wall \
            if wall > 0 else 0.0
        if r["device"] in bw:
            vals["pct_dev_bw"] = 100.0 * vals["mbps"] / bw[r["device"]]
        key = (r["device"], r["bitmap"], r["driver"])
        for m, v in vals.items():
            runs.setdefault(key + (m,), []).append(v)
    recs = []
    for dev, mbps in sorted(bw.items()):
        recs.append(median_record({"suite": "writeback", "device": dev,
                                   "bitmap": None, "driver": None,
                                   "metric": "dev_write_mbps"}, [mbps]))
    for (dev, bitmap, drv, m), v in sorted(runs.items()):
        recs.append(median_record({"suite": "writeback", "device": dev,
                                   "bitmap": bitmap, "driver": drv,
                                   "metric": m, "knobs": knobs[drv]}, v))
    return recs


def io_values(job, rw):
    d = job["read" if rw.startswith("randread") else "write"]
    pct = "99.000000"
    return {
        "iops": d["iops"],
        "ctx": job["ctx"],
        "slat_p99_us": d["slat_ns"].get("percentile", {}).get(pct, 0) / 1e3,
        "clat_p99_us": d["clat_ns"].get("percentile", {}).get(pct, 0) / 1e3,
        "clat_mean_us": d["clat_ns"]["mean"] / 1e3,
        "cpu_sys_pct": job["sys_cpu"],
        "cpu_usr_pct": job["usr_cpu"],
    }


def io_records(raw):
    iodir = os.path.join(raw, "io")
    if not os.path.isdir(iodir):
        return []
    runs = {}
    for name in sorted(os.listdir(iodir)):
        if not name.endswith(".json") or WBREAD_JSON_RE.match(name):
            continue
        drv, engine, rw, run = name[:-5].rsplit("-", 3)
        job = load_fio(os.path.join(iodir, name))["jobs"][0]
        for m, v in io_values(job, rw).items():
            runs.setdefault((engine, rw, drv, m), {})[run] = v
    recs = []
    for (e, rw, drv, m), by_run in sorted(runs.items()):
        rec = median_record({"suite": "io", "engine": e, "rw": rw,
                             "driver": drv, "metric": m},
                            list(by_run.values()))
        rec["by_run"] = by_run
        recs.append(rec)
    return recs


def run_ratios(a, b):
    """a/b of each run both have, sorted: the drivers of one run share a
    boot, so its ratio is free of the run-to-run noise that the ratio of
    medians carries"""
    if a is None or b is None:
        return []
    return sorted(a["by_run"][k] / b["by_run"][k] for k in a["by_run"]
                  if b["by_run"].get(k))


def verdict(v, op, bound, runs, want):
    """A target's verdict: "not run" when v is None, else met or MISSED,
    noting when fewer runs than the target asks for (want) measured it"""
    if v is None:
        return "not run"
    out = "met" if (v >= bound if op == ">=" else v <= bound) else "MISSED"
    if runs < want:
        out += " (%d runs; the target asks for %d)" % (runs, want)
    return out


def ratio_target_row(title, a, b, op, bound, want):
    """A target's row for the median of run_ratios(a, b): title, ratio
    with its spread, the two medians, what it needs, the verdict"""
    q = run_ratios(a, b)
    needs = "%s %.2f" % (op, bound)
    if not q:
        return [title, "-", "", needs, "not run"]
    v = statistics.median(q)
    return [title, "%.2fx [%.2f-%.2f]" % (v, q[0], q[-1]),
            "%s / %s" % (fmt(a["median"]), fmt(b["median"])), needs,
            verdict(v, op, bound, len(q), want)]


def run_ratio(a, b):
    """median [min-max] of run_ratios(a, b)"""
    q = run_ratios(a, b)
    if not q:
        return "-"
    return "%.2fx [%.2f-%.2f]" % (statistics.median(q), q[0], q[-1])


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.3g" % v


def cell(rec):
    if rec is None or not rec["runs"]:
        return "-"
    return "%s [%s-%s]" % (fmt(rec["median"]), fmt(min(rec["runs"])),
                           fmt(max(rec["runs"])))


def ratio(a, b):
    if a is None or b is None or not b["median"]:
        return "-"
    return "%.2fx" % (a["median"] / b["median"])


def table(head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows)
              for i in range(len(head))]
    out = []
    for r in [head] + rows:
        out.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return out


def writeback_table(recs):
    idx = {(r["device"], r["bitmap"], r["driver"], r["metric"]): r
           for r in recs}
    knobs = {r["driver"]: r["knobs"] for r in recs if r.get("knobs")}
    lines = ["", "writeback knobs: " + "; ".join(
        "%s %s" % (d, " ".join("%s=%s" % kv for kv in sorted(k.items())))
        for d, k in sorted(knobs.items(),
                           key=lambda i: driver_key(i[0])))] if knobs else []
    order = {"fresh": 0, "fragmented": 1, "random": 2}
    cases = sorted({(r["device"], r["bitmap"]) for r in recs
                    if r["bitmap"]},
                   key=lambda c: (c[0], order.get(c[1], 3), c[1]))
    for dev, bitmap in cases:
        bw = idx.get((dev, None, None, "dev_write_mbps"))
        lines.append("")
        lines.append("writeback: device %s (fio seq write 128k qd8: %s "
                     "MiB/s), bitmap %s" % (dev, fmt(bw and bw["median"]),
                                            bitmap))
        drivers = sorted({r["driver"] for r in recs
                          if (r["device"], r["bitmap"]) == (dev, bitmap)},
                         key=driver_key)
        ratios = [q for q in WB_RATIOS
                  if q[0] in drivers and q[1] in drivers]
        head = ["metric"] + drivers + [q[2] for q in ratios]
        rows = []
        for m in WB_METRICS:
            r = {d: idx.get((dev, bitmap, d, m)) for d in drivers}
            if not any(r.values()):
                continue
            rows.append([m] + [cell(r[d]) for d in drivers] +
                        [ratio(r[a], r[b]) for a, b, _ in ratios])
        lines += table(head, rows)
    return lines


def io_table(recs):
    idx = {(r["engine"], r["rw"], r["driver"], r["metric"]): r
           for r in recs}
    lines = []
    for engine, rw in sorted({(r["engine"], r["rw"]) for r in recs}):
        drivers = sorted({r["driver"] for r in recs
                          if (r["engine"], r["rw"]) == (engine, rw)},
                         key=driver_key)
        lines.append("")
        lines.append("io: %s %s 4k, 2 jobs" % (engine, rw))
        head = ["metric"] + drivers + ["%s/%s" % (d, drivers[0])
                                       for d in drivers[1:]]
        rows = []
        for m in IO_METRICS:
            r = [idx.get((engine, rw, d, m)) for d in drivers]
            rows.append([m] + [cell(x) for x in r] +
                        [ratio(x, r[0]) for x in r[1:]])
        r = [idx.get((engine, rw, d, "iops")) for d in drivers]
        if len(r) > 1:
            rows.append(["iops_run_ratio"] + ["" for _ in r] +
                        [run_ratio(x, r[0]) for x in r[1:]])
        lines += table(head, rows)
    return lines


def calls_records(raw):
    """Suite calls: a record per (case, driver, metric), with by_run."""
    path = os.path.join(raw, "calls.txt")
    if not os.path.exists(path):
        return []
    runs = {}
    for r in kv_lines(path):
        vals = {k: float(r[k]) for k in ("wall_s", "sys_s", "bd_writes",
                                          "calls")}
        vals["ms_per_call"] = 1e3 * vals["wall_s"] / vals["calls"]
        for m, v in vals.items():
            runs.setdefault((r["case"], r["driver"], m), {})[r["run"]] = v
    recs = []
    for (case, drv, m), by_run in sorted(runs.items()):
        rec = median_record({"suite": "calls", "case": case, "driver": drv,
                             "metric": m}, list(by_run.values()))
        rec["by_run"] = by_run
        recs.append(rec)
    return recs


def calls_table(recs):
    idx = {(r["case"], r["driver"], r["metric"]): r for r in recs}
    lines = []
    for case in CALLS_CASES:
        drivers = sorted({r["driver"] for r in recs if r["case"] == case},
                         key=driver_key)
        if not drivers:
            continue
        lines.append("")
        lines.append("calls: %s" % case)
        head = ["metric"] + drivers
        rows = [[m] + [cell(idx.get((case, d, m))) for d in drivers]
                for m in CALLS_METRICS]
        lines += table(head, rows)
    return lines


def calls_targets(recs):
    """CALLS_TARGETS, each met or missed."""
    idx = {(r["case"], r["driver"], r["metric"]): r for r in recs}
    rows = []
    for title, num, den, metric, op, bound in CALLS_TARGETS:
        rows.append(ratio_target_row(title, idx.get(num + (metric,)),
                                     idx.get(den + (metric,)), op, bound,
                                     TARGET_RUNS["writeback"]))
    if not recs:
        return []
    return ["", "targets of suite calls: median [min-max] of the runs' own "
            "ratios (medians: s, blocks)"] + \
        table(["target", "ratio", "medians", "needs", "verdict"], rows)


def wbread_records(raw):
    """Suite wbread: a record per (state, engine, driver, metric), with
    by_run; the device's own read is driver "device", state "dev"."""
    iodir = os.path.join(raw, "io")
    path = os.path.join(raw, "wbread.txt")
    if not os.path.exists(path) or not os.path.isdir(iodir):
        return []
    cmds = {(r["driver"], r["state"], r["engine"], r["run"]):
            float(r["dev_reads"]) for r in kv_lines(path)}
    runs = {}
    for name in sorted(os.listdir(iodir)):
        m = WBREAD_JSON_RE.match(name)
        if not m:
            continue
        key = (m["driver"], m["state"], m["engine"], m["run"])
        read = load_fio(os.path.join(iodir, name))["jobs"][0]["read"]
        vals = {"iops": read["iops"], "mibps": read["bw_bytes"] / MIB}
        if key in cmds and read["io_bytes"]:
            vals["cmds_per_mib"] = cmds[key] / (read["io_bytes"] / MIB)
        for metric, v in vals.items():
            runs.setdefault((m["state"], m["engine"], m["driver"], metric),
                            {})[m["run"]] = v
    recs = []
    for (state, engine, drv, metric), by_run in sorted(runs.items()):
        rec = median_record({"suite": "wbread", "state": state,
                             "engine": engine, "driver": drv,
                             "metric": metric}, list(by_run.values()))
        rec["by_run"] = by_run
        recs.append(rec)
    return recs


def wbread_index(recs):
    """{(state, engine, driver, metric): record}; the device's own read
    under every state and seq-* engine, the denominator of their rows"""
    idx = {(r["state"], r["engine"], r["driver"], r["metric"]): r
           for r in recs}
    for r in recs:
        if r["driver"] == "device":
            for state in WBREAD_STATES:
                for engine in WBREAD_ENGINES:
                    if engine.startswith("seq-"):
                        idx[(state, engine, "device", r["metric"])] = r
    return idx


def wbread_rows(recs):
    """(state, engine) of the drivers' reads, in the table's order"""
    def order(key):
        state, engine = key
        return (WBREAD_STATES.index(state) if state in WBREAD_STATES
                else len(WBREAD_STATES), state,
                WBREAD_ENGINES.index(engine) if engine in WBREAD_ENGINES
                else len(WBREAD_ENGINES), engine)
    return sorted({(r["state"], r["engine"]) for r in recs
                   if r["driver"] != "device"}, key=order)


def wbread_metric(engine):
    """the throughput metric of an engine: MiB/s sequential, IOPS random"""
    return "mibps" if engine.startswith("seq-") else "iops"


def percent(a, b):
    """median [min-max] of the runs' own a/b, in percent"""
    q = run_ratios(a, b)
    if not q:
        return "-"
    return "%.0f%% [%.0f-%.0f]" % (100 * statistics.median(q),
                                   100 * q[0], 100 * q[-1])


def wbread_table(recs):
    """Suite wbread: per state and engine, each driver's throughput, the
    ratios ours/stock and ours-packed/stock-packed, ours as a share of the
    device's own sequential read, and the device commands per MiB read."""
    if not recs:
        return []
    idx = wbread_index(recs)
    drivers = sorted({r["driver"] for r in recs if r["driver"] != "device"},
                     key=driver_key)
    ratios = [q for q in WB_RATIOS[:2]
              if q[0] in drivers and q[1] in drivers]
    rows, cmd_rows = [], []
    for state, engine in wbread_rows(recs):
        metric = wbread_metric(engine)
        seq = metric == "mibps"
        r = {d: idx.get((state, engine, d, metric)) for d in drivers}
        dev = idx.get((state, engine, "device", metric)) if seq else None
        rows.append([state, engine, "MiB/s" if seq else "IOPS"] +
                    [cell(r[d]) for d in drivers] +
                    [run_ratio(r[a], r[b]) for a, b, _ in ratios] +
                    [cell(dev) if seq else "",
                     percent(r.get("ours"), dev) if seq else ""])
        c = {d: idx.get((state, engine, d, "cmds_per_mib"))
             for d in drivers + ["device"]}
        cmd_rows.append([state, engine] + [cell(c[d]) for d in drivers] +
                        [cell(c["device"]) if seq else ""])
    lines = ["", "reads of written-back data (suite wbread): median "
             "[min-max]; ratios: median [min-max] of the runs' own"]
    lines += table(["state", "engine", "unit"] + drivers +
                   [q[2] for q in ratios] + ["device", "ours/device"], rows)
    lines += ["", "reads of written-back data: the backing device's read "
              "commands per MiB read"]
    lines += table(["state", "engine"] + drivers + ["device"], cmd_rows)
    return lines


def wbread_targets(recs):
    """WBREAD_TARGETS, each met or missed."""
    if not recs:
        return []
    idx = wbread_index(recs)
    rows = []
    # each engine once, in the table's order
    engines = list(dict.fromkeys(e for _, e in wbread_rows(recs)))
    for states, kind, num, den, metric, op, bound in WBREAD_TARGETS:
        for state in states:
            for engine in [e for e in engines if e.startswith(kind + "-")] \
                    or [kind + "-*"]:
                title = "%s %s: %s %s/%s" % (state, engine, metric, num, den)
                rows.append(ratio_target_row(
                    title, idx.get((state, engine, num, metric)),
                    idx.get((state, engine, den, metric)), op, bound,
                    TARGET_RUNS["wbread"]))
    return ["", "targets of suite wbread: median [min-max] of the runs' own "
            "ratios (medians: IOPS, MiB/s, commands per MiB)"] + \
        table(["target", "ratio", "medians", "needs", "verdict"], rows)


def stock_slot_bytes(raw):
    """Stock's bytes per slot from slot-size.txt, or None."""
    path = os.path.join(raw, "slot-size.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        m = re.search(r"stock (\d+)", f.read())
    return int(m.group(1)) if m else None


def memory_run(r, params, stock_slot):
    """The metrics of one memory.txt record, or None when unreadable."""
    disk_gib = float(params.get("mem_disk_mb", 1024)) / 1024
    bd_gib = float(params.get("mem_bd_mb", 1024)) / 1024
    slots = disk_gib * (1 << 30) / PAGE
    blocks = bd_gib * (1 << 30) / PAGE
    if r["table"] == "-":
        if not stock_slot:
            return None
        table, maps, pack, grown = stock_slot * slots, blocks / 8, 0, None
    else:
        table, maps, pack = (float(r[k]) for k in ("table", "maps", "pack"))
        grown = sum(float(r[k + "_wb"]) - float(r[k])
                    for k in ("table", "maps", "pack"))
    vals = {"slot_bytes": table / slots,
            "table_kib_per_gib_disk": table / 1024 / disk_gib,
            "maps_kib_per_gib_bd": maps / 1024 / bd_gib,
            "pack_kib_per_gib_bd": pack / 1024 / bd_gib,
            "bd_meta_kib_per_gib_bd": (maps + pack) / 1024 / bd_gib,
            "wb_alloc_bytes": grown}
    if float(r["orig_data"]):
        vals["mem_used_kib_per_mib"] = float(r["mem_used"]) / 1024 / (
            float(r["orig_data"]) / MIB)
    return vals


def memory_records(raw, params):
    """Suite memory: a record per (driver, metric), with by_run."""
    path = os.path.join(raw, "memory.txt")
    if not os.path.exists(path):
        return []
    stock_slot = stock_slot_bytes(raw)
    runs = {}
    for r in kv_lines(path):
        vals = memory_run(r, params, stock_slot)
        for m, v in (vals or {}).items():
            if v is not None:
                runs.setdefault((r["driver"], m), {})[r["run"]] = v
    recs = []
    for (drv, m), by_run in sorted(runs.items()):
        rec = median_record({"suite": "memory", "driver": drv, "metric": m},
                            list(by_run.values()))
        rec["by_run"] = by_run
        recs.append(rec)
    return recs


def memory_table(recs):
    """Suite memory: its targets, then every metric by driver."""
    if not recs:
        return []
    idx = {(r["driver"], r["metric"]): r for r in recs}
    rows = []
    for title, drv, metric, bound in MEM_TARGETS:
        a = idx.get((drv, metric))
        b = idx.get((bound, metric)) if isinstance(bound, str) else None
        limit = b["median"] if b else bound
        if a is None or limit is None:
            rows.append([title, "-", "<= %s" % bound, "not run"])
            continue
        rows.append([title, fmt(a["median"]), "<= %s" % fmt(limit),
                     "met" if a["median"] <= limit else "MISSED"])
    lines = ["", "targets of suite memory (medians)"]
    lines += table(["target", "value", "needs", "verdict"], rows)
    drivers = sorted({r["driver"] for r in recs}, key=driver_key)
    lines += ["", "memory: metadata and pool, per GiB or MiB"]
    lines += table(["metric"] + drivers,
                   [[m] + [cell(idx.get((d, m))) for d in drivers]
                    for m in MEM_METRICS])
    return lines


def target_value(suite, case, num, den, metric, wbi, ioi):
    """(ratio, its text, the medians compared, runs) of one target; the
    ratio is None when a driver did not run"""
    if suite == "writeback":
        a = wbi.get((TARGET_DEVICE, case, num, metric))
        b = wbi.get((TARGET_DEVICE, case, den, metric))
        if a is None or b is None or not b["median"]:
            return None, "-", "", 0
        v = a["median"] / b["median"]
        return (v, "%.2fx" % v, "%s / %s" % (fmt(a["median"]),
                                             fmt(b["median"])),
                min(len(a["runs"]), len(b["runs"])))
    a = ioi.get(case + (num, metric))
    b = ioi.get(case + (den, metric))
    q = run_ratios(a, b)
    if not q:
        return None, "-", "", 0
    v = statistics.median(q)
    return (v, "%.2fx [%.2f-%.2f]" % (v, q[0], q[-1]),
            "%s / %s" % (fmt(a["median"]), fmt(b["median"])), len(q))


def targets_table(wb, io):
    """The targets (TARGETS), each met or missed, and the comparisons
    with stock at writeback_batch_size 256 that ran."""
    wbi = {(r["device"], r["bitmap"], r["driver"], r["metric"]): r
           for r in wb}
    ioi = {(r["engine"], r["rw"], r["driver"], r["metric"]): r for r in io}
    rows = []
    for title, suite, case, num, den, metric, op, bound in TARGETS + COMPARE:
        v, text, medians, runs = target_value(suite, case, num, den, metric,
                                              wbi, ioi)
        if op is None:
            if v is not None:
                rows.append([title, text, medians, "-", "no target"])
            continue
        rows.append([title, text, medians, "%s %.2f" % (op, bound),
                     verdict(v, op, bound, runs, TARGET_RUNS[suite])])
    if not any(r[1] != "-" for r in rows):
        return []
    return ["", "targets of ours against stock, device %s, each driver at its "
            "defaults; writeback: ratio of the medians (medians: s, blocks); "
            "io: median [min-max] of the runs' own ratios (medians: IOPS)"
            % TARGET_DEVICE] + \
        table(["target", "ratio", "medians", "needs", "verdict"], rows)


def profile_shares(path):
    """{(rw, driver, symbol): {run: percent}} from iowb-profile.txt: the
    idle loop's own samples, every other symbol's with its callees"""
    shares = {}
    for r in kv_lines(path):
        pct = r["self"] if r["sym"] == PROF_IDLE else r["children"]
        shares.setdefault((r["rw"], r["driver"], r["sym"]),
                          {})[r["run"]] = float(pct)
    return shares


def profile_table(raw, io, params):
    """CPU time per read of suite iowb's profiled runs: a symbol's share of
    the samples of all CPUs, times the CPUs, over the run's IOPS"""
    path = os.path.join(raw, "iowb-profile.txt")
    if not os.path.exists(path):
        return []
    shares = profile_shares(path)
    iops = {(r["rw"], r["driver"]): r["by_run"] for r in io
            if r["engine"] == "io_uring" and r["metric"] == "iops"}
    cpus = int(params.get("cpus", 1))

    def per_read(rw, drv, sym, busy=False):
        got = shares.get((rw, drv, sym), {})
        q = [(100.0 - v if busy else v) / 100.0 * cpus * 1e6 /
             iops[(rw, drv)][run] for run, v in got.items()
             if iops.get((rw, drv), {}).get(run)]
        return "%.1f" % statistics.median(q) if q else "-"

    lines = ["", "iowb profile (BENCH_IOWB_PROFILE=1: perf cpu-clock, all "
             "CPUs; sampling costs IOPS): CPU microseconds per read, "
             "median of the runs; a function's time includes its callees, and "
             "what it was interrupted by: a softirq run on an interrupt's "
             "exit counts in the row of what it interrupted too"]
    for rw in sorted({k[0] for k in shares}):
        drivers = sorted({k[1] for k in shares if k[0] == rw},
                         key=driver_key)
        lines.append("")
        lines.append("profile: io_uring %s" % rw)
        rows = [["busy (all but idle)"] +
                [per_read(rw, d, PROF_IDLE, True) for d in drivers]]
        rows += [[title] + [per_read(rw, d, sym) for d in drivers]
                 for sym, title in PROF_ROWS]
        lines += table(["us per read"] + drivers, rows)
    return lines


def iowb_device(params, suites):
    """How the backing device of suites iowb and wbread was set up, in
    words; suites: those of the two that ran."""
    mbps = params.get("iowb_mbps", "400")
    cap = ("no bandwidth cap" if mbps == "0"
           else "capped at %s MB/s" % mbps)
    return ("%s backing device: %s (BENCH_IOWB_MBPS), queue depth %s "
            "(BENCH_IOWB_QD), %s ns per command "
            "(BENCH_IOWB_NSEC)" % (" and ".join(s + "'s" for s in suites),
                                  cap, params.get("iowb_qd", "64"),
                                  params.get("iowb_nsec", "100000")))


def header(params, suites):
    """The table's first lines: what ran, with which sizes."""
    sizes = []
    if "writeback" in suites:
        sizes.append("writeback %s MiB per case" % params.get("bench_mb"))
    for suite in ("io", "iowb", "wbread"):
        if suite in suites:
            sizes.append("%s %s MiB x %s s" % (suite, params.get("io_mb"),
                                               params.get("io_secs")))
    if "calls" in suites:
        sizes.append("calls %s MiB" % params.get("calls_mb"))
    if "memory" in suites:
        sizes.append("memory %s of %s MiB, backing %s MiB" % (
            params.get("mem_fill_mb"), params.get("mem_disk_mb"),
            params.get("mem_bd_mb")))
    runs = []
    if set(suites) & {"writeback", "iowb", "calls", "memory"}:
        runs.append("%s runs" % params.get("runs"))
    if "io" in suites:
        runs.append("io %s runs" % params.get("io_runs"))
    if "wbread" in suites:
        runs.append("wbread %s runs, s2 after %s cycles" % (
            params.get("wbread_runs"), params.get("wbread_cycles")))
    lines = ["zram bench: kernel %s, %s, %s; median [min-max]; "
             "ratios of medians" % (params.get("kernel"), ", ".join(sizes),
                                    ", ".join(runs))]
    device_suites = [s for s in ("iowb", "wbread") if s in suites]
    if device_suites:
        lines.append(iowb_device(params, device_suites))
    return lines


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    raw, json_out, txt_out = sys.argv[1:]
    params = {}
    for r in kv_lines(os.path.join(raw, "params.txt")):
        params.update(r)
    wb = writeback_records(raw, dev_bandwidth(raw))
    io = io_records(raw)
    calls = calls_records(raw)
    mem = memory_records(raw, params)
    wbread = wbread_records(raw)
    for r in wb + io + calls + mem + wbread:
        r["params"] = params
    with open(json_out, "w", encoding="utf-8") as f:
        json.dump(wb + io + calls + mem + wbread, f, indent=1)
        f.write("\n")
    suites = params.get("suites", "writeback,io,iowb").split(",")
    lines = header(params, suites)
    lines.append("ours: commit/sha256 %s (git log -1 of drivers/block/zram)"
                 % params.get("ours_rev"))
    if params.get("stock_as_ours") == "1":
        lines.append("DEVELOPMENT RUN: \"ours\" is stock zram.ko "
                     "(--stock-as-ours)")
    lines += [text for (where, text) in LEGEND
              if set(where.split()) & set(suites)]
    notes = os.path.join(raw, "notes.txt")
    if os.path.exists(notes):
        with open(notes, encoding="utf-8") as f:
            lines += list(dict.fromkeys(line.strip() for line in f
                                        if line.strip()))
    lines += targets_table(wb, io) + calls_targets(calls)
    lines += wbread_targets(wbread)
    lines += memory_table(mem)
    lines += writeback_table(wb) + io_table(io) + calls_table(calls)
    lines += wbread_table(wbread)
    lines += profile_table(raw, io, params)
    with open(txt_out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
