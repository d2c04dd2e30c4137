package io.github.idworker.test.service.redis;

import io.github.idworker.service.RequestGate;
import io.github.idworker.service.RequestGate.Decision;
import io.github.idworker.service.redis.RedisRequestGate;
import io.github.idworker.test.service.AbstractRequestGateTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The request-gate contract on {@link RedisRequestGate}, plus what is Redis's own: the key layout
 * {@code {<prefix>:app:<key>}:nonce:<nonce>} (a string expiring with the nonce) and {@code {<prefix>:app:<key>}:rate}
 * (a hash {@code sec}, {@code count} expiring 10 s after its second), both keys of a call on one cluster slot.
 * Subclasses pick the Redis.
 */
abstract class AbstractRedisRequestGateTest extends AbstractRequestGateTest {

    @Override
    protected abstract RedisRequestGateStore createStore();

    private RedisRequestGateStore redis() {
        return (RedisRequestGateStore) store;
    }

    @Test
    void theNonceAndTheRateOfAnApplicationLiveUnderItsHashTagOnOneSlot() {
        RedisRequestGate gate = redis().newGate();
        UnifiedJedis admin = redis().admin();
        String app = newAppKey();
        String nonce = newNonce();
        String tag = "{" + redis().prefix + ":app:" + app + "}";
        assertThat(gate.tag(app)).isEqualTo(tag);
        String nonceKey = tag + ":nonce:" + nonce;
        String rateKey = tag + ":rate";

        long before = System.currentTimeMillis() / 1_000;
        assertThat(admit(gate, app, nonce, Duration.ofSeconds(30), true, 7, 100).decision())
                .isEqualTo(Decision.ADMITTED);
        long after = System.currentTimeMillis() / 1_000;
        assertThat(admin.type(nonceKey)).isEqualTo("string");
        assertThat(admin.pttl(nonceKey)).as("kept for the nonce's time to live").isBetween(25_000L, 30_000L);
        assertThat(admin.type(rateKey)).isEqualTo("hash");
        Map<String, String> rate = admin.hgetAll(rateKey);
        assertThat(rate).containsOnlyKeys("sec", "count").containsEntry("count", "7");
        assertThat(Long.parseLong(rate.get("sec"))).as("the Redis second").isBetween(before - 1, after + 1);
        assertThat(admin.pttl(rateKey)).isBetween(1L, 10_000L);
        assertThat(JedisClusterCRC16.getSlot(nonceKey)).as("one slot")
                .isEqualTo(JedisClusterCRC16.getSlot(rateKey)).isEqualTo(JedisClusterCRC16.getSlot(tag));

        String forbiddenApp = newAppKey();
        String forbiddenNonce = newNonce();
        assertThat(admit(gate, forbiddenApp, forbiddenNonce, Duration.ofSeconds(30), false, 5, 100).decision())
                .isEqualTo(Decision.FORBIDDEN);
        assertThat(admin.exists(gate.tag(forbiddenApp) + ":nonce:" + forbiddenNonce)).isTrue();
        assertThat(admin.exists(gate.tag(forbiddenApp) + ":rate")).as("nothing counted").isFalse();
    }

    /** Applications spread over slots (on a cluster, over nodes), and every call runs wherever its tag lives. */
    @Test
    void applicationsSpreadOverSlotsAndEachCallRunsOnItsOwn() {
        RedisRequestGate gate = redis().newGate();
        Set<Integer> slots = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            String app = newAppKey();
            String nonce = newNonce();
            assertThat(admit(gate, app, nonce, TTL, true, 1, 10).decision()).isEqualTo(Decision.ADMITTED);
            assertThat(admit(gate, app, nonce, TTL, true, 1, 10).decision()).isEqualTo(Decision.REPLAY);
            slots.add(JedisClusterCRC16.getSlot(gate.tag(app)));
        }
        assertThat(slots).hasSizeGreaterThan(1);
    }

    /**
     * The race check must catch a gate that is not atomic: a gate that GETs a nonce and then SETs it lets two
     * callers both find it new (embedded Redis, 32 threads on 2 gates over 200 nonces: 568 admissions, 143 nonces
     * admitted more than once), and {@link #assertEachNonceAdmittedOnce} must fail on it.
     */
    @Test
    void theRaceCheckCatchesAGateThatGetsThenSetsANonce() throws Exception {
        List<RequestGate> gates = List.of(redis().newGetThenSetGate(), redis().newGetThenSetGate());
        List<String> nonces = new ArrayList<>();
        for (int i = 0; i < NONCES; i++) {
            nonces.add(newNonce());
        }
        NonceRace race = raceOverNonces(gates, THREADS, nonces, newAppKey());
        System.out.printf("GET-then-SET gate: %d calls over %d nonces: %d admitted (%s per gate), %d replays, %d "
                        + "nonces admitted more than once%n", race.calls(), NONCES, race.admitted(),
                race.admittedPerGate(), race.replays(),
                race.admissions().values().stream().filter(c -> c > 1).count());
        assertThat(race.admissions().values()).as("nonces the GET-then-SET gate admitted more than once")
                .anyMatch(c -> c > 1);
        assertThatThrownBy(() -> assertEachNonceAdmittedOnce(race, nonces))
                .as("the race check on a non-atomic gate").isInstanceOf(AssertionError.class);
    }
}
