package io.github.idworker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the user documentation leads somewhere: README.md, CONTRIBUTING.md, CHANGELOG.md and every
 * {@code docs/**}{@code /*.md}. A link {@code [text](path)} must name a file or directory that exists (resolved
 * against the linking file's directory); {@code [text](path#anchor)} and {@code [text](#anchor)} into a Markdown
 * file must also name one of its headings, by GitHub's slug rules. Links inside fenced code blocks, inline code
 * and HTML comments are not links on GitHub either, and are skipped; so are absolute URLs.
 *
 * <p>Steps: collect the documents; for each, blank out HTML comments, fenced code blocks and inline code; find
 * inline links ({@code [x](target)}, also images) and reference definitions ({@code [x]: target}); for each
 * relative target check the file, then the anchor against the target's heading slugs.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** {@code [text](target)} or {@code [text](target "title")}; the text may hold one level of brackets. */
    private static final Pattern INLINE = Pattern.compile("\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+\"[^\"]*\")?\\s*$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void everyRelativeLinkOfTheDocsLeadsToAFileAndAHeadingThatExist() throws IOException {
        List<Path> documents = documents();
        assertThat(documents).as("documents under " + ROOT).extracting(p -> ROOT.relativize(p).toString())
                .contains("README.md", "CONTRIBUTING.md");
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path document : documents) {
            String text = linkableText(Files.readString(document));
            List<String> targets = new ArrayList<>();
            for (Pattern pattern : List.of(INLINE, REFERENCE)) {
                Matcher m = pattern.matcher(text);
                while (m.find()) {
                    targets.add(m.group(1));
                }
            }
            for (String target : targets) {
                if (SCHEME.matcher(target).find()) {
                    continue; // http:, https:, mailto: …: not a file of this repository
                }
                checked++;
                int hash = target.indexOf('#');
                String pathPart = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path file = pathPart.isEmpty() ? document
                        : document.getParent().resolve(decode(pathPart)).normalize();
                String where = ROOT.relativize(document) + ": (" + target + ")";
                if (!file.startsWith(ROOT) || !Files.exists(file)) {
                    broken.add(where + " names a file that does not exist: " + ROOT.relativize(file));
                } else if (anchor != null && !anchor.isEmpty() && file.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(file, DocsLinksTest::headingSlugs).contains(anchor)) {
                    broken.add(where + " names no heading of " + ROOT.relativize(file) + "; its anchors are "
                            + anchors.get(file));
                }
            }
        }
        assertThat(checked).as("relative links checked").isGreaterThan(10);
        assertThat(broken).as("broken relative links (fix the link or the heading)").isEmpty();
    }

    @Test
    void slugsFollowGitHub() {
        assertThat(slugs("# Serial numbers (流水号): readable strings, contiguous across every node\n"
                + "### The `idworker` endpoint\n### Database (`CenterMode.DB`, `JdbcSequenceManager`)\n"
                + "## Tests\n## Tests\n### [Linked](x.md) *text*\n```\n# not a heading\n```\n"))
                .containsExactly("serial-numbers-流水号-readable-strings-contiguous-across-every-node",
                        "the-idworker-endpoint", "database-centermodedb-jdbcsequencemanager", "tests", "tests-1",
                        "linked-text");
    }

    @Test
    void linksInCodeAndCommentsAreNoLinks() {
        String text = linkableText("a [real](a.md) `[code](b.md)`\n```\n[fenced](c.md)\n```\n<!-- [hidden](d.md) -->\n");
        Matcher m = INLINE.matcher(text);
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        assertThat(found).containsExactly("a.md");
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
            if (Files.exists(ROOT.resolve(name))) {
                documents.add(ROOT.resolve(name));
            }
        }
        if (Files.isDirectory(ROOT.resolve("docs"))) {
            try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
                docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
            }
        }
        return documents;
    }

    /** The text with HTML comments, fenced code blocks and inline code blanked out, line breaks kept. */
    static String linkableText(String markdown) {
        String text = blank(markdown, Pattern.compile("(?s)<!--.*?-->"));
        StringBuilder out = new StringBuilder();
        String fence = null;
        for (String line : text.split("\n", -1)) {
            String trimmed = line.stripLeading();
            if (fence == null && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
                fence = trimmed.substring(0, 3);
                out.append('\n');
                continue;
            }
            if (fence != null) {
                if (trimmed.startsWith(fence)) {
                    fence = null;
                }
                out.append('\n');
                continue;
            }
            out.append(blank(line, Pattern.compile("(`+)(?:(?!\\1).)+?\\1"))).append('\n');
        }
        return out.toString();
    }

    private static String blank(String text, Pattern pattern) {
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(m.group().replaceAll("[^\n]", " ")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Set<String> headingSlugs(Path file) {
        try {
            return slugs(Files.readString(file));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * GitHub's anchors: the heading's text as rendered (code spans and emphasis lose their marks, a link keeps its
     * text), lower case, every character that is not a letter, digit, space, {@code -} or {@code _} removed,
     * spaces turned into {@code -}; a repeated slug gets {@code -1}, {@code -2}, … Also explicit
     * {@code <a name="…">} / {@code id="…"} anchors.
     */
    static Set<String> slugs(String markdown) {
        Set<String> slugs = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : markdown.split("\n")) {
            String trimmed = line.stripLeading();
            if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                inFence = !inFence;
                continue;
            }
            Matcher named = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"").matcher(line);
            while (!inFence && named.find()) {
                slugs.add(named.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (inFence || !heading.matches()) {
                continue;
            }
            String text = heading.group(2)
                    .replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                    .replaceAll("<[^>]+>", "")
                    .replaceAll("[`*]", "");
            String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            slugs.add(n == 0 ? slug : slug + "-" + n);
        }
        return slugs;
    }

    private static String decode(String path) {
        return java.net.URLDecoder.decode(path.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    }
}
