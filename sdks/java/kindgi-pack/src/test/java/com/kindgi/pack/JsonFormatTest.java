package com.kindgi.pack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.kindgi.pack.internal.CanonicalJson;
import com.kindgi.pack.internal.Json;
import org.junit.jupiter.api.Test;

/** Expected strings are what Node 20's {@code JSON.stringify} writes for the same values. */
class JsonFormatTest {
  @Test
  void numbersAreWrittenAsJavaScriptWritesThem() {
    assertEquals("1", CanonicalJson.jsNumber(1.0));
    assertEquals("-0.5", CanonicalJson.jsNumber(-0.5));
    assertEquals("1e+21", CanonicalJson.jsNumber(1e21));
    assertEquals("100000000000000000000", CanonicalJson.jsNumber(1e20));
    assertEquals("0.000001", CanonicalJson.jsNumber(0.000001));
    assertEquals("1e-7", CanonicalJson.jsNumber(1e-7));
    assertEquals("1.5e-7", CanonicalJson.jsNumber(1.5e-7));
    assertEquals("123456789012345680000", CanonicalJson.jsNumber(123456789012345678901d));
    assertEquals("0.1", CanonicalJson.jsNumber(0.1));
    assertEquals("0", CanonicalJson.jsNumber(-0.0));
    assertEquals("1.7976931348623157e+308", CanonicalJson.jsNumber(Double.MAX_VALUE));
  }

  @Test
  void canonicalTextSortsKeysByCodeUnitAndEscapesOnlyWhatJavaScriptEscapes() throws Exception {
    String text = CanonicalJson.canonical(Json.parse(
        "{\"b\":[1,2.50,{}],\"a\":\"\\u00e9\\u2028<>&\\u0001\\\"\\\\\\n\",\"\\ud83d\\ude00\":true,\"Z\":[],\"é\":null,\"n\":12345678901234567890}"));
    assertEquals("{\n  \"Z\": [],\n  \"a\": \"é\u2028<>&\\u0001\\\"\\\\\\n\",\n  \"b\": [\n    1,\n    2.5,\n    {}\n  ],\n"
        + "  \"n\": 12345678901234567000,\n  \"é\": null,\n  \"\ud83d\ude00\": true\n}\n", text);
  }
}
