package io.github.idworker.sample;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls the sample's order endpoints over real HTTP on loopback and parses the JSON answers. */
final class OrderHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String base;

    OrderHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** One answer: status, content type, {@code Location} (or empty) and the body, parsed when there is one. */
    record Reply(int status, String contentType, String location, JsonNode body) {

        /** The order's primary key as the body writes it: a JSON string. */
        long id() {
            return Long.parseLong(body.get("id").asString());
        }
    }

    /** {@code POST /orders} with {@code json} as the body. */
    Reply post(String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** {@code GET} of {@code path}, such as {@code /orders/1}. */
    Reply get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private static Reply send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(),
                response.headers().firstValue("Content-Type").orElse(""),
                response.headers().firstValue("Location").orElse(""),
                response.body().isEmpty() ? null : JSON.readTree(response.body()));
    }
}
