package io.github.idworker.server;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server without profile {@code demo} (profile {@code external}, a name of no file), started in this JVM over a database and a Redis the subclass provides,
 * stopped and started again: numbers continue above everything issued before the restart. Each test uses its own
 * namespace and tag, and removes the tag's row and every Redis key of both afterwards. The serial rules of
 * profile {@code demo} ({@code order}, {@code invoice}, {@link ServiceEnvironment#DEMO_RULES}) are registered by every start; the cleanup removes their
 * rows, periods and Redis keys too, so the shared database and Redis keep nothing of the sample's.
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AbstractExternalProfileTest {

    final String namespace = "t-" + UUID.randomUUID().toString().substring(0, 13);
    final String tag = "t-" + UUID.randomUUID().toString().substring(0, 13);

    private final String databaseUrl;
    private final String databaseUser;
    private final String redisHost;
    private final int redisPort;

    /**
     * @param databaseUrl JDBC URL of the shared database, reached with an empty password
     * @param databaseUser user of the shared database
     * @param redisHost host of the shared Redis
     * @param redisPort port of the shared Redis
     */
    AbstractExternalProfileTest(String databaseUrl, String databaseUser, String redisHost, int redisPort) {
        this.databaseUrl = databaseUrl;
        this.databaseUser = databaseUser;
        this.redisHost = redisHost;
        this.redisPort = redisPort;
    }

    /** Starts the sample with profile {@code external} and the database and Redis of this test. */
    ConfigurableApplicationContext start(String... extraArguments) {
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.datasource.url=" + databaseUrl, "--spring.datasource.username=" + databaseUser));
        if (Arrays.stream(extraArguments).noneMatch(a -> a.startsWith("--idworker.segment.auto-create="))) {
            arguments.add("--idworker.segment.auto-create=true"); // tags created on first use, as in profile demo
        }
        arguments.addAll(Arrays.asList(extraArguments));
        return startWith(new String[] {"external"}, arguments);
    }

    /** Starts the sample with {@code profiles}, only the given datasource arguments, and this test's Redis. */
    ConfigurableApplicationContext startWith(String[] profiles, List<String> datasourceArguments) {
        List<String> arguments = new ArrayList<>(List.of("--server.port=0",
                "--spring.data.redis.host=" + redisHost, "--spring.data.redis.port=" + redisPort,
                "--idworker.namespace=" + namespace, "--idworker.lease.ttl=2s", "--idworker.lease.max-skew=100ms", "--idworker.lease.loss-guard=2100ms",
                "--idworker.segment.initialize-schema=always", "--idworker.serial.initialize-schema=always",
                "--idworker.pool.initialize-schema=always", "--idworker.service.initialize-schema=always"));
        arguments.addAll(ServiceEnvironment.DEMO_RULES);
        arguments.addAll(datasourceArguments);
        // as command-line arguments: they must win over the profile's own files
        return new SpringApplicationBuilder(IdWorkerServerApplication.class).profiles(profiles)
                .run(arguments.toArray(String[]::new));
    }

    static int port(ConfigurableApplicationContext app) {
        return app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /**
     * The production-like profile shows the public port the overall health only: no components and no details
     * (leases, tags, pools, failures), which go to authorised users ({@code show-details: when-authorized}).
     */
    @Test
    void publicHealthShowsTheStatusOnly() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            SampleHttp.Response health = SampleHttp.get(port(app), "/actuator/health");
            assertThat(health.body().path("status").asString()).as("%s", health.body()).isNotEmpty();
            assertThat(health.body().has("components")).as("%s", health.body()).isFalse();
            assertThat(health.body().has("details")).as("%s", health.body()).isFalse();
        }
    }

    @Test
    void segmentAndSequenceNumbersContinueAboveEverythingIssuedBeforeARestart() throws Exception {
        long highestBefore;
        try (ConfigurableApplicationContext app = start()) {
            long[] segment = SampleHttp.get(port(app), "/ids/segment/" + tag + "?count=3").ids();
            long[] sequence = SampleHttp.get(port(app), "/ids/sequence/" + tag + "?count=3").ids();
            assertThat(segment).containsExactly(1, 2, 3);
            assertThat(sequence).hasSize(3).isSorted();
            highestBefore = LongStream.concat(Arrays.stream(segment), Arrays.stream(sequence)).max().orElseThrow();
        }
        try (ConfigurableApplicationContext app = start()) {
            long[] segment = SampleHttp.get(port(app), "/ids/segment/" + tag + "?count=3").ids();
            long[] sequence = SampleHttp.get(port(app), "/ids/sequence/" + tag + "?count=3").ids();
            assertThat(segment).as("segment numbers after the restart").hasSize(3).isSorted();
            assertThat(segment[0]).as("first segment number after the restart").isGreaterThan(highestBefore);
            assertThat(sequence[0]).as("first sequence number after the restart").isGreaterThan(highestBefore);
            assertThat(segment).doesNotContain(sequence);
        }
    }

    /**
     * The strict serials' stock stays in the shared Redis and their high-water in the shared database, so a
     * restarted instance continues above everything handed out before (right after it, unless another process
     * took numbers in between).
     */
    @Test
    void serialNumbersContinueAboveEverythingHandedOutBeforeARestart() throws Exception {
        String last;
        try (ConfigurableApplicationContext app = start()) {
            List<String> before = SampleHttp.get(port(app), "/serials/invoice?count=3").strings();
            assertThat(before).hasSize(3).allMatch(s -> s.matches("INV-\\d{8}")).isSorted();
            last = before.get(2);
        }
        try (ConfigurableApplicationContext app = start()) {
            List<String> after = SampleHttp.get(port(app), "/serials/invoice?count=3").strings();
            assertThat(after).hasSize(3).isSorted();
            assertThat(after.get(0)).as("first serial after the restart").isGreaterThan(last);
        }
    }

    @AfterEach
    void removeWhatTheTestLeft() {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(databaseUrl, databaseUser, "");
        JdbcClient jdbc = JdbcClient.create(dataSource);
        for (String sql : List.of("DELETE FROM idworker_segment WHERE biz_tag = '" + tag + "'",
                "DELETE FROM idworker_serial_rule_period WHERE rule_name IN ('order', 'invoice')",
                "DELETE FROM idworker_serial_rule WHERE rule_name IN ('order', 'invoice')")) {
            try {
                jdbc.sql(sql).update();
            } catch (BadSqlGrammarException e) {
                // no application of this test got as far as creating that table: nothing to remove
            }
        }
        try (Jedis jedis = new Jedis(redisHost, redisPort)) {
            for (String pattern : List.of("{idworker:" + namespace + "}:*", "{idworker:segment:" + tag + "}:*",
                    "{idworker:serial:order}:*", "{idworker:serial:invoice}:*")) {
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<String> page = jedis.scan(cursor, new ScanParams().match(pattern).count(1000));
                    if (!page.getResult().isEmpty()) {
                        jedis.del(page.getResult().toArray(String[]::new));
                    }
                    cursor = page.getCursor();
                } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            }
        }
    }
}
