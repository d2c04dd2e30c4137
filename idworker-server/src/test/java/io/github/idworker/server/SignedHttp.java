package io.github.idworker.server;

import io.github.idworker.signing.RequestSigner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Requests to the sample's signed endpoints over real HTTP, with any headers, signed or forged. */
final class SignedHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private SignedHttp() {
    }

    /** One response: status, headers of interest and the body, parsed when it is JSON. */
    record Response(int status, String contentType, String retryAfter, String environment, String text) {

        JsonNode json() {
            return JSON.readTree(text);
        }

        long[] ids() {
            JsonNode body = json();
            if (status != 200 || !body.isArray()) {
                throw new AssertionError("not an array of ids (HTTP " + status + "): " + text);
            }
            long[] ids = new long[body.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = body.get(i).asLong();
            }
            return ids;
        }

        /** The problem document's property, or null. */
        String problem(String property) {
            JsonNode value = json().get(property);
            return value == null ? null : value.asString();
        }
    }

    /** A GET of {@code pathAndQuery} with exactly these headers. */
    static Response get(int port, String pathAndQuery, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(30)).GET();
        headers.forEach(request::header);
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                response.headers().firstValue("Retry-After").orElse(null),
                response.headers().firstValue(PoolController.ENVIRONMENT_HEADER).orElse(null), response.body());
    }

    /** A GET signed now by {@code signer}, with a fresh nonce. */
    static Response signedGet(int port, RequestSigner signer, String path, String query) throws Exception {
        return get(port, path + (query == null || query.isEmpty() ? "" : "?" + query), signer.sign("GET", path, query));
    }
}
