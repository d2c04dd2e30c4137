package io.github.idworker.test.fault;

import io.github.idworker.test.jdbc.JdbcSequenceManagerStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault tests on a real database of this machine, plus a restart of that database while workers run.
 * At least 600 000 ids a run (the faults fall early in a run; more volume after them proved no more).
 */
@Tag("real-services")
abstract class AbstractJdbcRealFaultInjectionTest extends AbstractFaultInjectionTest {

    private JdbcSequenceManagerStore store;

    protected abstract String url();

    protected abstract String user();

    /** Shell commands that stop and start the database server. */
    protected abstract String[] stopCommand();

    protected abstract String[] startCommand();

    private JdbcSequenceManagerStore store() {
        if (store == null) {
            store = new JdbcSequenceManagerStore(url(), user(), "");
        }
        return store;
    }

    @Override
    protected List<String> centreArgs() {
        store();
        return List.of("centre=jdbc", "url=" + url(), "user=" + user());
    }

    @Override
    protected int rate() {
        return 150_000;
    }

    @Override
    protected long minTotalIds() {
        return 600_000;
    }

    @Override
    protected void deleteNamespace(String namespace) {
        store().deleteNamespace(namespace);
        store.close();
        store = null;
    }

    @Test
    void databaseRestartWhileWorkersRun() throws Exception {
        currentTest = "database restart";
        List<WorkerProcess> ps = launchAll(4);
        for (WorkerProcess p : ps) {
            p.awaitIssued(rate() / 2, Duration.ofSeconds(30));
        }
        store.close();
        store = null;
        run(stopCommand());
        Thread.sleep(TTL_MS + 1_000);
        run(startCommand());
        awaitDatabase();
        // every process renews again and keeps issuing
        for (WorkerProcess p : ps) {
            long issued = WorkerProcess.field(p.lastStatus(), "issued");
            p.await(l -> l.startsWith("STATUS") && WorkerProcess.field(l, "issued") > issued + rate(), Duration.ofSeconds(60));
        }
        runUntilEnoughIds();
        stopAll();
        assertNoDuplicates();
        long fenced = ps.stream().mapToLong(p -> WorkerProcess.field(p.lastStatus(), "fenceTrips")).sum();
        System.out.println("FAULT-NOTE database restart: fence trips while the database was down: " + fenced);
        assertThat(fenced).as("workers fenced themselves while the database was down past their high-water").isPositive();
    }

    private void awaitDatabase() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                store();
                return;
            } catch (RuntimeException notYet) {
                store = null;
                Thread.sleep(250);
            }
        }
        throw new AssertionError("the database did not come back within 60 s");
    }

    private static void run(String[] cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
