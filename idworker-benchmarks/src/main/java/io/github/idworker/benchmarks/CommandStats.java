package io.github.idworker.benchmarks;

import redis.clients.jedis.UnifiedJedis;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Time spent inside Redis per command over one benchmark iteration, from two readings of {@code INFO commandstats}
 * (no {@code CONFIG RESETSTAT}: the counters of the server are left as they were). A script's own time is what
 * {@code cmdstat_evalsha} adds; the commands a script runs ({@code INFO}, {@code HINCRBY}, …) are counted inside it
 * and, once more, on their own lines, so the lines are read side by side, never summed.
 *
 * <p>Steps: {@link #start} reads the counters; {@link #line} reads them again and formats, per command that ran in
 * between, its microseconds per call and its number of calls. Only what the benchmark's own client sent is in the
 * difference when nothing else uses that Redis meanwhile.
 */
final class CommandStats {

    /** Commands worth a column: the scripts, their peers and what the scripts call. */
    private static final String[] SHOWN = {"evalsha", "eval", "incr", "incrby", "lpop", "info", "hincrby", "hmget",
        "time", "set"};

    private final UnifiedJedis client;
    private Map<String, long[]> before = Map.of();

    CommandStats(UnifiedJedis client) {
        this.client = client;
    }

    /** Takes the first reading. */
    void start() {
        before = read();
    }

    /** Commands that ran since {@link #start}: {@code evalsha 6.12 us x 30211, incr 0.41 us x 12}. */
    String line() {
        Map<String, long[]> after = read();
        StringJoiner out = new StringJoiner(", ", "inside Redis: ", "");
        for (String command : SHOWN) {
            long[] now = after.get(command);
            if (now == null) {
                continue;
            }
            long[] then = before.getOrDefault(command, new long[2]);
            long calls = now[0] - then[0];
            // at least 10: the first reading's own INFO is in the difference
            if (calls >= 10) {
                out.add(String.format(Locale.ROOT, "%s %.2f us x %d", command,
                        (double) (now[1] - then[1]) / calls, calls));
            }
        }
        return out.toString();
    }

    /** command → {calls, usec} from {@code cmdstat_<command>:calls=…,usec=…,…} lines. */
    private Map<String, long[]> read() {
        Map<String, long[]> stats = new LinkedHashMap<>();
        for (String line : client.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            long calls = 0;
            long usec = 0;
            for (String field : line.substring(colon + 1).split(",")) {
                if (field.startsWith("calls=")) {
                    calls = Long.parseLong(field.substring(6));
                } else if (field.startsWith("usec=")) {
                    usec = Long.parseLong(field.substring(5));
                }
            }
            stats.put(line.substring("cmdstat_".length(), colon), new long[] {calls, usec});
        }
        return stats;
    }
}
