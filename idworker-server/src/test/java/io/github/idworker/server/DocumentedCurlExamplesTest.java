package io.github.idworker.server;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code curl 'http://localhost:8080/…'} example of the README and {@code docs/*.md} answers what its document
 * shows under it (its {@code # …} lines, see {@link DocumentedAnswer}): an example that drifts from the code fails
 * here, naming the document and line.
 *
 * <p>Steps, for each {@code bash} block holding such a line: start the server the way the document says for that
 * block — the first start command of the nearest block at or before it that holds one, else the README's quick start
 * (profile {@code demo}) — on free ports and in a fresh namespace ({@link DocumentedMarkdown#start}); when the prose
 * right before the block says the embedded Redis is killed, kill it; then run the block's commands in order. A block
 * with shell variables (the signed call of docs/server.md) runs through {@code bash -c} with the real {@code curl}
 * and {@code openssl}, with two changes only: the port, and the secret file "named at startup" (the server's own).
 * Any other curl line is sent by this test as curl would send it ({@code -I}, {@code -i}, {@code -s}, {@code -X},
 * {@code -H}, {@code --path-as-is}; another option fails the test until it is taught here).
 *
 * <p>Examples run up to four at once where the build enables JUnit's parallel execution: each server has its own
 * ports, embedded Redis, in-memory database and namespace, and most of an example's time is its fresh namespace's
 * first wait (the loss guard, 4.5 s in the demo profile), not work.
 */
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT)
class DocumentedCurlExamplesTest {

    /** A documented example; {@code DocsCommandsTest} (idworker-core) claims the same lines by this text. */
    static final Pattern CURL = Pattern.compile("^curl .*'http://localhost:8080/.*");
    private static final Pattern SHELL_VARIABLE = Pattern.compile("\\$[A-Za-z{(]");
    private static final String KILLED_REDIS = "embedded Redis killed";
    private static final String END = "@@end-of-curl@@";

    /** One block to run: where it is, the start command that precedes it, and the prose just before it. */
    record Example(DocumentedMarkdown.Block block, String start, String before) {
    }

    static List<Example> examples() throws IOException {
        List<Example> examples = new ArrayList<>();
        String quickStart = null;
        for (Path document : DocumentedMarkdown.documents()) {
            List<String> raw = Files.readAllLines(document);
            String start = quickStart;
            for (DocumentedMarkdown.Block block : DocumentedMarkdown.blocks(document)) {
                String first = block.lines().stream().map(l -> DocumentedMarkdown.startCommand(l.text()))
                        .flatMap(java.util.Optional::stream).findFirst().orElse(null);
                if (first != null) {
                    start = first;
                    quickStart = quickStart == null ? first : quickStart;
                }
                if (block.lines().stream().anyMatch(l -> CURL.matcher(l.text()).matches())) {
                    assertThat(start).as("%s: no start command before it", block.where()).isNotNull();
                    examples.add(new Example(block, start, proseBefore(raw, block.firstLine())));
                }
            }
        }
        return examples;
    }

    /** The last non-blank line above the block's opening fence. */
    private static String proseBefore(List<String> raw, int firstLine) {
        for (int i = firstLine - 3; i >= 0; i--) {
            if (!raw.get(i).isBlank()) {
                return raw.get(i);
            }
        }
        return "";
    }

    @Test
    void theDocumentsShowCurlExamplesOfEveryFamily() throws IOException {
        List<String> lines = examples().stream().flatMap(e -> e.block().lines().stream()).map(DocumentedMarkdown.Line::text)
                .filter(t -> CURL.matcher(t).matches()).toList();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(30)
                .anyMatch(l -> l.contains("/ids/next")).anyMatch(l -> l.contains("/ids/segment/"))
                .anyMatch(l -> l.contains("/ids/sequence/")).anyMatch(l -> l.contains("/serials/"))
                .anyMatch(l -> l.contains("/pools/")).anyMatch(l -> l.contains("/actuator/"));
    }

    @TestFactory
    Stream<DynamicTest> eachCurlExampleAnswersAsDocumented() throws IOException {
        return examples().stream().map(e -> DynamicTest.dynamicTest(e.block().where(), () -> run(e)));
    }

