package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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

    /** The documented commands, each once, in the order the documents show them. */
    static List<String> documentedCommands() throws IOException {
        Set<String> commands = new LinkedHashSet<>();
        for (Path document : DocumentedMarkdown.documents()) {
            for (DocumentedMarkdown.Line line : DocumentedMarkdown.lines(document)) {
                // "mvn -q install -DskipTests && mvn …": the run command is the part after the last &&
                DocumentedMarkdown.startCommand(line.text()).ifPresent(commands::add);
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
        try (ConfigurableApplicationContext server = DocumentedMarkdown.start(command)) {
            int port = DocumentedMarkdown.port(server);
            assertThat(SampleHttp.get(port, "/ids/next?count=2").ids()).as(command).hasSize(2);
            assertThat(SampleHttp.get(port, "/ids/segment/order?count=2").ids()).as(command).hasSize(2);
            assertThat(SampleHttp.get(port, "/actuator/health/readiness").status()).as(command).isEqualTo(200);
        }
    }
}
