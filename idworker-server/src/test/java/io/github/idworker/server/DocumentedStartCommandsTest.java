package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code mvn … -pl idworker-server spring-boot:run …} command shown in the README and in {@code docs/} starts
 * the server as written and serves IDs: its profiles and arguments are read from the Markdown itself, so a command
 * that drifts from the code fails here. Only the ports change (free ones, so a running demo does not collide) and
 * the namespace (a fresh one per command).
 */
@Tag("slow")
class DocumentedStartCommandsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern RUN = Pattern.compile("mvn .*-pl idworker-server spring-boot:run.*");
    private static final Pattern PROFILES = Pattern.compile("-Dspring-boot\\.run\\.profiles=(\\S+)");
    private static final Pattern ARGUMENTS = Pattern.compile("-Dspring-boot\\.run\\.arguments=(\"([^\"]*)\"|(\\S+))");

    /** The documented commands, each once, in the order the documents show them. */
    static List<String> documentedCommands() throws IOException {
        Set<String> commands = new LinkedHashSet<>();
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        for (Path document : documents) {
            String joined = Files.readString(document).replaceAll("\\\\\\n\\s*", " ");
            for (String line : joined.split("\n")) {
                Matcher run = RUN.matcher(line);
                if (run.find()) {
                    // "mvn -q install -DskipTests && mvn …": the run command is the part after the last &&
                    String command = run.group();
                    commands.add(command.substring(command.lastIndexOf("mvn ")).replaceAll("\\s+#.*$", "").trim());
                }
            }
        }
        return List.copyOf(commands);
    }

    @Test
    void theDocumentsShowTheDemoAndEveryCentre() throws IOException {
        List<String> commands = documentedCommands();
        assertThat(commands).as("documented start commands").hasSizeGreaterThanOrEqualTo(4);
        assertThat(commands).anyMatch(c -> c.contains("idworker.server.centre=db"))
                .anyMatch(c -> c.contains("idworker.server.centre=zookeeper"))
                .allMatch(c -> c.contains("-Dspring-boot.run.profiles=demo"));
    }

    @TestFactory
    Stream<DynamicTest> eachDocumentedCommandStartsAndServesIds() throws IOException {
        return documentedCommands().stream().map(command -> DynamicTest.dynamicTest(command, () -> startOnceMore(command)));
    }

    /**
     * Starts the command, and once more if its centre did not answer within the documented operation timeout (1 s
     * for ZooKeeper): the first call of a cold JVM to a server in the same JVM has taken longer than that on a 2-core
     * machine under a full build. A second timeout, a refused setting or a wrong answer still fails.
     */
    private static void startOnceMore(String command) throws Exception {
        try {
            startAndCall(command);
        } catch (Exception e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            if (!String.valueOf(root.getMessage()).contains("did not answer")
                    && !String.valueOf(e.getMessage()).contains("did not answer")) {
                throw e;
            }
            System.out.println("the centre did not answer on the first start; starting the documented command once more");
            startAndCall(command);
        }
    }

    private static void startAndCall(String command) throws Exception {
        Matcher profiles = PROFILES.matcher(command);
        String[] active = profiles.find() ? profiles.group(1).split(",") : new String[0];
        List<String> arguments = new ArrayList<>();
        Matcher given = ARGUMENTS.matcher(command);
        if (given.find()) {
            String value = given.group(2) != null ? given.group(2) : given.group(3);
            Arrays.stream(value.trim().split("\\s+")).filter(a -> !a.startsWith("--server.port=")).forEach(arguments::add);
        }
        // the lease stays as documented: its settings must fit the centres' timeouts as the user runs them
        arguments.addAll(List.of("--server.port=0", "--spring.data.redis.port=0",
                "--idworker.namespace=t-" + UUID.randomUUID()));
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(IdWorkerServerApplication.class)
                .profiles(active).run(arguments.toArray(String[]::new))) {
            int port = server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            assertThat(SampleHttp.get(port, "/ids/next?count=2").ids()).as(command).hasSize(2);
            assertThat(SampleHttp.get(port, "/ids/segment/order?count=2").ids()).as(command).hasSize(2);
            assertThat(SampleHttp.get(port, "/actuator/health/readiness").status()).as(command).isEqualTo(200);
        }
    }
}
