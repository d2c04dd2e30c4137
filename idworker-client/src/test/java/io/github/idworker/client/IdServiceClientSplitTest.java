package io.github.idworker.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Which environment issued the IDs: every 200 reports its split in {@code X-Id-Environment: e/E}, and an answer
 * whose split is missing, malformed, not that of its IDs, or in conflict with another environment's is a failure of
 * its environment — its IDs are never handed out, the next environment is tried.
 */
class IdServiceClientSplitTest {

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private List<StandIn> envs;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        for (StandIn env : envs) {
            assertThat(env.refusedSignatures()).isZero();
        }
    }

    private List<StandIn> standIns(int n) throws IOException {
        envs = StandIn.several(n);
        toClose.addAll(envs);
        return envs;
    }

    private IdServiceClient build(IdServiceClient.Builder builder) {
        IdServiceClient client = builder.build();
        toClose.add(0, client);
        return client;
    }

    private static String environment(IdServiceClient client, int index) {
        return client.stats().endpoints().get(index).environment();
    }

    @Test
    void twoDeploymentsLeftOnTheDefaultSplitServeNothing() throws IOException {
        List<StandIn> envs = standIns(2);
        envs.forEach(env -> env.split(0, 1));
        IdServiceClient client = build(StandIn.client(envs).failureThreshold(100));
        Throwable thrown = catchThrowable(() -> client.nextId("user"));
        System.out.println("both on 0/1: " + thrown.getMessage());
        assertThat(thrown).isInstanceOf(IdServiceUnavailableException.class);
        for (StandIn env : envs) {
            assertThat(thrown).hasMessageContaining(env.baseUrl() + ": HTTP 200, IDs not used: it reports split 0/1, "
                    + "the whole ID space, while this client has 2 environments: two environments both on split 0/1 "
                    + "would hand out the same IDs; configure idworker.pool.environment/environments on the servers");
        }
        assertThat(client.stats("user")).extracting(ClientStats::idsServed, ClientStats::buffered)
                .containsExactly(0L, 0L);
        assertThat(client.stats().endpoints()).allSatisfy(e -> {
            assertThat(e.consecutiveFailures()).isEqualTo(1);
            assertThat(e.environment()).isNull();
        });
    }

    @Test
    void aSecondEnvironmentOnTheSameSplitIsNeverUsed() throws IOException {
        List<StandIn> envs = standIns(2);
        envs.get(1).split(0, 2);
        IdServiceClient client = build(StandIn.client(envs).failureThreshold(100));
        assertThat(client.fetch("user", 2)).containsExactly(2, 4);
        assertThat(environment(client, 0)).isEqualTo("0/2");

        envs.get(0).behave(StandIn.status(503));
        Throwable thrown = catchThrowable(() -> client.fetch("user", 2));
        assertThat(thrown).isInstanceOf(IdServiceUnavailableException.class)
                .hasMessageContaining(envs.get(1).baseUrl() + ": HTTP 200, IDs not used: it and " + envs.get(0).baseUrl()
                        + " both report split 0/2: they would hand out the same IDs; configure "
                        + "idworker.pool.environment/environments on the servers");
        assertThat(client.stats().endpoints().get(1)).extracting(EndpointStats::consecutiveFailures,
                EndpointStats::environment).containsExactly(1, null);

        // configured apart, the second serves on failover
        envs.get(1).split(1, 2);
        assertThat(client.fetch("user", 2)).containsExactly(7, 9);
        assertThat(environment(client, 1)).isEqualTo("1/2");
    }

    @Test
    void environmentsThatDisagreeOnHowManyTheyAreAreNotBothUsed() throws IOException {
        List<StandIn> envs = standIns(2);
        envs.get(1).split(1, 3);
        IdServiceClient client = build(StandIn.client(envs).failureThreshold(100));
        client.fetch("user", 1);
        envs.get(0).behave(StandIn.status(500));
        assertThat(catchThrowable(() -> client.fetch("user", 1))).isInstanceOf(IdServiceUnavailableException.class)
                .hasMessageContaining(envs.get(1).baseUrl() + ": HTTP 200, IDs not used: it reports split 1/3 but "
                        + envs.get(0).baseUrl() + " reported 0/2: the environments disagree on how many they are, so "
                        + "their IDs may collide; configure the same idworker.pool.environments on every server");
    }

    @Test
    void anEnvironmentWhoseSplitChangesIsNotUsedAgain() throws IOException {
        List<StandIn> envs = standIns(2);
        IdServiceClient client = build(StandIn.client(envs).failureThreshold(100));
        assertThat(client.fetch("user", 1)).containsExactly(2);
        envs.get(0).split(1, 2);
        // the second environment, on 1/2 as well, serves: the first keeps 0/2, its accepted split
        assertThat(client.fetch("user", 1)).containsExactly(3);
        assertThat(client.stats().endpoints()).extracting(EndpointStats::consecutiveFailures,
                EndpointStats::environment).containsExactly(tuple(1, "0/2"), tuple(0, "1/2"));
        envs.get(1).stop();
        assertThat(catchThrowable(() -> client.fetch("user", 1))).isInstanceOf(IdServiceUnavailableException.class)
                .hasMessageContaining(envs.get(0).baseUrl() + ": HTTP 200, IDs not used: it reports split 1/2 but "
                        + "reported 0/2 before: IDs taken under the old split may be another environment's under the "
                        + "new one; restart this client after changing idworker.pool.environment/environments");
    }

    @Test
    void aMissingOrMalformedHeaderIsAFailureOfTheEnvironment() throws IOException {
        List<StandIn> envs = standIns(2);
        IdServiceClient client = build(StandIn.client(envs).failureThreshold(100));
        List<List<String>> headers = List.of(List.of(), List.of(""), List.of("0"), List.of("0/0"), List.of("2/2"),
                List.of("-0/2"), List.of("0/-2"), List.of("+0/2"), List.of("0 /2"), List.of("0/2/2"), List.of("a/b"),
                List.of("0/2x"), List.of("0x0/2"), List.of("0/9999999999"), List.of("0/2", "0/2"));
        int failures = 0;
        for (List<String> values : headers) {
            envs.get(0).reporting(values.toArray(String[]::new));
            assertThat(Arrays.stream(client.fetch("user", 2))).as("%s", values).allMatch(id -> id % 2 == 1);
            failures++;
            assertThat(client.stats().endpoints().get(0)).as("%s", values).extracting(
                    EndpointStats::consecutiveFailures, EndpointStats::environment).containsExactly(failures, null);
        }
        envs.get(0).reporting(" 0/2 ");
        assertThat(Arrays.stream(client.fetch("user", 2))).allMatch(id -> id % 2 == 0);
        assertThat(client.stats().endpoints().get(0)).extracting(EndpointStats::consecutiveFailures,
                EndpointStats::environment).containsExactly(0, "0/2");
        assertThat(envs.get(1).calls()).isEqualTo(headers.size());
    }

    @Test
    void whatIsWrongWithTheHeaderIsSaid() throws IOException {
        List<StandIn> envs = standIns(1);
        IdServiceClient client = build(StandIn.client(envs));
        envs.get(0).reporting();
        assertThat(catchThrowable(() -> client.fetch("user", 1))).hasMessageContaining(envs.get(0).baseUrl()
                + ": HTTP 200, IDs not used: no header X-Id-Environment (e/E), so which environment split issued the "
                + "IDs cannot be checked");
        envs.get(0).reporting("1/1\t" + "x".repeat(300));
        assertThat(catchThrowable(() -> client.fetch("user", 1))).hasMessageContaining("IDs not used: "
                + "X-Id-Environment '1/1 " + "x".repeat(196) + "…' is not e/E with 0 ≤ e < E");
        envs.get(0).reporting("0/1", "0/1");
        assertThat(catchThrowable(() -> client.fetch("user", 1))).hasMessageContaining("IDs not used: "
                + "X-Id-Environment sent 2 times is not e/E with 0 ≤ e < E");
    }

    @Test
    void anIdOutsideTheReportedSplitSpoilsTheWholeAnswer() throws IOException {
        List<StandIn> envs = standIns(2);
        envs.get(0).behave(StandIn.body("[2,4,5]"));
        IdServiceClient client = build(StandIn.client(envs));
        assertThat(client.fetch("user", 3)).containsExactly(3, 5, 7);
        assertThat(client.stats().endpoints().get(0).consecutiveFailures()).isEqualTo(1);
        envs.get(1).stop();
        assertThat(catchThrowable(() -> client.fetch("user", 3))).hasMessageContaining(envs.get(0).baseUrl()
                + ": HTTP 200, IDs not used: ID 5 is not of the split 0/2 it reports (5 mod 2 = 1)");
    }

    @Test
    void oneEnvironmentMayOwnTheWholeIdSpaceOrAnyShareOfIt() throws IOException {
        List<StandIn> envs = standIns(1);
        IdServiceClient client = build(StandIn.client(envs));
        assertThat(client.fetch("user", 2)).containsExactly(1, 2);
        assertThat(environment(client, 0)).isEqualTo("0/1");
        try (StandIn third = new StandIn(2, 3, java.util.concurrent.ConcurrentHashMap.newKeySet());
             IdServiceClient ofThird = StandIn.client(List.of(third)).build()) {
            assertThat(ofThird.fetch("user", 2)).containsExactly(5, 8);
            assertThat(ofThird.stats().endpoints().get(0).environment()).isEqualTo("2/3");
        }
    }
}