    /**
     * Every demo server of this JVM hands its secret over in one file ({@link IdServiceConfig#secretFile}), written
     * at its start and deleted after it: an example that signs with it (a shell block) holds the write lock from
     * before its server starts until the file is deleted; any other holds the read lock while its server starts and
     * while it stops, so no other start rewrites the file under a signed call.
     */
    private static final ReadWriteLock SECRET_FILE = new ReentrantReadWriteLock();
    /**
     * Spring Boot sets up the JVM's one logging system as an application starts and cleans it up as one closes or
     * fails; starts at once in one JVM raced there (a ConcurrentModificationException). Taken when a start begins
     * and when it fails, left when the context is prepared, before its beans (the lease's first wait is among
     * them); {@link #run} leaves it whatever became of the start, and holds it while a context closes.
     */
    private static final ReentrantLock LOGGING = new ReentrantLock();
    private static final ApplicationListener<ApplicationEvent> LOCK_LOGGING = new LoggingLock(true);
    private static final ApplicationListener<ApplicationEvent> UNLOCK_LOGGING = new LoggingLock(false);

    /** Takes {@link #LOGGING} before Boot's logging listener runs, or leaves it after. */
    private record LoggingLock(boolean take) implements ApplicationListener<ApplicationEvent>, Ordered {
        @Override
        public void onApplicationEvent(ApplicationEvent event) {
            if (take && (event instanceof ApplicationStartingEvent || event instanceof ApplicationFailedEvent)) {
                LOGGING.lock();
            } else if (!take && event instanceof ApplicationPreparedEvent && LOGGING.isHeldByCurrentThread()) {
                LOGGING.unlock();
            }
        }

        @Override
        public int getOrder() {
            return take ? Ordered.HIGHEST_PRECEDENCE : Ordered.LOWEST_PRECEDENCE;
        }
    }

    private static void run(Example example) throws Exception {
        List<DocumentedMarkdown.Line> lines = example.block().lines();
        boolean shell = lines.stream().anyMatch(l -> !l.text().startsWith("#")
                && SHELL_VARIABLE.matcher(l.text()).find());
        Lock secretFile = shell ? SECRET_FILE.writeLock() : SECRET_FILE.readLock();
        secretFile.lock();
        try {
            ConfigurableApplicationContext server;
            try {
                server = DocumentedMarkdown.start(example.start(), LOCK_LOGGING, UNLOCK_LOGGING);
            } finally {
                // a failed start took it again (or never left it): its clean-up and close are done by now
                while (LOGGING.isHeldByCurrentThread()) {
                    LOGGING.unlock();
                }
            }
            try {
                if (!shell) {
                    secretFile.unlock();
                }
                check(example, server, lines, shell);
            } finally {
                if (!shell) {
                    secretFile.lock();
                }
                LOGGING.lock();
                try {
                    server.close();
                } finally {
                    LOGGING.unlock();
                }
            }
        } finally {
            try {
                Files.deleteIfExists(IdServiceConfig.secretFile("demo"));
            } finally {
                secretFile.unlock();
            }
        }
    }

