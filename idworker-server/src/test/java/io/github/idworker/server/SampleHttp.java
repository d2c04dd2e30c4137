package io.github.idworker.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GET requests to the sample over real HTTP, with the JSON body parsed. */
final class SampleHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private SampleHttp() {
    }

    /** One response: status, content type and JSON body. */
    record Response(int status, String contentType, JsonNode body) {

        /** The body as numbers; fails unless it is an array of integers. */
        long[] ids() {
            if (!body.isArray()) {
                throw new AssertionError("not an array of ids (HTTP " + status + "): " + body);
            }
            long[] ids = new long[body.size()];
            for (int i = 0; i < ids.length; i++) {
                if (!body.get(i).isIntegralNumber()) {
                    throw new AssertionError("not an integer at " + i + ": " + body.get(i));
                }
                ids[i] = body.get(i).asLong();
            }
            return ids;
        }

        /** The body as strings; fails unless it is an array of strings. */
        java.util.List<String> strings() {
            if (!body.isArray()) {
                throw new AssertionError("not an array of strings (HTTP " + status + "): " + body);
            }
            java.util.List<String> strings = new java.util.ArrayList<>(body.size());
            for (int i = 0; i < body.size(); i++) {
                if (!body.get(i).isString()) {
                    throw new AssertionError("not a string at " + i + ": " + body.get(i));
                }
                strings.add(body.get(i).asString());
            }
            return strings;
        }
    }

    static Response get(int port, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                        .GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                JSON.readTree(response.body()));
    }
}
