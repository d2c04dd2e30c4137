package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.time.Duration;

/**
 * ZooKeeper centre, used with {@code @EnableIdWorker(mode = CenterMode.ZOOKEEPER)}. The application's
 * {@code CuratorFramework} bean is used when it has exactly one; otherwise idworker builds a client of its own
 * from the connection settings here and closes it with the context.
 * Bound to {@code idworker.zookeeper.*}.
 */
public class ZookeeperProperties {

    /**
     * Connection string of the ensemble, e.g. "zk1:2181,zk2:2181,zk3:2181"; needed only when the application
     * has no CuratorFramework bean.
     */
    private @Nullable String connectString;

    /**
     * Absolute znode path under which idworker keeps its namespaces; below the Curator namespace of the
     * application's client, if it has one.
     */
    private String basePath = "/idworker";

    /**
     * Session timeout idworker's own client asks for (the server keeps it between 2 and 20 ticks). A session
     * that ends frees its worker ids for others at once; it never lets a worker issue past its stored
     * high-water.
     */
    private Duration sessionTimeout = Duration.ofSeconds(15);

    /**
     * How long idworker's own client waits for a connection to the ensemble.
     */
    private Duration connectionTimeout = Duration.ofSeconds(5);

    /**
     * Longest time one lease call (borrow, renewal, return) may take, waiting for a connection included. Must
     * be shorter than idworker.lease.heartbeat-interval.
     */
    private Duration operationTimeout = Duration.ofSeconds(3);

    /** Retries of idworker's own client for Curator's operations; lease calls are bounded by operation-timeout. */
    @NestedConfigurationProperty
    private final ZookeeperRetryProperties retry = new ZookeeperRetryProperties();

    public @Nullable String getConnectString() {
        return this.connectString;
    }

    public void setConnectString(@Nullable String connectString) {
        this.connectString = connectString;
    }

    public String getBasePath() {
        return this.basePath;
    }

    public void setBasePath(String basePath) {
        this.basePath = basePath;
    }

    public Duration getSessionTimeout() {
        return this.sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return this.connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public Duration getOperationTimeout() {
        return this.operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public ZookeeperRetryProperties getRetry() {
        return this.retry;
    }
}
