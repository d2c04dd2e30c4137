package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.pool.PoolEmptyException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.redis.RedisIdPools;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.yaml.snakeyaml.Yaml;
import redis.embedded.RedisServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The Grafana dashboard and the Prometheus alerting rules in docs/grafana use only names the starter exposes, and the
 * dashboard shows every meter. The names come from a real {@link PrometheusMeterRegistry} scraped from a running
 * context with every mode's generators (H2 and a Redis server of this test's own, stopped afterwards), so no
 * hand-written mapping from Micrometer's dotted names to Prometheus's can drift. Every meter name written in
 * {@code IdWorkerMeters} and {@code PoolAlarmMetrics} must be registered by that context, so a meter added there is
 * either shown on the dashboard or listed in {@link #NOT_ON_DASHBOARD} with a reason.
 */
class GrafanaDashboardMetricsTest {

    static final Path DASHBOARD = Path.of("..", "docs", "grafana", "idworker-dashboard.json");
    static final Path ALERTS = Path.of("..", "docs", "grafana", "idworker-alerts.yml");
    /** The sources whose meter names the running context must have registered. */
    private static final List<Path> METER_SOURCES = List.of(
            Path.of("src/main/java/io/github/idworker/spring/boot/actuate/IdWorkerMeters.java"),
            Path.of("src/main/java/io/github/idworker/spring/boot/autoconfigure/PoolAlarmMetrics.java"));
    /** A metric name in a PromQL expression. */
    private static final Pattern USED_NAME = Pattern.compile("idworker_[a-z0-9_]+");
    /** A meter name as a string literal in the sources (a property such as idworker.metrics.max-tags has a dash). */
    private static final Pattern METER_LITERAL = Pattern.compile("\"(idworker(?:\\.[a-z]+)+)\"");
    /** Exposed metric families the dashboard need not show, each with why; none so far. */
    private static final Map<String, String> NOT_ON_DASHBOARD = Map.of();

    private static RedisServer redis;
    private static int redisPort;

    private final String namespace = TestNames.namespace();
    private final String generatorNamespace = TestNames.namespace();
    private final String segmentTag = "s-" + UUID.randomUUID().toString().substring(0, 8);
    private final String sequenceTag = "q-" + UUID.randomUUID().toString().substring(0, 8);
    private final String rule = "r-" + UUID.randomUUID().toString().substring(0, 8);
    private final String entity = "p-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startRedis() throws IOException {
        redisPort = EmbeddedRedis.freePort();
        redis = RedisServer.newRedisServer().port(redisPort).bind("127.0.0.1").setting("save \"\"")
                .setting("appendonly no").build();
        redis.start();
    }

    @AfterAll
    static void stopRedis() throws IOException {
        if (redis.isActive()) {
            redis.stop();
        }
    }

    @Test
    void everyNameTheDashboardAndTheRulesUseIsExposedAndTheDashboardShowsEveryMeter() throws IOException {
        Map<String, Set<String>> exposed = scrapeEveryMode();
        Set<String> samples = exposed.values().stream().flatMap(Set::stream).collect(Collectors.toCollection(TreeSet::new));
        Map<String, Set<String>> dashboard = dashboardNames();
        Map<String, Set<String>> rules = ruleNames();
        assertThat(dashboard).as("PromQL expressions in " + DASHBOARD).isNotEmpty();
        assertThat(rules).as("alerting rules in " + ALERTS).isNotEmpty();

        List<String> problems = new ArrayList<>();
        unknownNames(DASHBOARD, dashboard, samples, problems);
        unknownNames(ALERTS, rules, samples, problems);
        Set<String> shown = dashboard.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
        exposed.forEach((family, names) -> {
            if (!NOT_ON_DASHBOARD.containsKey(family) && names.stream().noneMatch(shown::contains)) {
                problems.add(DASHBOARD + ": no panel shows " + family + " (exposed as " + names + ")");
            }
        });
        NOT_ON_DASHBOARD.keySet().stream().filter(f -> !exposed.containsKey(f)).forEach(f ->
                problems.add("NOT_ON_DASHBOARD lists " + f + ", which the starter does not expose"));
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems) + "\nexposed names: " + samples);
        }
    }

    private static void unknownNames(Path file, Map<String, Set<String>> used, Set<String> samples,
                                     List<String> problems) {
        used.forEach((where, names) -> names.stream().filter(n -> !samples.contains(n)).forEach(n ->
                problems.add(file + ", " + where + ": " + n + " is not a name the starter exposes")));
    }

    /**
     * Starts every mode that has meters (a default worker and a named generator, a segment tag, a Redis sequence, a
     * serial rule, an ID pool with one refused take for the alarm counter), checks that every meter name in the
     * sources was registered, and returns the scrape's idworker families with the sample names of each.
     */
    private Map<String, Set<String>> scrapeEveryMode() {
        Map<String, Set<String>> families = new TreeMap<>();
        new ApplicationContextRunner().withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataRedisAutoConfiguration.class, IdWorkerOperationsAutoConfiguration.class))
                .withUserConfiguration(IdWorkerOperationsTest.AllModes.class)
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort, "spring.data.redis.client-type=jedis",
                        "idworker.namespace=" + namespace, "idworker.generators.orders.namespace=" + generatorNamespace,
                        "idworker.segment.tags." + segmentTag + ".start-after=1000",
                        "idworker.segment.tags." + sequenceTag + ".start-after=5000",
                        "idworker.serial.rules." + rule + ".prefix=INV-", "idworker.serial.rules." + rule + ".width=8",
                        PoolEntity.property(entity, "max-per-request=2000"), PoolEntity.property(entity, "max-per-second=100000"),
                        PoolEntity.property(entity, "max-pool-size=2000"), PoolEntity.property(entity, "step=200"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisIdPools pools = context.getBean(RedisIdPools.class);
                    IdWorkerOperationsTest.issueFromEveryMode(context, segmentTag, sequenceTag, rule, entity);
                    // takes the whole pool until one take finds fewer IDs than asked for: an alarm of kind empty
                    boolean refused = false;
                    for (int i = 0; i < 10 && !refused; i++) {
                        try {
                            pools.take(entity, 2000);
                        } catch (PoolEmptyException e) {
                            refused = true;
                        }
                    }
                    assertThat(refused).as("a take of the whole pool refused").isTrue();
                    context.getBean(IdWorkerOperationsAutoConfiguration.MetersBinder.class).meters().refresh();

                    PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
                    Set<String> registered = registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName)
                            .collect(Collectors.toSet());
                    assertThat(registered).as("meters registered by a context with every mode")
                            .containsAll(meterNamesInSources());
                    String scrape = registry.scrape();
                    String family = null;
                    for (String line : scrape.split("\n")) {
                        if (line.startsWith("# TYPE ")) {
                            family = line.split(" ")[2];
                        } else if (!line.isBlank() && !line.startsWith("#") && family != null
                                && family.startsWith("idworker_")) {
                            families.computeIfAbsent(family, f -> new TreeSet<>()).add(line.split("[{ ]", 2)[0]);
                        }
                    }
                });
        assertThat(families).as("idworker metric families in the scrape").isNotEmpty();
        return families;
    }

    private static Set<String> meterNamesInSources() throws IOException {
        Set<String> names = new TreeSet<>();
        for (Path source : METER_SOURCES) {
            Matcher m = METER_LITERAL.matcher(Files.readString(source));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** The names in the dashboard's expressions (panel targets, template variable queries), by panel title. */
    static Map<String, Set<String>> dashboardNames() throws IOException {
        Map<String, Set<String>> names = new TreeMap<>();
        collect(JsonMapper.builder().build().readTree(DASHBOARD.toFile()), "dashboard", names);
        return names;
    }

    private static void collect(JsonNode node, String where, Map<String, Set<String>> names) {
        if (node.isObject()) {
            String here = node.has("title") ? "panel '" + node.get("title").asString() + "'"
                    : node.has("name") ? "variable '" + node.get("name").asString() + "'" : where;
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if ((field.getKey().equals("expr") || field.getKey().equals("query")) && field.getValue().isString()) {
                    add(field.getValue().asString(), here, names);
                } else {
                    collect(field.getValue(), here, names);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, where, names));
        }
    }

    /** The names in the rules' expressions, by alert name. */
    @SuppressWarnings("unchecked")
    static Map<String, Set<String>> ruleNames() throws IOException {
        Map<String, Set<String>> names = new TreeMap<>();
        try (Reader reader = Files.newBufferedReader(ALERTS)) {
            Map<String, Object> root = new Yaml().load(reader);
            for (Map<String, Object> group : (List<Map<String, Object>>) root.get("groups")) {
                for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                    add(String.valueOf(rule.get("expr")), "alert '" + rule.get("alert") + "'", names);
                }
            }
        }
        return names;
    }

    private static void add(String expr, String where, Map<String, Set<String>> names) {
        Matcher m = USED_NAME.matcher(expr);
        while (m.find()) {
            names.computeIfAbsent(where, w -> new TreeSet<>()).add(m.group());
        }
    }
}
