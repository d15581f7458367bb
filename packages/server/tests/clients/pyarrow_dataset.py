"""pyarrow's own S3 filesystem (the AWS C++ SDK, default settings) writing a partitioned Parquet dataset and
reading it back equal. One partition is large enough that pyarrow uploads its file in parts.

See client_env.py for the environment it reads.
"""

import os

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
from client_env import boto3_client, check, expect_equal, run, target

# pyarrow's S3 output stream sends objects below its part size (10 MiB in pyarrow 26) in one PutObject, and
# larger ones as multipart uploads: 400,000 rows of 32 random bytes make a ~15 MB Parquet file.
ROWS = {"big": 400_000, "small": 1_000, "tiny": 3}
VALUE_BYTES = 32
PARTITIONING = ds.partitioning(pa.schema([("part", pa.string())]), flavor="hive")


def sample_table() -> pa.Table:
    total = sum(ROWS.values())
    values = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(VALUE_BYTES), total, [None, pa.py_buffer(os.urandom(VALUE_BYTES * total))]
    )
    parts = [name for name, count in ROWS.items() for _ in range(count)]
    return pa.table({"id": pa.array(range(total), pa.int64()), "value": values, "part": pa.array(parts, pa.string())})


def main() -> None:
    t = target()
    filesystem = pafs.S3FileSystem(
        access_key=t.access_key_id,
        secret_key=t.secret_access_key,
        region="us-east-1",
        scheme="http",
        endpoint_override=t.endpoint,
    )
    base = f"{t.bucket}/{t.prefix}dataset"
    table = sample_table()
    ds.write_dataset(table, base, format="parquet", partitioning=PARTITIONING, filesystem=filesystem)

    back = ds.dataset(base, format="parquet", partitioning=PARTITIONING, filesystem=filesystem).to_table()
    expect_equal("rows read back", back.num_rows, table.num_rows)
    back = back.select(table.column_names).sort_by("id")
    check(back.equals(table), "the dataset read back differs from the one written")

    # pyarrow shows no ETags: boto3 lists the files to tell that one of them went up in parts.
    listed = boto3_client(t).list_objects_v2(Bucket=t.bucket, Prefix=f"{t.prefix}dataset/")
    files = {item["Key"]: item["ETag"] for item in listed.get("Contents", []) if item["Key"].endswith(".parquet")}
    expect_equal("Parquet files written (one per partition)", len(files), len(ROWS))
    multipart = [name for name, etag in files.items() if "-" in etag]
    check(len(multipart) >= 1, f"no Parquet file was uploaded in parts: {files}")


if __name__ == "__main__":
    run(main)
