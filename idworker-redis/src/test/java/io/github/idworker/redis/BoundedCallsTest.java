package io.github.idworker.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The deadline bounds a caller's wait, and only the deadline: more callers than the pool has permits queue for one
 * instead of failing at once, a call abandoned before it started never runs, and a late result goes to its
 * consumer.
 */
class BoundedCallsTest {

    /** A store that answers in 500 ms: 150 callers more than there are permits all get their answer. */
    @Test
    void moreCallersThanPermitsWaitForOneWithinTheirDeadline() throws Exception {
        int callers = BoundedCalls.THREADS + 150;
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    int value = BoundedCalls.call(() -> {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
                        return 1;
                    }, deadline, IllegalStateException::new);
                    answered.addAndGet(value);
                } catch (IllegalStateException e) {
                    timedOut.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(timedOut.get()).as("callers that timed out against a store answering in 500 ms").isZero();
        assertThat(answered.get()).isEqualTo(callers);
    }

    @Test
    void aCallerStopsWaitingAtItsDeadlineAndTheLateResultGoesToItsConsumer() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch lateSeen = new CountDownLatch(1);
        long start = System.nanoTime();
        assertThatThrownBy(() -> BoundedCalls.call(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "late";
        }, start + TimeUnit.MILLISECONDS.toNanos(1_000), IllegalStateException::new, v -> lateSeen.countDown()))
                .isInstanceOf(IllegalStateException.class);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // a pooled thread starts within the second even on a busy machine; a call abandoned before it started would
        // never run, and then rightly never reach the consumer
        assertThat(waitedMillis).isBetween(950L, 5_000L);
        release.countDown();
        assertThat(lateSeen.await(10, TimeUnit.SECONDS)).as("the late result reached its consumer").isTrue();
    }

    @Test
    void aDeadlineAlreadyPassedRunsNothing() {
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> BoundedCalls.call(ran::incrementAndGet, System.nanoTime() - 1,
                IllegalStateException::new)).isInstanceOf(IllegalStateException.class);
        assertThat(ran.get()).isZero();
    }
}
