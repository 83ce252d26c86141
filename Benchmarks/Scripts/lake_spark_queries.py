"""Spark's count of every table and per-device mean of the DIoT samples over
one tlm lake, in a fresh Spark session (local[2], default settings) whose
JVM ran one throwaway query first, twice in a row (the second with warm
caches): for lakes before and after `tlm lake compact`, one process each.

    .venv/bin/python Benchmarks/Scripts/lake_spark_queries.py LAKE
"""
import os
import sys
import time

from pyspark.sql import SparkSession


def main():
    lake = sys.argv[1]
    spark = (SparkSession.builder.master("local[2]").appName("tlm-lake-queries")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(1000).count()  # the JVM's warm-up, outside the timings
    tables = sorted(name for name in os.listdir(lake) if name != "_tlm")
    runs = []
    for run in range(2):
        start = time.perf_counter()
        count = sum(spark.read.parquet(os.path.join(lake, table)).count() for table in tables)
        count_time = time.perf_counter() - start
        start = time.perf_counter()
        spark.read.parquet(os.path.join(lake, "tlm_msg_DiotSample")).createOrReplaceTempView("diot")
        spark.sql("SELECT device_id, avg(value), count(*) FROM diot GROUP BY device_id").collect()
        mean_time = time.perf_counter() - start
        runs.append("run %d: count %.2f s (%d rows), per-device mean %.2f s" % (run + 1, count_time, count, mean_time))
    spark.stop()
    print(lake + ": " + "; ".join(runs))


if __name__ == "__main__":
    main()
