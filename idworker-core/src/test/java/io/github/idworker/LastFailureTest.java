package io.github.idworker;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LastFailure} keeps the order of events (#12 review, F7): a success that returned is not undone. */
class LastFailureTest {

    /** A failure whose text takes until {@code release} to build, as a slow redaction would. */
    private static final class SlowFailure extends RuntimeException {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String toString() {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "SlowFailure: password=secret";
        }
    }

    @Test
    void aFailureStillBeingRecordedDoesNotUndoASuccessThatReturnedAfterIt() throws Exception {
        LastFailure last = new LastFailure();
        SlowFailure failure = new SlowFailure();
        CompletableFuture<Void> failing = CompletableFuture.runAsync(() -> last.failed(failure));
        assertThat(failure.entered.await(10, TimeUnit.SECONDS)).isTrue();

        last.succeeded();
        failure.release.countDown();
        failing.get(10, TimeUnit.SECONDS);

        assertThat(last.failing()).as("failing after a later success returned").isFalse();
        assertThat(last.failure()).as("the failure stays readable, redacted").contains("SlowFailure")
                .doesNotContain("secret");
    }

    @Test
    void aFailureAfterASuccessIsFailing() {
        LastFailure last = new LastFailure();
        last.failed(new IllegalStateException("one"));
        last.succeeded();
        assertThat(last.failing()).isFalse();
        last.failed(new IllegalStateException("two"));
        assertThat(last.failing()).isTrue();
        assertThat(last.failure()).contains("two");
        assertThat(last.at()).isNotNull();
    }
}
