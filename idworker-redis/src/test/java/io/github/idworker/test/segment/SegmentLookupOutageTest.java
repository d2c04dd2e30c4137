package io.github.idworker.test.segment;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.redis.RedisScriptExecutor;
import io.github.idworker.segment.SegmentGeneratorOptions;
import io.github.idworker.segment.SegmentIdGenerator;
import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.test.FlakySegmentAllocator;
import io.github.idworker.segment.redis.RedisSegmentOptions;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tag lookups during a store outage (#12 review, F1): tags asked for while the store is down, whose only
 * outcome is a failure, leave nothing behind once the store is back; a tag that had loaded a range stays. The
 * stores are in-memory fakes of the SPIs (SegmentAllocator, {@link RedisScriptExecutor}) that fail on
 * demand.
 */
class SegmentLookupOutageTest {


    @Test
    void tagsAskedForDuringAnOutageAreDroppedAndTheRealTagStays() {
        FlakySegmentAllocator allocator = new FlakySegmentAllocator();
        SegmentGeneratorOptions options = SegmentGeneratorOptions.builder().minStep(10).initialStep(10).maxStep(100)
                .maxWait(Duration.ofMillis(50)).build();
        try (SegmentIdGenerators lookup = new SegmentIdGenerators(tag -> new SegmentIdGenerator(allocator, tag, options))) {
            lookup.nextId("orders");
            allocator.down(true);
            for (int i = 0; i < 50; i++) {
                String junk = "junk-" + UUID.randomUUID();
                assertThatThrownBy(() -> lookup.nextId(junk)).isInstanceOf(RuntimeException.class);
                assertThatThrownBy(() -> lookup.nextIds(junk + "-b", 3)).isInstanceOf(RuntimeException.class);
            }
            allocator.down(false);

            assertThat(lookup.tags()).containsExactly("orders");
            assertThat(lookup.nextId("orders")).isPositive();
        }
    }

    @Test
    void sequencesAskedForWhileRedisIsDownAreDropped() {
        FlakySegmentAllocator allocator = new FlakySegmentAllocator();
        RedisScriptExecutor down = (script, keys, args) -> {
            throw new CenterUnavailableException("Redis unreachable", null);
        };
        try (RedisSequenceGenerators sequences = new RedisSequenceGenerators(down, allocator,
                RedisSegmentOptions.builder().maxWait(Duration.ofMillis(50)).build())) {
            for (int i = 0; i < 50; i++) {
                String junk = "junk-" + i;
                assertThatThrownBy(() -> sequences.nextId(junk)).isInstanceOf(CenterUnavailableException.class);
            }
            assertThat(sequences.tags()).isEmpty();
        }
    }
}
