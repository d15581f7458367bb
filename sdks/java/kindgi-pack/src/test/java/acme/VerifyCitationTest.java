package acme;

import static org.junit.jupiter.api.Assertions.assertFalse;

import acme.tools.VerifyCitation;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class VerifyCitationTest {
  @Test
  void anUnknownCitationIsNotFound() throws Exception {
    HttpServer citator = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    citator.createContext("/lookup", exchange -> {
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
    });
    citator.start();
    try {
      String url = "http://127.0.0.1:" + citator.getAddress().getPort();
      assertFalse(VerifyCitation.verify(new VerifyCitation.Input("1 U.S. 1", "US"), "test-key", url).found());
    } finally {
      citator.stop(0);
    }
  }
}
