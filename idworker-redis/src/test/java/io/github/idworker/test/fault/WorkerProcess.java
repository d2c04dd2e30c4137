package io.github.idworker.test.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A separate JVM running {@link WorkerProcessMain}, with the signals and commands the fault tests send it. */
final class WorkerProcess {

    private static final Pattern FIELD = Pattern.compile("(\\w+)=(-?\\d+)");

    final String name;
    final Path idFile;
    private final Process process;
    private final Writer stdin;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private WorkerProcess(String name, Path idFile, Process process) {
        this.name = name;
        this.idFile = idFile;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        }, "out-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    static WorkerProcess start(String name, Path dir, List<String> args) throws IOException {
        return start(WorkerProcessMain.class.getName(), name, dir, args);
    }

    /** Starts {@code mainClass}, a main that runs {@link WorkerProcessMain#run} over a centre of its own. */
    static WorkerProcess start(String mainClass, String name, Path dir, List<String> args) throws IOException {
        Path idFile = dir.resolve(name + ".ids");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"),
                mainClass, "out=" + idFile));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        return new WorkerProcess(name, idFile, p);
    }

    long pid() {
        return process.pid();
    }

    /**
     * The lines read so far, as a copy: the reader thread keeps appending, and a view of the live list (a subList
     * taken while a line arrives) throws ConcurrentModificationException.
     */
    List<String> lines() {
        return List.copyOf(lines);
    }

    void send(String command) throws IOException {
        stdin.write(command + "\n");
        stdin.flush();
    }

    /** Asks the process to return its lease and exit; waits for it. */
    void stop() throws IOException, InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        send("stop");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not stop; last lines: " + tail());
        }
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start().waitFor();
        if (rc != 0) {
            throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
        }
    }

    void destroy() {
        if (process.isAlive()) {
            try {
                thaw();
            } catch (Exception ignored) {
                // it may not be frozen
            }
            process.destroyForcibly();
        }
    }

    /** Waits until a line matches, failing with the process's last lines. */
    String await(Predicate<String> matches, Duration timeout) throws InterruptedException {
        return awaitFrom(0, matches, timeout);
    }

    /** Waits until a line at index {@code from} or later matches. */
    String awaitFrom(int from, Predicate<String> matches, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = from;
        while (System.nanoTime() < deadline) {
            List<String> snapshot = lines;
            for (int i = seen; i < snapshot.size(); i++) {
                if (matches.test(snapshot.get(i))) {
                    return snapshot.get(i);
                }
            }
            seen = snapshot.size();
            if (!process.isAlive() && seen == lines.size()) {
                break;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(name + ": no matching line within " + timeout + "; last lines: " + tail());
    }

    /** Waits until the process has issued at least {@code count} ids in all. */
    void awaitIssued(long count, Duration timeout) throws InterruptedException {
        await(l -> l.startsWith("STATUS") && field(l, "issued") >= count, timeout);
    }

    /** The newest STATUS line. */
    String lastStatus() {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("STATUS")) {
                return lines.get(i);
            }
        }
        return "";
    }

    List<String> linesStartingWith(String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).toList();
    }

    static long field(String line, String name) {
        Matcher m = FIELD.matcher(line);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Long.parseLong(m.group(2));
            }
        }
        throw new IllegalArgumentException("no " + name + " in: " + line);
    }

    String tail() {
        List<String> all = lines();
        int n = all.size();
        return String.join("\n", all.subList(Math.max(0, n - 15), n));
    }
}