    private static void check(Example example, ConfigurableApplicationContext server,
                              List<DocumentedMarkdown.Line> lines, boolean shell) throws Exception {
        int port = DocumentedMarkdown.port(server);
        awaitHealthy(port);
        if (example.before().contains(KILLED_REDIS)) {
            shutDownRedis(server.getEnvironment().getRequiredProperty("spring.data.redis.port", Integer.class));
        }
        List<String> failures = new ArrayList<>();
        List<DocumentedAnswer.Served> served = shell ? runInBash(lines, port) : new ArrayList<>();
        int shellIndex = 0;
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).text();
            if (!text.startsWith("curl ")) {
                continue;
            }
            List<String> comments = new ArrayList<>();
            for (int j = i + 1; j < lines.size() && lines.get(j).text().startsWith("#"); j++) {
                comments.add(lines.get(j).text());
            }
            CurlLine curl = CurlLine.parse(text);
            DocumentedAnswer answer = DocumentedAnswer.of(comments, curl.comment());
            DocumentedAnswer.Served got = shell ? served.get(shellIndex++) : send(port, curl);
            List<String> differences = answer.differences(got, rule(curl.path()),
                    shown -> todayForms(server.getEnvironment(), curl.path(), shown));
            if (!differences.isEmpty()) {
                failures.add(DocumentedMarkdown.ROOT.relativize(example.block().document()) + ":"
                        + lines.get(i).number() + ": " + text + "\n    " + String.join("\n    ", differences));
            }
        }
        assertThat(failures).as("curl examples that differ from what the server answers (started with: %s)",
                example.start()).isEmpty();
    }

    /**
     * Waits until the whole health is UP, as it is by the time a user types the first curl: right after the start a
     * component (the worker's first lease, a pool's first refill) may still be DOWN for a moment.
     */
    private static void awaitHealthy(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (RawHttp.send(port, "GET", "/actuator/health").status() != 200) {
            assertThat(System.nanoTime()).as("health UP within 30 s of the start").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** Snowflake ids, their decoding and health vary with time; serial numbers carry today's date. */
    private static DocumentedAnswer.Rule rule(String path) {
        if (path.startsWith("/ids/next") || path.startsWith("/ids/decode/") || path.startsWith("/actuator/")) {
            return DocumentedAnswer.Rule.SHAPE;
        }
        return path.startsWith("/serials/") ? DocumentedAnswer.Rule.SERIAL : DocumentedAnswer.Rule.EXACT;
    }

    /**
     * {@code shown} with its date part replaced by today's date in the rule's zone, read before and after the
     * call's check (a midnight in between gives two forms); unchanged for a rule without a date.
     */
    private static Set<String> todayForms(Environment environment, String path, String shown) {
        String rule = path.replaceFirst("^/serials/", "").replaceFirst("[?/].*$", "");
        String prefix = environment.getProperty("idworker.serial.rules." + rule + ".prefix", "");
        String pattern = environment.getProperty("idworker.serial.rules." + rule + ".date-pattern");
        String zone = environment.getProperty("idworker.serial.rules." + rule + ".zone", "UTC");
        Set<String> forms = new LinkedHashSet<>();
        if (pattern == null || !shown.startsWith(prefix)) {
            forms.add(shown);
            return forms;
        }
        DateTimeFormatter format = DateTimeFormatter.ofPattern(pattern, Locale.ROOT);
        for (LocalDate day : List.of(LocalDate.now(ZoneId.of(zone)).minusDays(1), LocalDate.now(ZoneId.of(zone)))) {
            String date = format.format(day);
            if (shown.length() >= prefix.length() + date.length()) {
                forms.add(prefix + date + shown.substring(prefix.length() + date.length()));
            }
        }
        return forms;
    }

    /** Sends the curl line as curl does: its method, path as written, its headers, curl's Accept. */
    private static DocumentedAnswer.Served send(int port, CurlLine curl) throws IOException {
        StringBuilder request = new StringBuilder().append(curl.method()).append(' ').append(curl.path())
                .append(" HTTP/1.1\r\nHost: localhost:").append(port).append("\r\nUser-Agent: curl\r\nAccept: */*\r\n")
                .append("Connection: close\r\n");
        curl.headers().forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
        RawHttp.Response response = RawHttp.sendRaw(port, request.append("\r\n").toString(),
                curl.method().equals("HEAD"));
        return new DocumentedAnswer.Served(response.status(), response.headers(), response.body());
    }

    /**
     * Runs the block's commands through {@code bash -c} with the real curl, the port and the secret file changed,
     * and returns what each curl printed, in order (the status only where curl shows it, with {@code -i}).
     */
    private static List<DocumentedAnswer.Served> runInBash(List<DocumentedMarkdown.Line> lines, int port)
            throws Exception {
        StringBuilder script = new StringBuilder("set -euo pipefail\n");
        for (DocumentedMarkdown.Line line : lines) {
            if (line.text().startsWith("#")) {
                continue;
            }
            script.append(line.text().replace("localhost:8080", "localhost:" + port)
                    .replace("/tmp/idworker-service-demo.secret", IdServiceConfig.secretFile("demo").toString()))
                    .append('\n');
            if (line.text().startsWith("curl ")) {
                script.append("printf '\\n%s\\n' '").append(END).append("'\n");
            }
        }
        Path errors = Files.createTempFile("curl-example", ".err");
        try {
            Process bash = new ProcessBuilder("bash", "-c", script.toString())
                    .redirectError(ProcessBuilder.Redirect.to(errors.toFile())).start();
            bash.getOutputStream().close();
            byte[] output = bash.getInputStream().readAllBytes();
            assertThat(bash.waitFor(60, TimeUnit.SECONDS)).as("bash ran within 60 s").isTrue();
            String text = new String(output, StandardCharsets.UTF_8);
            assertThat(bash.exitValue()).as("bash exit status; output:\n%s\nerrors:\n%s\nscript:\n%s", text,
                    Files.readString(errors), script).isZero();
            return printed(text);
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    /** What each curl printed, split at the markers the script printed after each. */
    private static List<DocumentedAnswer.Served> printed(String text) {
        List<DocumentedAnswer.Served> served = new ArrayList<>();
        for (String part : text.split("\n" + Pattern.quote(END) + "\n", -1)) {
            if (part.isBlank()) {
                continue;
            }
            served.add(part.startsWith("HTTP/") ? headAndBody(part) : new DocumentedAnswer.Served(-1, Map.of(), part.strip()));
        }
        return served;
    }

    private static DocumentedAnswer.Served headAndBody(String printed) {
        int end = printed.indexOf("\r\n\r\n");
        String[] head = printed.substring(0, end).split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < head.length; i++) {
            int colon = head[i].indexOf(':');
            headers.putIfAbsent(head[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), head[i].substring(colon + 1).trim());
        }
        return new DocumentedAnswer.Served(Integer.parseInt(head[0].split(" ")[1]), headers,
                printed.substring(end + 4).strip());
    }

    /** Stops the embedded Redis as a kill would, without saving: the server finds its store gone. */
    private static void shutDownRedis(int redisPort) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", redisPort)) {
            OutputStream out = socket.getOutputStream();
            out.write("*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.getInputStream().read(); // the connection closes when Redis is gone
        }
    }

    /** A documented curl line, as the options this test knows read it. */
    record CurlLine(String method, String path, Map<String, String> headers, @Nullable String comment) {

        static CurlLine parse(String line) {
            List<String> words = new ArrayList<>();
            String comment = null;
            StringBuilder word = null;
            char quote = 0;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (quote != 0) {
                    if (c == quote) {
                        quote = 0;
                    } else {
                        word.append(c);
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                    word = word == null ? new StringBuilder() : word;
                } else if (Character.isWhitespace(c)) {
                    if (word != null) {
                        words.add(word.toString());
                        word = null;
                    }
                } else if (c == '#' && word == null) {
                    comment = line.substring(i + 1).strip();
                    break;
                } else {
                    word = (word == null ? new StringBuilder() : word).append(c);
                }
            }
            if (word != null) {
                words.add(word.toString());
            }
            String method = "GET";
            String path = null;
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < words.size(); i++) {
                String w = words.get(i);
                switch (w) {
                    case "-I" -> method = "HEAD";
                    case "-i", "-s", "--path-as-is" -> { } // -i: the status is compared anyway; curl sends as written
                    case "-X" -> method = words.get(++i);
                    case "-H" -> {
                        String[] header = words.get(++i).split(":\\s*", 2);
                        headers.put(header[0], header[1]);
                    }
                    default -> {
                        if (!w.startsWith("http://localhost:8080/")) {
                            throw new AssertionError("curl option '" + w + "' is not known to this test: teach it");
                        }
                        path = w.substring("http://localhost:8080".length());
                    }
                }
            }
            if (path == null) {
                throw new AssertionError("no URL in: " + line);
            }
            return new CurlLine(method, path, headers, comment);
        }
    }
}
