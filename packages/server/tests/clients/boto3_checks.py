"""boto3 (default config, path-style addressing) against the S3 surface: one case per run, named on the command line.

    boto3_checks.py <case>      cases: see CASES below

Every expectation is AWS S3's documented behaviour; see client_env.py for the environment it reads.
"""

import base64
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
import zlib

from boto3.s3.transfer import TransferConfig
from botocore.exceptions import ClientError
from client_env import Mismatch, boto3_client, check, expect_equal, run, target

MIB = 1024 * 1024
T = target()
S3 = boto3_client(T)


def key(name: str) -> str:
    return f"{T.prefix}{name}"


def payload(size: int, seed: int) -> bytes:
    """Deterministic bytes that differ from part to part, so a part stored out of order is caught."""
    block = bytes((seed * 31 + i) % 251 for i in range(4096))
    return (block * (size // len(block) + 1))[:size]


def crc32_b64(data: bytes) -> str:
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def composite_crc32(part_checksums: list[str]) -> str:
    """S3's composite checksum: the CRC32 of the parts' raw checksums, then `-<number of parts>`."""
    joined = b"".join(base64.b64decode(checksum) for checksum in part_checksums)
    return f"{crc32_b64(joined)}-{len(part_checksums)}"


def read(name: str) -> bytes:
    return S3.get_object(Bucket=T.bucket, Key=name)["Body"].read()


def error_of(call) -> tuple[int, str, str]:
    """Runs a call that must fail: (HTTP status, error code, message)."""
    try:
        call()
    except ClientError as error:
        details = error.response.get("Error", {})
        status = error.response["ResponseMetadata"]["HTTPStatusCode"]
        return status, details.get("Code", ""), details.get("Message", "")
    raise Mismatch("the call succeeded where S3 answers an error")


def upload_parts(name: str, upload_id: str, parts: list[bytes]) -> list[dict]:
    listed = []
    for number, body in enumerate(parts, start=1):
        answer = S3.upload_part(
            Bucket=T.bucket, Key=name, UploadId=upload_id, PartNumber=number, Body=body, ChecksumAlgorithm="CRC32"
        )
        expect_equal(f"part {number} ChecksumCRC32", answer.get("ChecksumCRC32"), crc32_b64(body))
        listed.append({"PartNumber": number, "ETag": answer["ETag"], "ChecksumCRC32": answer["ChecksumCRC32"]})
    return listed


def expect_stored(name: str, data: bytes, checksum: str, checksum_type: str) -> None:
    head = S3.head_object(Bucket=T.bucket, Key=name, ChecksumMode="ENABLED")
    expect_equal("HeadObject ContentLength", head["ContentLength"], len(data))
    expect_equal("HeadObject ChecksumCRC32", head.get("ChecksumCRC32"), checksum)
    expect_equal("HeadObject ChecksumType", head.get("ChecksumType"), checksum_type)
    check(read(name) == data, f"GetObject {name}: the bytes differ from those uploaded")


def put_checksum() -> None:
    """PutObject (boto3 sends a CRC32 by default): a single-part object's checksum is FULL_OBJECT."""
    name, data = key("put/plain.bin"), payload(70_000, 1)
    answer = S3.put_object(Bucket=T.bucket, Key=name, Body=data)
    expect_equal("PutObject ChecksumCRC32", answer.get("ChecksumCRC32"), crc32_b64(data))
    expect_equal("PutObject ChecksumType", answer.get("ChecksumType"), "FULL_OBJECT")
    expect_stored(name, data, crc32_b64(data), "FULL_OBJECT")


def multipart_composite() -> None:
    """CRC32 parts, the composite `…-N` checksum sent on Complete and answered by HEAD."""
    name = key("multipart/composite.bin")
    parts = [payload(5 * MIB, 1), payload(5 * MIB, 2), payload(1000, 3)]
    created = S3.create_multipart_upload(Bucket=T.bucket, Key=name, ChecksumAlgorithm="CRC32")
    expect_equal("CreateMultipartUpload ChecksumAlgorithm", created.get("ChecksumAlgorithm"), "CRC32")
    listed = upload_parts(name, created["UploadId"], parts)
    expected = composite_crc32([part["ChecksumCRC32"] for part in listed])
    done = S3.complete_multipart_upload(
        Bucket=T.bucket,
        Key=name,
        UploadId=created["UploadId"],
        MultipartUpload={"Parts": listed},
        ChecksumCRC32=expected,
    )
    expect_equal("CompleteMultipartUpload ChecksumCRC32", done.get("ChecksumCRC32"), expected)
    expect_equal("CompleteMultipartUpload ChecksumType", done.get("ChecksumType"), "COMPOSITE")
    check(done["ETag"].endswith('-3"'), f"CompleteMultipartUpload ETag {done['ETag']} is not a 3-part ETag")
    expect_stored(name, b"".join(parts), expected, "COMPOSITE")


def full_object_upload(name: str, parts: list[bytes], checksum: str) -> dict:
    created = S3.create_multipart_upload(
        Bucket=T.bucket, Key=name, ChecksumAlgorithm="CRC32", ChecksumType="FULL_OBJECT"
    )
    expect_equal("CreateMultipartUpload ChecksumType", created.get("ChecksumType"), "FULL_OBJECT")
    listed = upload_parts(name, created["UploadId"], parts)
    return {
        "Bucket": T.bucket,
        "Key": name,
        "UploadId": created["UploadId"],
        "MultipartUpload": {"Parts": listed},
        "ChecksumCRC32": checksum,
        "ChecksumType": "FULL_OBJECT",
    }


def multipart_full_object() -> None:
    """`x-amz-checksum-type: FULL_OBJECT`: the CRC32 of the whole object on Complete, checked by the server."""
    parts = [payload(5 * MIB, 4), payload(5 * MIB, 5), payload(777, 6)]
    whole = b"".join(parts)
    name = key("multipart/full-object.bin")
    done = S3.complete_multipart_upload(**full_object_upload(name, parts, crc32_b64(whole)))
    expect_equal("CompleteMultipartUpload ChecksumCRC32", done.get("ChecksumCRC32"), crc32_b64(whole))
    expect_equal("CompleteMultipartUpload ChecksumType", done.get("ChecksumType"), "FULL_OBJECT")
    expect_stored(name, whole, crc32_b64(whole), "FULL_OBJECT")

    # A whole-object checksum that is not the object's: BadDigest, and no object.
    wrong_name = key("multipart/full-object-wrong.bin")
    request = full_object_upload(wrong_name, parts, crc32_b64(whole + b"x"))
    status, code, message = error_of(lambda: S3.complete_multipart_upload(**request))
    expect_equal(f"Complete with a wrong full-object CRC32 ({message})", (status, code), (400, "BadDigest"))
    status, _, _ = error_of(lambda: S3.head_object(Bucket=T.bucket, Key=wrong_name))
    expect_equal("HeadObject after the refused Complete", status, 404)


def copy_object() -> None:
    """CopyObject with the COPY and REPLACE metadata directives, onto itself, and from a missing source."""
    source, data = key("copy/söurce +%.txt"), payload(20_000, 7)
    put = S3.put_object(Bucket=T.bucket, Key=source, Body=data, ContentType="text/plain", Metadata={"colour": "blue"})
    copied_name = key("copy/copied.txt")
    copied = S3.copy_object(Bucket=T.bucket, Key=copied_name, CopySource={"Bucket": T.bucket, "Key": source})
    expect_equal("CopyObject ETag", copied["CopyObjectResult"]["ETag"], put["ETag"])
    head = S3.head_object(Bucket=T.bucket, Key=copied_name)
    expect_equal("COPY: Content-Type", head["ContentType"], "text/plain")
    expect_equal("COPY: metadata", head["Metadata"], {"colour": "blue"})
    check(read(copied_name) == data, "COPY: the copy's bytes differ from the source's")

    replaced_name = key("copy/replaced.txt")
    S3.copy_object(
        Bucket=T.bucket,
        Key=replaced_name,
        CopySource={"Bucket": T.bucket, "Key": source},
        MetadataDirective="REPLACE",
        Metadata={"shape": "round"},
        ContentType="application/json",
    )
    head = S3.head_object(Bucket=T.bucket, Key=replaced_name)
    expect_equal("REPLACE: Content-Type", head["ContentType"], "application/json")
    expect_equal("REPLACE: metadata", head["Metadata"], {"shape": "round"})
    check(read(replaced_name) == data, "REPLACE: the copy's bytes differ from the source's")

    # Onto itself: refused unless something changes; with REPLACE, the way clients update metadata.
    itself = {"Bucket": T.bucket, "Key": source, "CopySource": {"Bucket": T.bucket, "Key": source}}
    status, code, _ = error_of(lambda: S3.copy_object(**itself))
    expect_equal("CopyObject onto itself without REPLACE", (status, code), (400, "InvalidRequest"))
    S3.copy_object(**itself, MetadataDirective="REPLACE", Metadata={"colour": "red"}, ContentType="text/plain")
    metadata = S3.head_object(Bucket=T.bucket, Key=source)["Metadata"]
    expect_equal("self-copy REPLACE: metadata", metadata, {"colour": "red"})
    check(read(source) == data, "self-copy REPLACE changed the bytes")

    missing = {"Bucket": T.bucket, "Key": key("copy/none"), "CopySource": {"Bucket": T.bucket, "Key": key("copy/no")}}
    status, code, _ = error_of(lambda: S3.copy_object(**missing))
    expect_equal("CopyObject from a missing source", (status, code), (404, "NoSuchKey"))


def managed_copy() -> None:
    """`client.copy` above its multipart threshold: CreateMultipartUpload, UploadPartCopy ranges, Complete."""
    size = 11 * MIB + 5
    source, data = key("managed/source.bin"), payload(size, 8)
    S3.put_object(Bucket=T.bucket, Key=source, Body=data)
    target_name = key("managed/copy.bin")
    config = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB)
    S3.copy({"Bucket": T.bucket, "Key": source}, T.bucket, target_name, Config=config)
    head = S3.head_object(Bucket=T.bucket, Key=target_name)
    expect_equal("copy ContentLength", head["ContentLength"], size)
    check(head["ETag"].endswith('-3"'), f"copy ETag {head['ETag']} is not a 3-part ETag: no UploadPartCopy was used")
    check(read(target_name) == data, "managed copy: the bytes differ from the source's")


def buckets() -> None:
    """ListBuckets names the credential's bucket; GetBucketLocation and GetBucketVersioning answer as for us-east-1."""
    listed = S3.list_buckets()
    names = [bucket["Name"] for bucket in listed["Buckets"]]
    check(T.bucket in names, f"ListBuckets: {names} lacks {T.bucket}")
    check(all("CreationDate" in bucket for bucket in listed["Buckets"]), "ListBuckets: a bucket without CreationDate")
    location = S3.get_bucket_location(Bucket=T.bucket)
    expect_equal("GetBucketLocation LocationConstraint", location.get("LocationConstraint"), None)
    versioning = S3.get_bucket_versioning(Bucket=T.bucket)
    expect_equal("GetBucketVersioning Status", versioning.get("Status"), None)


def sigv2() -> None:
    """Signature Version 2, presigned and in a header: 400 InvalidRequest asking for AWS4-HMAC-SHA256."""
    name = key("sigv2/object.txt")
    S3.put_object(Bucket=T.bucket, Key=name, Body=b"signed with v4")
    v2 = boto3_client(T, signature_version="s3")
    url = v2.generate_presigned_url("get_object", Params={"Bucket": T.bucket, "Key": name}, ExpiresIn=300)
    check("Signature=" in url and "AWSAccessKeyId=" in url, f"not a SigV2 presigned URL: {url}")
    # No proxy: the request goes to 127.0.0.1 whatever the environment says.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=30) as response:
            raise Mismatch(f"SigV2 presigned GET answered {response.status}, not 400")
    except urllib.error.HTTPError as refused:
        body = refused.read().decode("utf-8", "replace")
        expect_equal(f"SigV2 presigned GET status ({body})", refused.code, 400)
        root = ElementTree.fromstring(body)
        expect_equal("SigV2 presigned GET error code", root.findtext("Code"), "InvalidRequest")
        message = root.findtext("Message") or ""
        check("AWS4-HMAC-SHA256" in message, f"SigV2 presigned GET message does not name AWS4-HMAC-SHA256: {message}")
    status, code, message = error_of(lambda: v2.get_object(Bucket=T.bucket, Key=name))
    expect_equal("SigV2 header-signed GET", (status, code), (400, "InvalidRequest"))
    check("AWS4-HMAC-SHA256" in message, f"SigV2 header-signed GET message does not name AWS4-HMAC-SHA256: {message}")


CASES = {
    "put-checksum": put_checksum,
    "multipart-composite": multipart_composite,
    "multipart-full-object": multipart_full_object,
    "copy-object": copy_object,
    "managed-copy": managed_copy,
    "buckets": buckets,
    "sigv2": sigv2,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: boto3_checks.py <{'|'.join(CASES)}>", file=sys.stderr)
        sys.exit(2)
    run(CASES[sys.argv[1]])
