package io.pgward.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** pgward's HTTP port as a monitoring system reads it: /metrics, /livez, /readyz of a {@link ProxyFixture}. */
final class Scrape {

    static final HttpClient HTTP = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

    private Scrape() {
    }

    static HttpResponse<String> get(ProxyFixture proxy, String path) throws Exception {
        int port = proxy.server().metricsPort().orElseThrow();
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static String metrics(ProxyFixture proxy) throws Exception {
        return get(proxy, "/metrics").body();
    }

    /** The value of the one sample whose name and labels match {@code sample} (a regular expression). */
    static double value(String scrape, String sample) {
        Matcher m = Pattern.compile("(?m)^" + sample + " (\\S+)$").matcher(scrape);
        assertTrue(m.find(), "no sample " + sample + " in\n" + scrape);
        double value = Double.parseDouble(m.group(1));
        assertFalse(m.find(), "more than one sample " + sample);
        return value;
    }
}
