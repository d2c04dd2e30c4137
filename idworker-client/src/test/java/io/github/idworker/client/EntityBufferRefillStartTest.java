package io.github.idworker.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Starting a refill can fail before any request is sent: the executor refuses the task, or the JVM cannot make
 * another thread. The caller waiting for that refill gets an {@link IdServiceException} at once, and the buffer
 * does not stay stuck with a refill that never runs.
 */
class EntityBufferRefillStartTest {

    private static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final long BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(60);

    private StandIn env;

    @BeforeEach
    void startEnvironment() throws IOException {
        env = StandIn.several(1).get(0);
    }

    @AfterEach
    void stopEnvironment() {
        env.close();
        assertThat(env.refusedSignatures()).isZero();
    }

    /** Runs each task on a thread of its own, except the starts told to fail, which throw as told. */
    private static final class FlakyExecutor implements Executor {

        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private final AtomicInteger started = new AtomicInteger();

        FlakyExecutor failNext(Throwable failure) {
            failures.add(failure);
            return this;
        }

        int started() {
            return started.get();
        }

        @Override
        public void execute(Runnable task) {
            Throwable failure = failures.poll();
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            started.incrementAndGet();
            Thread thread = new Thread(task, "test-refill");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private EntityBuffer buffer(Executor executor) {
        return new EntityBuffer("user", 10, 5, MAX_WAIT_NANOS, BACKOFF_NANOS, StandIn.fetcher(List.of(env)), executor,
                List::of);
    }

    /**
     * A take; an {@link Error} it throws fails the test as an assertion (JUnit ends the test JVM on an
     * {@link OutOfMemoryError} leaving a test method).
     */
    private static <T> T take(Supplier<T> take) {
        try {
            return take.get();
        } catch (Error e) {
            throw new AssertionError("the take threw " + e, e);
        }
    }

    @Test
    void noThreadForTheRefillFailsTheWaitingCallerAtOnceAndTheNextCallStartsAnother() {
        FlakyExecutor executor = new FlakyExecutor().failNext(new OutOfMemoryError("unable to create native thread"));
        EntityBuffer buffer = buffer(executor);
        long start = System.nanoTime();
        assertThatThrownBy(() -> take(buffer::nextId)).isInstanceOf(IdServiceException.class)
                .hasMessage("entity 'user': could not start a refill: java.lang.OutOfMemoryError: unable to create "
                        + "native thread")
                .hasCauseInstanceOf(OutOfMemoryError.class);
        // a caller that waited would wait the whole maxWait (3 s); 1 s was outlasted on a loaded machine
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no wait for maxWait")
                .isLessThan(TimeUnit.NANOSECONDS.toMillis(MAX_WAIT_NANOS));
        assertThat(env.calls()).isZero();

        assertThat(take(buffer::nextId)).as("a refill that never ran is not waited for").isEqualTo(1);
        assertThat(executor.started()).isEqualTo(1);
    }

    @Test
    void aRejectedRefillFailsTheWaitingCallerAtOnceAndTheNextCallStartsAnother() {
        FlakyExecutor executor = new FlakyExecutor().failNext(new RejectedExecutionException("no thread"));
        EntityBuffer buffer = buffer(executor);
        assertThatThrownBy(() -> take(() -> buffer.nextIds(3))).isInstanceOf(IdServiceException.class)
                .hasMessageStartingWith("entity 'user': could not start a refill: ")
                .hasCauseInstanceOf(RejectedExecutionException.class);
        assertThat(take(() -> buffer.nextIds(3))).containsExactly(1, 2, 3);
    }

    @Test
    void aBackgroundRefillThatCannotStartLeavesTheTakeItsIdsAndTheNextCallerWhoFindsTooFewStartsOne() {
        FlakyExecutor executor = new FlakyExecutor();
        EntityBuffer buffer = buffer(executor);
        assertThat(take(() -> buffer.nextIds(5))).containsExactly(1, 2, 3, 4, 5);
        executor.failNext(new OutOfMemoryError("unable to create native thread"));
        // 4 left, below the threshold of 5: the background refill cannot start, the take keeps its ID
        assertThat(take(buffer::nextId)).isEqualTo(6);
        assertThat(buffer.buffered()).isEqualTo(4);
        // within the failure backoff takes start no background refill
        assertThat(take(() -> buffer.nextIds(4))).containsExactly(7, 8, 9, 10);
        assertThat(executor.started()).isEqualTo(1);
        // a caller who finds too few starts one at once
        assertThat(take(buffer::nextId)).isEqualTo(11);
        assertThat(executor.started()).isEqualTo(2);
        assertThat(env.calls()).isEqualTo(2);
    }
}
