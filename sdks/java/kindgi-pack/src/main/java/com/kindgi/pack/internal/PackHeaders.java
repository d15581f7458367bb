package com.kindgi.pack.internal;

/** The pack transport's HTTP headers (lowercase). */
final class PackHeaders {
  static final String TOKEN = "kindgi-pack-token";
  static final String TIMEOUT_MS = "kindgi-timeout-ms";
  static final String DURATION_MS = "kindgi-duration-ms";
  static final String ARTIFACT_VERSION = "kindgi-artifact-version";

  private PackHeaders() {}
}
