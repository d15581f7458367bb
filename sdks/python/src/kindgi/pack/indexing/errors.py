"""The indexer's failures, with the codes of the TypeScript indexer (packages/indexer/src/errors.ts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FileErrorCode = Literal[
    "file-import-failed",
    "no-default-export",
    "kind-mismatch",
    "ambiguous-kind",
    "zod-conversion-failed",
    "manifest-validation-failed",
    "reserved-check-id",
    "secret-name-invalid",
]
ErrorCode = (
    Literal[
        "config-not-found",
        "config-parse-failed",
        "config-invalid",
        "discovery-empty",
        "output-write-failed",
        "language-mismatch",
        "options-invalid",
    ]
    | FileErrorCode
)


@dataclass(frozen=True)
class IndexerFileError:
    """A discovered file that could not be indexed; ``file`` is pack-relative with forward slashes."""

    code: FileErrorCode
    file: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "file": self.file, "message": self.message}


@dataclass(frozen=True)
class IndexerError:
    """Why nothing was written: a pack-level failure, or the first failing file's code with every failing
    file in ``file_errors`` (path order)."""

    code: ErrorCode
    message: str
    file: str | None = None
    file_errors: tuple[IndexerFileError, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.file is not None:
            out["file"] = self.file
        if self.file_errors:
            out["fileErrors"] = [failure.to_json() for failure in self.file_errors]
        return out


def file_error(code: FileErrorCode, file: str, message: str) -> IndexerFileError:
    return IndexerFileError(code, file, f"{file}: {message}")
