package io.github.idworker.spring.boot.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.time.Duration;

/**
 * The Curator client idworker builds for itself when the application has none: started when built (connecting in
 * the background; the lease calls wait for it within their operation timeout) and closed with the context. Kept
 * behind this type rather than exposed as a {@link CuratorFramework} bean, so the application's own
 * {@code CuratorFramework} injection points never see it.
 */
final class IdWorkerZookeeperClient implements AutoCloseable {

    private final CuratorFramework client;

    IdWorkerZookeeperClient(String connectString, Duration sessionTimeout, Duration connectionTimeout,
                            Duration retryBaseSleep, int maxRetries) {
        this.client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) connectionTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry((int) retryBaseSleep.toMillis(), maxRetries))
                .build();
        this.client.start();
    }

    CuratorFramework client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
    }
}
