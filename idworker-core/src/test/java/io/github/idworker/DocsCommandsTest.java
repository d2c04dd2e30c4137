package io.github.idworker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command shown as runnable in the README, CONTRIBUTING.md and {@code docs/*.md} (a line of a {@code bash} or
 * {@code sh} block that is no {@code #} comment) is run by CI or by a test (issue #26), or says beside it why not.
 * A command is claimed by one of:
 * <ul>
 *   <li>{@code DocumentedStartCommandsTest} (idworker-server): {@code mvn … -pl idworker-server spring-boot:run …};</li>
 *   <li>{@code DocumentedCurlExamplesTest} (idworker-server): {@code curl 'http://localhost:8080/…'}, and the shell
 *       variables set in the same block (that test runs such a block through bash);</li>
 *   <li>a line of {@code .ci/docs-commands} or {@code .ci/run} that runs it: its words in order, quotes and the
 *       output-only Maven flags {@code -q -B -o} aside ({@code -am} too: it builds what a documented install
 *       provides), bounded-time overrides allowed after it;</li>
 *   <li>a "not run by CI" mark: in the command's own comment, or on a comment line right above the commands.</li>
 * </ul>
 * {@code mvn -q install -DskipTests &&} before a command is CI's reactor build, which never installs: the command
 * after it must be claimed. This test runs in the default tier and fails naming the document and line.
 */
class DocsCommandsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final String START = "mvn .*-pl idworker-server spring-boot:run.*";
    private static final String CURL = "^curl .*'http://localhost:8080/.*";
    private static final String MARK = "not run by CI";
    private static final String INSTALL = "mvn -q install -DskipTests";
    private static final Set<String> IGNORED_WORDS = Set.of("-q", "-B", "-o", "-am");
    private static final Pattern VARIABLE = Pattern.compile("^[A-Z_]+=\\$\\(.*");

    /** A command line of a document, numbered by its first line. */
    record Command(String where, String text, boolean marked) {
    }

    @Test
    void everyDocumentedCommandIsRunByCiOrATestOrMarked() throws IOException {
        List<List<String>> runners = new ArrayList<>();
        for (String script : List.of(".ci/docs-commands", ".ci/run")) {
            for (String line : logicalLines(Files.readAllLines(ROOT.resolve(script)))) {
                if (!line.strip().startsWith("#")) {
                    runners.add(words(line));
                }
            }
        }
        List<Command> commands = commands();
        assertThat(commands).as("documented commands").hasSizeGreaterThan(40);
        List<String> unclaimed = new ArrayList<>();
        int byScript = 0;
        for (Command command : commands) {
            for (String part : command.text().split("\\s+&&\\s+")) {
                if (part.strip().equals(INSTALL) || command.marked() || part.matches(START) || part.matches(CURL)
                        || VARIABLE.matcher(part).matches()) {
                    continue;
                }
                List<String> wanted = words(part);
                if (runners.stream().anyMatch(r -> Collections.indexOfSubList(r, wanted) >= 0)) {
                    byScript++;
                } else {
                    unclaimed.add(command.where() + ": " + part);
                }
            }
        }
        assertThat(unclaimed).as("documented commands that neither a test, .ci/docs-commands nor .ci/run runs, "
                + "and that are not marked \"" + MARK + "\" with the reason (see docs/guarantees.md)").isEmpty();
        assertThat(byScript).as("commands run by .ci/docs-commands or .ci/run").isGreaterThanOrEqualTo(8);
    }

    @Test
    void theClaimingTestsStillUseThesePatterns() throws IOException {
        Path server = ROOT.resolve("idworker-server/src/test/java/io/github/idworker/server");
        assertThat(Files.readString(server.resolve("DocumentedMarkdown.java"))).contains('"' + START + '"');
        assertThat(Files.readString(server.resolve("DocumentedCurlExamplesTest.java"))).contains('"' + CURL + '"');
    }

    /** Every command line of the documents' shell blocks; variables of a block with a curl example count as its. */
    static List<Command> commands() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<Command> commands = new ArrayList<>();
        for (Path document : documents) {
            List<String> raw = Files.readAllLines(document);
            boolean inFence = false;
            boolean shell = false;
            boolean marked = false;
            for (int i = 0; i < raw.size(); i++) {
                String line = raw.get(i);
                if (line.startsWith("```")) {
                    shell = !inFence && (line.equals("```bash") || line.equals("```sh"));
                    inFence = !inFence;
                    marked = false;
                    continue;
                }
                if (!shell || line.isBlank()) {
                    continue;
                }
                int first = i;
                StringBuilder text = new StringBuilder(line);
                while (text.toString().endsWith("\\") && i + 1 < raw.size()) {
                    text.setLength(text.length() - 1);
                    text.append(' ').append(raw.get(++i).strip());
                }
                String logical = text.toString().strip();
                if (logical.startsWith("#")) {
                    marked = logical.contains(MARK);
                    continue;
                }
                String comment = comment(logical);
                commands.add(new Command(ROOT.relativize(document) + ":" + (first + 1),
                        logical.substring(0, logical.length() - comment.length()).strip(),
                        marked || comment.contains(MARK)));
            }
        }
        return commands;
    }

    /** The trailing {@code # …} comment of a shell line (a {@code #} outside quotes after a space), or "". */
    private static String comment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#' && i > 0 && Character.isWhitespace(line.charAt(i - 1))) {
                return line.substring(i);
            }
        }
        return "";
    }

    private static List<String> logicalLines(List<String> raw) {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : raw) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                lines.add(current.append(line).toString());
                current.setLength(0);
            }
        }
        return lines;
    }

    /** The words of a command as compared: quotes removed, output-only Maven flags dropped. */
    private static List<String> words(String command) {
        return Arrays.stream(command.replace("'", "").replace("\"", "").strip().split("\\s+"))
                .filter(w -> !w.isEmpty() && !IGNORED_WORDS.contains(w)).toList();
    }
}
