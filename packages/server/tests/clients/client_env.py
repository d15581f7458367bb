"""What every client script here shares: the server it talks to, from the environment, and how it fails.

The vitest file that runs these scripts (../s3-real-clients.test.ts) sets KINDGI_S3_ENDPOINT (the server's
`/s3` URL), KINDGI_S3_ACCESS_KEY_ID, KINDGI_S3_SECRET_ACCESS_KEY, KINDGI_S3_BUCKET and KINDGI_S3_PREFIX (a key
prefix of this run's own). A script prints one line naming the mismatch and exits 1 on the first one.
"""

import os
import sys
import traceback
from dataclasses import dataclass

import boto3
from botocore.config import Config


@dataclass(frozen=True)
class Target:
    endpoint: str
    access_key_id: str
    secret_access_key: str
    bucket: str
    prefix: str


def target() -> Target:
    """The server under test, from the environment (a missing variable is a usage error, exit 2)."""
    names = (
        "KINDGI_S3_ENDPOINT",
        "KINDGI_S3_ACCESS_KEY_ID",
        "KINDGI_S3_SECRET_ACCESS_KEY",
        "KINDGI_S3_BUCKET",
        "KINDGI_S3_PREFIX",
    )
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        print(f"usage: set {', '.join(missing)}", file=sys.stderr)
        sys.exit(2)
    return Target(*(os.environ[name] for name in names))


class Mismatch(Exception):
    """The server answered something other than what AWS S3 documents."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


def expect_equal(what: str, got, want) -> None:
    check(got == want, f"{what}: got {got!r}, want {want!r}")


def boto3_client(t: Target, **config):
    """boto3's S3 client as a user sets it up for a path-style endpoint: default settings otherwise."""
    return boto3.client(
        "s3",
        endpoint_url=t.endpoint,
        region_name="us-east-1",
        aws_access_key_id=t.access_key_id,
        aws_secret_access_key=t.secret_access_key,
        config=Config(s3={"addressing_style": "path"}, **config),
    )


def run(main) -> None:
    """Runs `main()`: a mismatch, or an error the server answered, ends in one clear line and exit code 1."""
    try:
        main()
    except Mismatch as mismatch:
        print(f"MISMATCH: {mismatch}", file=sys.stderr)
        failed()
    except Exception as error:  # noqa: BLE001 - any client error is the server's answer to report
        traceback.print_exc(file=sys.stderr)
        print(f"FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        failed()
    print("ok")


def failed() -> None:
    # Skips interpreter teardown: after a failed upload, pyarrow's native S3 shutdown can wait forever on
    # the aborted output streams, and the failure is already reported.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)
