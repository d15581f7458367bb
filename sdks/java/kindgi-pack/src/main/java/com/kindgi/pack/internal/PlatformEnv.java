package com.kindgi.pack.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The variables the env filter keeps without a declaration: the platform's and the runtimes'. */
public final class PlatformEnv {
  /** Names kept as they are. */
  public static final Set<String> NAMES = Set.of(
      "PATH", "HOME", "HOSTNAME", "USER", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TMP", "TEMP", "PWD", "SHLVL", "_",
      "__CF_USER_TEXT_ENCODING",
      "NODE_ENV", "NODE_VERSION", "YARN_VERSION", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS", "JAVA_HOME", "JAVA_VERSION",
      "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "VIRTUAL_ENV",
      "PORT",
      "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR",
      "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
      "K_SERVICE", "K_REVISION", "K_CONFIGURATION",
      "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_EXECUTION_ENV", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
      "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
      "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "ECS_CONTAINER_METADATA_URI", "ECS_CONTAINER_METADATA_URI_V4",
      "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "MSI_ENDPOINT", "MSI_SECRET", "AZURE_CLIENT_ID", "AZURE_TENANT_ID",
      "AZURE_FEDERATED_TOKEN_FILE", "AZURE_AUTHORITY_HOST");
  /** Name prefixes kept, in the published order. */
  public static final List<String> PREFIXES = List.of("LC_", "PYTHON", "OTEL_", "CLOUD_RUN_", "CONTAINER_APP_");

  private PlatformEnv() {}

  /** True when the filter keeps {@code name} without a declaration. */
  public static boolean kept(String name) {
    if (name.startsWith("KINDGI_") || NAMES.contains(name)) return true;
    for (String prefix : PREFIXES) if (name.startsWith(prefix)) return true;
    return false;
  }

  /** The names the filter drops, sorted by code unit. */
  public static List<String> undeclared(Map<String, String> env, Collection<String> declared) {
    List<String> out = new ArrayList<>();
    for (String name : env.keySet()) if (!declared.contains(name) && !kept(name)) out.add(name);
    out.sort(null);
    return out;
  }

  /** Required names that are unset or empty, sorted. */
  public static List<String> missing(Map<String, String> env, Collection<String> required) {
    List<String> out = new ArrayList<>();
    for (String name : required) {
      String value = env.get(name);
      if (value == null || value.isEmpty()) out.add(name);
    }
    out.sort(null);
    return out;
  }
}
