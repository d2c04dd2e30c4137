package io.github.idworker.test.serial.redis;

import io.github.idworker.redis.JedisScriptExecutor;
import io.github.idworker.redis.LuaScript;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.redis.RedisSerialNumbers;
import io.github.idworker.test.redis.EmbeddedRedisSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A refill asked for while another refill of the same stock runs is run after it, not dropped. CI saw a take
 * empty the stock just as the refill that had filled it was ending: the take's request found that refill still
 * running, and the stock stayed empty until the next caller waited for one.
 *
 * <p>The refill thread is held at its install (the real Redis call runs once the test lets it go), so the second
 * request surely lands while a refill runs.
 */
class SerialRefillRequestTest {

    private SerialRedisHarness harness;
    private UnifiedJedis client;
    private final CountDownLatch installReached = new CountDownLatch(1);
    private final CountDownLatch installGo = new CountDownLatch(1);
    private volatile boolean holdNextInstall;

    @BeforeEach
    void open() {
        harness = new SerialRedisHarness("jdbc:h2:mem:serial-refill-request;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "",
                EmbeddedRedisSupport::newClient);
        client = EmbeddedRedisSupport.newClient();
    }

    @AfterEach
    void close() {
        installGo.countDown();
        harness.close();
        client.close();
    }

    @Test
    void aRequestMadeWhileARefillRunsGetsARefillAfterIt() throws Exception {
        // refills of min-batch 10 at this low pace, critical above anything the stock reaches here: every take asks
        // for a refill
        SerialRule rule = harness.newRule(b -> b.prefix("Q").width(6).minBatch(10).maxBatch(2_000).critical(1_000));
        RedisSerialNumbers node = harness.newNode(holding(new JedisScriptExecutor(client)),
                SerialRedisHarness.options().maxWait(Duration.ofSeconds(5)).build());
        node.next(rule.name());
        long settled = awaitSettled(node);

        holdNextInstall = true;
        node.next(rule.name()); // asks for a refill, which stops at its install
        assertThat(installReached.await(10, TimeUnit.SECONDS)).as("the refill reached its install").isTrue();
        node.next(rule.name()); // asks again while that refill runs
        installGo.countDown();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(node.refills()).as("refills after the held one: it and the one asked for during it")
                        .isEqualTo(settled + 2));
        assertThat(awaitSettled(node)).as("no refill beyond those asked for").isEqualTo(settled + 2);
    }

    /** Waits until no refill has landed for 300 ms; returns the refills so far. */
    private static long awaitSettled(RedisSerialNumbers node) throws InterruptedException {
        long seen = node.refills();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(300)) {
            Thread.sleep(20);
            long now = node.refills();
            if (now != seen) {
                seen = now;
                quietSince = System.nanoTime();
            }
        }
        return seen;
    }

    /** Runs every call on {@code real}; once asked, holds the next install until the test lets it go. */
    private RedisScriptExecutor holding(RedisScriptExecutor real) {
        return new RedisScriptExecutor() {
            @Override
            public List<Object> execute(LuaScript script, List<String> keys, List<String> args) {
                if (script.name().equals("serial-install") && holdNextInstall) {
                    holdNextInstall = false;
                    installReached.countDown();
                    try {
                        installGo.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return real.execute(script, keys, args);
            }

            @Override
            public List<Object> execute(LuaScript script, List<String> keys, List<String> args, long deadlineNanos,
                                        Supplier<? extends RuntimeException> onTimeout) {
                return real.execute(script, keys, args, deadlineNanos, onTimeout);
            }
        };
    }
}
