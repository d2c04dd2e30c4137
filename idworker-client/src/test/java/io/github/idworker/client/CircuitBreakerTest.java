package io.github.idworker.client;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The breaker's transitions on a clock the test moves. */
class CircuitBreakerTest {

    private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 500);  // near the wrap of nanoTime
    private final CircuitBreaker breaker = new CircuitBreaker(3, 1_000, now::get);

    @Test
    void opensOnTheThresholdthFailureInARowOnly() {
        breaker.onFailure();
        breaker.onFailure();
        breaker.onAnswer();
        assertThat(breaker.onFailure()).isFalse();
        assertThat(breaker.onFailure()).isFalse();
        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(breaker.onFailure()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.consecutiveFailures()).isEqualTo(3);
    }

    @Test
    void refusesDuringThePeriodThenAllowsExactlyOneTrial() {
        open();
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(breaker.millisUntilTrial()).isEqualTo(1);
        now.addAndGet(999);
        assertThat(breaker.tryAcquire()).isFalse();
        now.addAndGet(1);
        assertThat(breaker.millisUntilTrial()).isZero();
        assertThat(breaker.tryAcquire()).as("the trial").isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(breaker.tryAcquire()).as("a second caller during the trial").isFalse();
        breaker.onAnswer();
        assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(breaker.consecutiveFailures()).isZero();
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void aFailedTrialOpensForAWholePeriodAgain() {
        open();
        now.addAndGet(1_000);
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.onFailure()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
        now.addAndGet(1_000);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void anAbandonedTrialLetsTheNextCallerTryAtOnce() {
        open();
        now.addAndGet(1_000);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onAbandoned();
        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void aLateFailureDoesNotExtendTheOpenPeriod() {
        open();
        now.addAndGet(600);
        assertThat(breaker.onFailure()).isFalse();
        now.addAndGet(400);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    private void open() {
        for (int i = 0; i < 3; i++) {
            breaker.onFailure();
        }
        assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    }
}
