"""The Python pack indexer: ``python -m kindgi.pack index`` (``run_indexer`` for callers in Python)."""

from kindgi.pack.indexing.errors import IndexerError, IndexerFileError
from kindgi.pack.indexing.run import IndexerReport, RunOptions, run_indexer

__all__ = ["IndexerError", "IndexerFileError", "IndexerReport", "RunOptions", "run_indexer"]
