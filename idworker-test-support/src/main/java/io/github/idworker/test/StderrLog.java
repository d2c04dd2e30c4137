package io.github.idworker.test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What a logger that writes to the console logs while a piece of code runs. slf4j-simple (this module's test
 * logger) has no appenders; it writes every line to whatever {@link System#err} is at that moment, as logback's
 * console appender does, so swapping the stream captures the log (still passed on to the real stream). Every
 * thread's lines are caught meanwhile; tests that use it run one at a time in one JVM.
 */
public final class StderrLog {

    private StderrLog() {
    }

    /** Runs {@code action} and returns the log lines written meanwhile. */
    public static String during(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                captured.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
        try {
            action.run();
        } finally {
            System.setErr(original);
            tee.flush();
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
