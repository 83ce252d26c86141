"""The lake at scale (issue 38, item 5): many recordings added one by one to
one lake with the release `tlm`, then read by DuckDB and Spark.

    .venv/bin/python Benchmarks/Scripts/lake_scale.py TLM RECORDING WORK [--count 100] [--pairs 5] [--spark]

RECORDING is one recording directory; it is hard-linked COUNT times under
WORK/recordings/rec-NNN (a recording's lake identifier is its directory's
name, so each copy is another recording: the lake keys recordings by
identifier and content digest, and copies have one digest and other
identifiers). Then:

1. every copy is added to WORK/lake with `tlm export REC --format parquet
   --partition date,device --output LAKE`, one by one, timed (wall clock):
   the first ten against the last ten, and files per add against the
   tables it touched;
2. PAIRS alternating runs on one copy: the per-topic export (`tlm export
   REC --format parquet --output DIR`) and the add into an empty lake;
   medians;
3. DuckDB (read_parquet, hive_partitioning) and Spark (local[2], default
   settings): a count of every table and a per-device mean of the DIoT
   samples, over the whole lake, before and after `tlm lake compact`
   (timed), and `tlm lake verify` after it.

Prints a Markdown table. Nothing is kept but WORK (remove it after).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(command, **kwargs):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (result.returncode, " ".join(command), result.stderr))
    return elapsed, result.stdout


def link_copy(source, target):
    shutil.copytree(source, target, copy_function=os.link,
                    ignore=shutil.ignore_patterns("tlm.lock", "*-shm", "*-wal"))


def parquet_files(root):
    count = 0
    for directory, _, files in os.walk(root):
        if "/_tlm" in directory:
            continue
        count += sum(1 for name in files if name.endswith(".parquet"))
    return count


def tables(lake):
    return sorted(name for name in os.listdir(lake) if name != "_tlm")


DIOT = "tlm_msg_DiotSample"


def duckdb_queries(lake):
    import duckdb
    connection = duckdb.connect()
    connection.sql("SET enable_progress_bar = false")
    source = lambda table: "read_parquet('%s/%s/**/*.parquet', hive_partitioning = true)" % (lake, table)
    start = time.perf_counter()
    count = sum(connection.sql("SELECT count(*) FROM %s" % source(table)).fetchone()[0] for table in tables(lake))
    count_time = time.perf_counter() - start
    start = time.perf_counter()
    means = connection.sql(
        "SELECT device_id, avg(value), count(*) FROM %s GROUP BY device_id ORDER BY device_id" % source(DIOT)
    ).fetchall()
    mean_time = time.perf_counter() - start
    return count, count_time, means, mean_time


def spark_queries(lake):
    from pyspark.sql import SparkSession
    start = time.perf_counter()
    spark = (SparkSession.builder.master("local[2]").appName("tlm-lake-scale")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    session_time = time.perf_counter() - start
    try:
        start = time.perf_counter()
        count = sum(spark.read.parquet(os.path.join(lake, table)).count() for table in tables(lake))
        count_time = time.perf_counter() - start
        start = time.perf_counter()
        spark.read.parquet(os.path.join(lake, DIOT)).createOrReplaceTempView("diot")
        rows = spark.sql(
            "SELECT device_id, avg(value), count(*) FROM diot GROUP BY device_id ORDER BY device_id").collect()
        mean_time = time.perf_counter() - start
    finally:
        spark.stop()
    return count, count_time, [tuple(row) for row in rows], mean_time, session_time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tlm")
    parser.add_argument("recording")
    parser.add_argument("work")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--spark", action="store_true")
    arguments = parser.parse_args()
    tlm, work = arguments.tlm, arguments.work
    os.makedirs(work + "/recordings", exist_ok=True)
    copies = []
    for index in range(arguments.count):
        path = "%s/recordings/rec-%03d" % (work, index)
        if not os.path.exists(path):
            link_copy(arguments.recording, path)
        copies.append(path)
    _, info = run([tlm, "info", copies[0], "--format", "json"])
    messages = sum(stream.get("message_count", 0) for stream in json.loads(info)["streams"])

    # 2. Per-topic export against adding to an empty lake, alternating.
    exports, adds = [], []
    for pair in range(arguments.pairs):
        output = "%s/pair-export" % work
        shutil.rmtree(output, ignore_errors=True)
        elapsed, _ = run([tlm, "export", copies[0], "--format", "parquet", "--output", output])
        exports.append(elapsed)
        export_files = parquet_files(output)
        shutil.rmtree(output)
        lake = "%s/pair-lake" % work
        shutil.rmtree(lake, ignore_errors=True)
        elapsed, _ = run([tlm, "export", copies[0], "--format", "parquet", "--partition", "date,device",
                          "--output", lake])
        adds.append(elapsed)
        add_files = parquet_files(lake)
        shutil.rmtree(lake)

    # 1. Every copy into one lake.
    lake = work + "/lake"
    shutil.rmtree(lake, ignore_errors=True)
    times, files_per_add, tables_per_add = [], [], []
    for path in copies:
        before = parquet_files(lake) if os.path.exists(lake) else 0
        elapsed, _ = run([tlm, "export", path, "--format", "parquet", "--partition", "date,device", "--output", lake])
        times.append(elapsed)
        files_per_add.append(parquet_files(lake) - before)
        manifest = json.load(open(lake + "/_tlm/manifest.json"))
        tables_per_add.append(len({file["table"] for file in manifest["recordings"][-1]["files"]}))
    _, verify = run([tlm, "lake", "verify", lake])

    rows = []
    rows.append(("recordings added", "%d × %d messages = %d" % (len(copies), messages, messages * len(copies))))
    rows.append(("per-topic export of one recording (median of %d)" % len(exports),
                 "%.3f s, %d files" % (statistics.median(exports), export_files)))
    rows.append(("adding it to an empty lake (median of %d, alternating)" % len(adds),
                 "%.3f s, %d files (%.2f× the export's time)" % (
                     statistics.median(adds), add_files, statistics.median(adds) / statistics.median(exports))))
    first, last = times[:10], times[-10:]
    rows.append(("add, first 10 into the growing lake (median)", "%.3f s" % statistics.median(first)))
    rows.append(("add, last 10 (median)", "%.3f s (%.2f× the first 10)" % (
        statistics.median(last), statistics.median(last) / statistics.median(first))))
    rows.append(("files per add (max) / tables it touched (max)", "%d / %d" % (max(files_per_add),
                                                                               max(tables_per_add))))
    rows.append(("lake files, before compaction", "%d" % parquet_files(lake)))
    rows.append(("lake verify", verify.strip()))

    def engines(label):
        count, count_time, means, mean_time = duckdb_queries(lake)
        rows.append(("DuckDB count of every table, %s" % label, "%.3f s (%d rows)" % (count_time, count)))
        rows.append(("DuckDB per-device mean of DIoT samples, %s" % label, "%.3f s (%d devices)" % (
            mean_time, len(means))))
        if arguments.spark:
            spark_count, spark_count_time, spark_means, spark_mean_time, session = spark_queries(lake)
            same = spark_count == count and [(d, c) for d, _, c in spark_means] == [(d, c) for d, _, c in means]
            rows.append(("Spark count of every table, %s" % label, "%.3f s (%d rows; session start %.1f s)" % (
                spark_count_time, spark_count, session)))
            rows.append(("Spark per-device mean of DIoT samples, %s" % label, "%.3f s (%s DuckDB's counts)" % (
                spark_mean_time, "equal to" if same else "NOT EQUAL to")))
        return count, means

    before = engines("before compaction")
    elapsed, output = run([tlm, "lake", "compact", lake])
    rows.append(("tlm lake compact", "%.3f s: %s" % (elapsed, output.strip())))
    rows.append(("lake files, after compaction", "%d" % parquet_files(lake)))
    _, verify = run([tlm, "lake", "verify", lake])
    rows.append(("lake verify after compaction", verify.strip()))
    after = engines("after compaction")
    same = before[0] == after[0] and len(before[1]) == len(after[1]) and all(
        a[0] == b[0] and a[2] == b[2] and abs(a[1] - b[1]) <= 1e-9 * max(1.0, abs(a[1]))
        for a, b in zip(before[1], after[1]))
    rows.append(("DuckDB rows, per-device counts and means (1e-9) before = after", str(same)))

    print("| measure | result |")
    print("|---|---|")
    for name, value in rows:
        print("| %s | %s |" % (name, value))
    print()
    print("per-add times (s): " + " ".join("%.2f" % value for value in times))


if __name__ == "__main__":
    main()
