package io.github.idworker.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests that {@code java.net.http} refuses to send (bad escapes, raw
 * semicolons and dot segments, oversized headers): the request line goes out byte for byte as written.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** One response: status, headers (names lower-cased, first value kept) and body as text. */
    record Response(int status, Map<String, String> headers, String body) {

        String contentType() {
            return headers.getOrDefault("content-type", "");
        }
    }

    /** Sends {@code METHOD target HTTP/1.1} with Host, {@code Connection: close} and {@code extraHeaders}. */
    static Response send(int port, String method, String target, String... extraHeaders) throws IOException {
        StringBuilder request = new StringBuilder()
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n")
                .append("Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n")
                .append("Connection: close\r\n");
        for (String header : extraHeaders) {
            request.append(header).append("\r\n");
        }
        request.append("\r\n");
        return sendRaw(port, request.toString(), method.equals("HEAD"));
    }

    /** Sends {@code request} exactly and reads the answer until the server closes the connection. */
    static Response sendRaw(int port, String request, boolean head) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return read(socket.getInputStream(), head);
        }
    }

    private static Response read(InputStream in, boolean head) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        try {
            while ((n = in.read(buffer)) != -1) {
                all.write(buffer, 0, n);
            }
        } catch (java.net.SocketException reset) {
            // a server that refuses a request may reset the connection after answering; keep what arrived
        }
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete response head: '" + text + "'");
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).trim());
        }
        String body = head ? text.substring(end + 4) : dechunk(headers, text.substring(end + 4));
        return new Response(status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1),
                StandardCharsets.UTF_8));
    }

    private static String dechunk(Map<String, String> headers, String body) {
        if (!"chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            return body;
        }
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                return out.toString();
            }
            out.append(body, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
