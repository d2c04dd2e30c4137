package io.github.idworker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules CONTRIBUTING.md states for every module's main code: no class over 500 lines, and every package
 * {@code @NullMarked} in its {@code package-info.java}. Runs from idworker-core's directory over the whole checkout.
 */
class ProjectLayoutTest {

    static final int MAX_LINES = 500;

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void noMainClassIsLongerThanFiveHundredLines() throws IOException {
        List<Path> sources = mainSources();
        assertThat(sources).as("main sources under " + ROOT).hasSizeGreaterThan(100);
        Map<String, Long> tooLong = new TreeMap<>();
        for (Path source : sources) {
            long lines = lines(source);
            if (lines > MAX_LINES) {
                tooLong.put(ROOT.relativize(source).toString(), lines);
            }
        }
        assertThat(tooLong).as("main classes over %d lines: split them by responsibility (CONTRIBUTING.md)",
                MAX_LINES).isEmpty();
    }

    @Test
    void everyMainPackageIsNullMarked() throws IOException {
        List<Path> packages = mainSources().stream().map(Path::getParent).distinct().sorted().toList();
        assertThat(packages).hasSizeGreaterThan(20);
        List<String> unmarked = packages.stream()
                .filter(dir -> !nullMarked(dir.resolve("package-info.java")))
                .map(dir -> ROOT.relativize(dir).toString())
                .toList();
        assertThat(unmarked).as("packages without @NullMarked in package-info.java").isEmpty();
    }

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.filter(m -> Files.isDirectory(m.resolve("src/main/java")))
                    .flatMap(m -> walk(m.resolve("src/main/java")))
                    .filter(p -> p.toString().endsWith(".java"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static Stream<Path> walk(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long lines(Path source) {
        try (Stream<String> lines = Files.lines(source)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean nullMarked(Path packageInfo) {
        try {
            return Files.exists(packageInfo) && Files.readString(packageInfo).contains("@NullMarked");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
