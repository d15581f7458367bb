package com.kindgi.pack.internal;

/** A failure that stops indexing before an index is written: a stable {@code code} and one line. */
public final class IndexerException extends Exception {
  private final String code;

  public IndexerException(String code, String message) {
    super(message);
    this.code = code;
  }

  /** {@code config-not-found}, {@code config-parse-failed}, {@code config-invalid}, {@code discovery-empty}, … */
  public String code() {
    return code;
  }
}
