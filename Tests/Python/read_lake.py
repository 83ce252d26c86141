"""Independent check of a tlm lake with two engines: DuckDB
(read_parquet with hive_partitioning) and Spark (pyspark, local mode,
default settings: no legacy flag).

Usage: read_lake.py LAKE ENGINE [FILE...]

ENGINE is "duckdb" or "spark". Each table is a directory of LAKE (every
directory but _tlm). For each table the engine reads it whole and prints
its rows per recording, its partition columns, and its first rows ordered
by recording, topic, sample_time_ns, sequence (the leading columns, both
times printed as integer nanoseconds: sample_time truncated to the
microsecond by the timestamp type, sample_time_ns exact). Each FILE (a
per-topic export) is read alone and its row count printed. One JSON
document:

  {"tables": {"<table>": {"rows": {"<recording>": N}, "columns": [...],
                           "sample": [[...], ...],
                           "digest": "<sum of every row's hash>"}},   (duckdb only: the digest)
   "files": {"<file>": N},
   "means": [[recording, topic, epoch second, mean], ...]}   (spark only: the DIoT
                                                             samples' per-second means)

With ENGINE spark and no Java or pyspark, prints {"missing": "<why>"} and
exits 0 (the caller decides whether that is a skip).
"""
import json
import os
import sys

SAMPLE = 5
LEADING = ["topic", "device_id", "device_family", "recording", "sample_time", "receive_time",
           "sample_time_ns", "receive_time_ns", "sequence"]


def tables(lake):
    return sorted(name for name in os.listdir(lake)
                  if name != "_tlm" and os.path.isdir(os.path.join(lake, name)))


def with_duckdb(lake, files):
    import duckdb
    connection = duckdb.connect()
    result = {"tables": {}, "files": {}}
    for table in tables(lake):
        source = "read_parquet('%s', hive_partitioning = true)" % os.path.join(lake, table, "**", "*.parquet")
        rows = dict(connection.sql("SELECT recording, count(*) FROM %s GROUP BY recording" % source).fetchall())
        columns = [name for name in connection.sql("SELECT * FROM %s LIMIT 0" % source).columns]
        sample = connection.sql(
            "SELECT topic, device_id, device_family, recording, epoch_ns(sample_time), epoch_ns(receive_time), "
            "sample_time_ns, receive_time_ns, sequence FROM %s "
            "ORDER BY recording, topic, sample_time_ns, sequence LIMIT %d" % (source, SAMPLE)).fetchall()
        # Every row's every value (partition columns included), summed as hashes: equal for equal tables.
        digest = connection.sql("SELECT sum(hash(t)::HUGEINT)::VARCHAR FROM %s t" % source).fetchone()[0]
        result["tables"][table] = {"rows": rows, "columns": columns, "sample": [list(row) for row in sample],
                                   "digest": digest}
    for path in files:
        result["files"][path] = connection.sql("SELECT count(*) FROM read_parquet('%s')" % path).fetchone()[0]
    return result


def with_spark(lake, files):
    try:
        from pyspark.sql import SparkSession
        from pyspark.sql import functions as F
    except ImportError as error:
        return {"missing": "pyspark: %s" % error}
    import shutil
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return {"missing": "java (Debian's openjdk-17-jre-headless)"}
    spark = (SparkSession.builder.master("local[2]").appName("tlm-lake-test")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    result = {"tables": {}, "files": {}}
    try:
        for table in tables(lake):
            frame = spark.read.parquet(os.path.join(lake, table))
            rows = {row["recording"]: row["count"] for row in frame.groupBy("recording").count().collect()}
            sample = (frame.select(
                "topic", "device_id", "device_family", "recording",
                (F.unix_micros("sample_time") * 1000).alias("sample_time"),
                (F.unix_micros("receive_time") * 1000).alias("receive_time"),
                "sample_time_ns", "receive_time_ns", "sequence")
                .orderBy("recording", "topic", "sample_time_ns", "sequence").limit(SAMPLE).collect())
            result["tables"][table] = {"rows": rows, "columns": frame.columns,
                                       "sample": [[row[i] for i in range(len(LEADING))] for row in sample]}
        if "tlm_msg_DiotSample" in result["tables"]:
            # Spark SQL's per-device, per-second mean of each DIoT stream (epoch-aligned seconds of sample time).
            spark.read.parquet(os.path.join(lake, "tlm_msg_DiotSample")).createOrReplaceTempView("diot")
            rows = spark.sql(
                "SELECT recording, device_id, topic, sample_time_ns DIV 1000000000 AS second, avg(value) AS mean "
                "FROM diot GROUP BY recording, device_id, topic, sample_time_ns DIV 1000000000").collect()
            result["means"] = [[row["recording"], row["topic"], row["second"], row["mean"]] for row in rows]
        for path in files:
            result["files"][path] = spark.read.parquet(path).count()
    finally:
        spark.stop()
    return result


def main():
    lake, engine, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    result = with_duckdb(lake, files) if engine == "duckdb" else with_spark(lake, files)
    json.dump(result, sys.stdout, default=str)


if __name__ == "__main__":
    main()
