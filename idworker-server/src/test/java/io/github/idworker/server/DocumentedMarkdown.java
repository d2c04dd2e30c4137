package io.github.idworker.server;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The README's and {@code docs/*.md}'s shell examples as the documentation tests read them, and the server started
 * the way a documented {@code spring-boot:run} command starts it: its profiles and arguments as written, only the
 * ports (free ones, so a running demo does not collide) and the namespace (a fresh one) changed.
 */
final class DocumentedMarkdown {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** A documented start command; {@code DocsCommandsTest} (idworker-core) claims the same lines by this text. */
    static final Pattern RUN = Pattern.compile("mvn .*-pl idworker-server spring-boot:run.*");
    private static final Pattern PROFILES = Pattern.compile("-Dspring-boot\\.run\\.profiles=(\\S+)");
    private static final Pattern ARGUMENTS = Pattern.compile("-Dspring-boot\\.run\\.arguments=(\"([^\"]*)\"|(\\S+))");
    private static final Pattern FENCE = Pattern.compile("^```(\\w*)\\s*$");

    private DocumentedMarkdown() {
    }

    /** One logical line: a line ending in {@code \} joined with the next, numbered by its first line. */
    record Line(int number, String text) {
    }

    /** A fenced {@code bash} or {@code sh} block of {@code document}: its logical lines, comments included. */
    record Block(Path document, List<Line> lines) {

        int firstLine() {
            return lines.isEmpty() ? 0 : lines.get(0).number();
        }

        /** {@code README.md:50}: where a reader finds the block. */
        String where() {
            return ROOT.relativize(document) + ":" + firstLine();
        }
    }

    /** README.md, then {@code docs/*.md} by name. */
    static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** Every logical line of {@code document}, continuation lines joined with one space. */
    static List<Line> lines(Path document) throws IOException {
        List<String> raw = Files.readAllLines(document);
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            int first = i;
            StringBuilder text = new StringBuilder(raw.get(i));
            while (text.toString().endsWith("\\") && i + 1 < raw.size()) {
                text.setLength(text.length() - 1);
                text.append(' ').append(raw.get(++i).strip());
            }
            lines.add(new Line(first + 1, text.toString().replaceAll("\\s+$", "")));
        }
        return lines;
    }

    /** The {@code bash} and {@code sh} blocks of {@code document}, in order. */
    static List<Block> blocks(Path document) throws IOException {
        List<Block> blocks = new ArrayList<>();
        boolean inFence = false;
        List<Line> shell = null;
        for (Line line : lines(document)) {
            Matcher fence = FENCE.matcher(line.text());
            if (!inFence && fence.matches()) {
                inFence = true;
                shell = fence.group(1).equals("bash") || fence.group(1).equals("sh") ? new ArrayList<>() : null;
            } else if (inFence && line.text().equals("```")) {
                if (shell != null && !shell.isEmpty()) {
                    blocks.add(new Block(document, List.copyOf(shell)));
                }
                inFence = false;
                shell = null;
            } else if (shell != null) {
                shell.add(line);
            }
        }
        return blocks;
    }

    /** The start command of {@code line}, without a leading {@code mvn … install … &&} and a trailing comment. */
    static Optional<String> startCommand(String line) {
        Matcher run = RUN.matcher(line);
        if (!run.find()) {
            return Optional.empty();
        }
        String command = run.group();
        return Optional.of(command.substring(command.lastIndexOf("mvn ")).replaceAll("\\s+#.*$", "").trim());
    }

    /**
     * Starts the server as {@code command} does: its profiles and its {@code spring-boot.run.arguments}, on a free
     * HTTP port and a free embedded-Redis port, in a fresh namespace. The lease stays as documented: its settings
     * must fit the centres' timeouts as the user runs them. {@code listeners} join the application's own.
     */
    static ConfigurableApplicationContext start(String command, ApplicationListener<?>... listeners) {
        Matcher profiles = PROFILES.matcher(command);
        String[] active = profiles.find() ? profiles.group(1).split(",") : new String[0];
        List<String> arguments = new ArrayList<>();
        Matcher given = ARGUMENTS.matcher(command);
        if (given.find()) {
            String value = given.group(2) != null ? given.group(2) : given.group(3);
            Arrays.stream(value.trim().split("\\s+")).filter(a -> !a.startsWith("--server.port=")).forEach(arguments::add);
        }
        arguments.addAll(List.of("--server.port=0", "--spring.data.redis.port=0",
                "--idworker.namespace=t-" + UUID.randomUUID()));
        return new SpringApplicationBuilder(IdWorkerServerApplication.class).profiles(active).listeners(listeners)
                .run(arguments.toArray(String[]::new));
    }

    /** The HTTP port {@code server} listens on. */
    static int port(ConfigurableApplicationContext server) {
        return server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }
}
