package acme.tools;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** The citator's API. Package-private: a helper, not a primitive. */
final class Citator {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  static @Nullable String lookup(String baseUrl, String key, String citation, String jurisdiction)
      throws IOException, InterruptedException {
    String query = "q=" + URLEncoder.encode(citation, StandardCharsets.UTF_8) + "&j=" + jurisdiction;
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/lookup?" + query))
        .header("Authorization", "Bearer " + key)
        .build();
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 ? response.body() : null;
  }

  private Citator() {}
}
