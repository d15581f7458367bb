package com.kindgi.pack.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON text exactly as JavaScript's {@code JSON.stringify} writes it: only quotes, backslashes and
 * control characters escaped, lone surrogates as {@code \\uXXXX}, numbers in JavaScript's form
 * ({@code 1e+21}, {@code 0.000001}, {@code 1e-7}, integers without {@code .0}). The canonical form
 * (index files) also sorts keys by UTF-16 code unit at every level and indents by two spaces, with a
 * final newline: the bytes of Node's {@code JSON.stringify(sorted, null, 2) + "\n"}.
 */
public final class CanonicalJson {
  private CanonicalJson() {}

  /** Sorted keys, two-space indent, final newline. */
  public static String canonical(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out, true, "  ", "");
    return out.append('\n').toString();
  }

  /** Two-space indent, keys in their order, final newline: {@code JSON.stringify(value, null, 2) + "\n"}. */
  public static String pretty(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out, false, "  ", "");
    return out.append('\n').toString();
  }

  /** One line, keys in their order (protocol replies and log records). */
  public static String compact(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out, false, null, "");
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out, boolean sort, String indent, String current) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      out.append("null");
    } else if (node.isObject()) {
      List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
      node.properties().forEach(entries::add);
      if (sort) entries.sort(Map.Entry.comparingByKey());
      if (entries.isEmpty()) {
        out.append("{}");
        return;
      }
      String inner = indent == null ? "" : current + indent;
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonNode> e : entries) {
        if (!first) out.append(',');
        first = false;
        if (indent != null) out.append('\n').append(inner);
        string(e.getKey(), out);
        out.append(indent == null ? ":" : ": ");
        write(e.getValue(), out, sort, indent, inner);
      }
      if (indent != null) out.append('\n').append(current);
      out.append('}');
    } else if (node.isArray()) {
      if (node.isEmpty()) {
        out.append("[]");
        return;
      }
      String inner = indent == null ? "" : current + indent;
      out.append('[');
      Iterator<JsonNode> it = node.elements();
      boolean first = true;
      while (it.hasNext()) {
        if (!first) out.append(',');
        first = false;
        if (indent != null) out.append('\n').append(inner);
        write(it.next(), out, sort, indent, inner);
      }
      if (indent != null) out.append('\n').append(current);
      out.append(']');
    } else if (node.isTextual()) {
      string(node.textValue(), out);
    } else if (node.isBoolean()) {
      out.append(node.booleanValue());
    } else if (node.isNumber()) {
      out.append(number(node));
    } else if (node.isBinary()) {
      string(node.asText(), out);
    } else {
      string(node.asText(), out);
    }
  }

  /** A JSON string literal as {@code JSON.stringify} writes it. */
  public static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            hex(c, out);
          } else if (Character.isHighSurrogate(c)) {
            if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
              out.append(c).append(s.charAt(++i));
            } else {
              hex(c, out);
            }
          } else if (Character.isLowSurrogate(c)) {
            hex(c, out);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void hex(char c, StringBuilder out) {
    out.append("\\u").append(String.format("%04x", (int) c));
  }

  private static String number(JsonNode node) {
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      long v = node.longValue();
      if (Math.abs(v) <= (1L << 53)) return Long.toString(v);
    }
    return jsNumber(node.doubleValue());
  }

  /** A double as JavaScript's {@code Number.prototype.toString} writes it; non-finite values are {@code null}. */
  public static String jsNumber(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
    if (d == 0) return "0";
    if (d == Math.rint(d) && Math.abs(d) <= 9007199254740992d) {
      return new BigDecimal(d).toPlainString();
    }
    BigDecimal exact = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    int k = digits.length();
    int n = k - exact.scale();
    StringBuilder out = new StringBuilder();
    if (d < 0) out.append('-');
    if (k <= n && n <= 21) {
      out.append(digits).append("0".repeat(n - k));
    } else if (0 < n && n <= 21) {
      out.append(digits, 0, n).append('.').append(digits, n, k);
    } else if (-6 < n && n <= 0) {
      out.append("0.").append("0".repeat(-n)).append(digits);
    } else {
      int e = n - 1;
      out.append(digits.charAt(0));
      if (k > 1) out.append('.').append(digits, 1, k);
      out.append('e').append(e >= 0 ? "+" : "-").append(Math.abs(e));
    }
    return out.toString();
  }
}
