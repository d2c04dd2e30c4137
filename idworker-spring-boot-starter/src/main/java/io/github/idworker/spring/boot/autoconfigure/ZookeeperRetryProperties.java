package io.github.idworker.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Exponential back-off of idworker's own ZooKeeper client.
 * Bound to {@code idworker.zookeeper.retry.*}.
 */
public class ZookeeperRetryProperties {

    /**
     * Sleep before the first retry, doubled for each further one.
     */
    private Duration baseSleep = Duration.ofMillis(100);

    /**
     * Most retries of one operation.
     */
    private int maxRetries = 3;

    public Duration getBaseSleep() {
        return this.baseSleep;
    }

    public void setBaseSleep(Duration baseSleep) {
        this.baseSleep = baseSleep;
    }

    public int getMaxRetries() {
        return this.maxRetries;
    }

    public void setMaxRetries(int maxRetries) {
        this.maxRetries = maxRetries;
    }
}
