package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.DefaultACLProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;

import java.time.Duration;

/**
 * The beans of {@code @EnableIdWorker(mode = CenterMode.ZOOKEEPER)}: a {@link ZookeeperSequenceManager} named
 * {@code zookeeperSequenceManager} (backs off when the application declares a bean of that name) and the
 * {@link ZookeeperIdWorker} named {@code zookeeperIdWorker} that leases its worker id from whichever bean carries
 * that name. The manager talks through the application's {@link CuratorFramework} when it has exactly one (it is
 * the application's to start and close); otherwise through a client of idworker's own, built from
 * {@code idworker.zookeeper.*} only then, started at once and closed with the context. The znodes it creates get
 * the ACLs of the application's {@link ACLProvider} bean when it has exactly one (Curator does not expose the one a
 * client was built with), otherwise Curator's default (open); authentication is the client's.
 *
 * <p>Steps at startup: bind {@code idworker.*}; check the ZooKeeper settings (each names its property when it is
 * wrong); build and validate the worker's options; borrow a worker id (the first borrow of a namespace new to the
 * ensemble waits {@code idworker.lease.loss-guard} by design). Steps at shutdown: return the worker id before the client
 * closes.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(IdWorkerProperties.class)
public class ZookeeperIdWorkerConfig {

    /** Name of the lease manager bean the worker uses; declare your own bean with this name to replace it. */
    public static final String SEQUENCE_MANAGER_BEAN = "zookeeperSequenceManager";

    /** Name of the worker bean. */
    public static final String WORKER_BEAN = "zookeeperIdWorker";

    /** Name of the client idworker builds when the application has no {@link CuratorFramework} of its own. */
    public static final String OWN_CLIENT_BEAN = "idworkerZookeeperClient";

    static final String PREFIX = "idworker.zookeeper.";

    @Bean(name = SEQUENCE_MANAGER_BEAN)
    @ConditionalOnMissingBean(name = SEQUENCE_MANAGER_BEAN)
    public ZookeeperSequenceManager zookeeperSequenceManager(ObjectProvider<CuratorFramework> applicationClients,
                                                             ObjectProvider<ACLProvider> aclProviders,
                                                             @Qualifier(OWN_CLIENT_BEAN) ObjectProvider<IdWorkerZookeeperClient> ownClient,
                                                             IdWorkerProperties properties, Environment environment) {
        ZookeeperProperties zookeeper = properties.getZookeeper();
        Duration operationTimeout = checkOperationTimeout(zookeeper.getOperationTimeout(),
                WorkerOptionsFactory.create(properties, environment).heartbeatInterval(), "idworker.lease.");
        CuratorFramework client = applicationClients.getIfUnique(() -> ownClient.getObject().client());
        return new ZookeeperSequenceManager(client, zookeeper.getBasePath(), operationTimeout,
                aclProviders.getIfUnique(DefaultACLProvider::new));
    }

    /**
     * Returns {@code operationTimeout} after checking it is a positive whole number of milliseconds and shorter than
     * the heartbeat of a worker whose lease keys start with {@code leasePrefix} ({@code idworker.lease.}, or a named
     * generator's), so a renewal that hangs is given up and retried before the lease runs out; fails naming
     * {@code idworker.zookeeper.operation-timeout} and the worker's heartbeat property otherwise.
     */
    static Duration checkOperationTimeout(Duration operationTimeout, Duration heartbeat, String leasePrefix) {
        positive(operationTimeout, "operation-timeout");
        if (operationTimeout.compareTo(heartbeat) >= 0) {
            throw new IdWorkerConfigurationException(ZookeeperSequenceManager.OPERATION_TIMEOUT_PROPERTY, "must be "
                    + "shorter than " + leasePrefix + "heartbeat-interval (" + heartbeat + "; a third of " + leasePrefix
                    + "ttl unless set), so a renewal that hangs is given up and retried before the lease runs out, was "
                    + operationTimeout);
        }
        return operationTimeout;
    }

    /** Built only when the manager asks for it, that is when the application has no CuratorFramework of its own. */
    @Bean(name = OWN_CLIENT_BEAN, destroyMethod = "close")
    @Lazy
    IdWorkerZookeeperClient idworkerZookeeperClient(IdWorkerProperties properties) {
        ZookeeperProperties zookeeper = properties.getZookeeper();
        String connectString = zookeeper.getConnectString();
        if (connectString == null || connectString.isBlank()) {
            throw new IdWorkerConfigurationException(PREFIX + "connect-string", "@EnableIdWorker(mode = "
                    + "CenterMode.ZOOKEEPER) needs the ensemble's connection string, e.g. zk1:2181,zk2:2181,zk3:2181, "
                    + "or a CuratorFramework bean of the application (exactly one, or one marked @Primary), or an "
                    + "ISequenceManager bean named " + SEQUENCE_MANAGER_BEAN);
        }
        ZookeeperRetryProperties retry = zookeeper.getRetry();
        if (retry.getMaxRetries() < 0 || retry.getMaxRetries() > 29) {
            throw new IdWorkerConfigurationException(PREFIX + "retry.max-retries", "must be 0 to 29, was "
                    + retry.getMaxRetries());
        }
        return new IdWorkerZookeeperClient(connectString.strip(),
                positive(zookeeper.getSessionTimeout(), "session-timeout"),
                positive(zookeeper.getConnectionTimeout(), "connection-timeout"),
                positive(retry.getBaseSleep(), "retry.base-sleep"), retry.getMaxRetries());
    }

    @Bean(name = WORKER_BEAN, initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean(name = WORKER_BEAN)
    public ZookeeperIdWorker zookeeperIdWorker(@Qualifier(SEQUENCE_MANAGER_BEAN) ISequenceManager sequenceManager,
                                               IdWorkerProperties properties, Environment environment) {
        return new ZookeeperIdWorker(sequenceManager, WorkerOptionsFactory.create(properties, environment));
    }

    /** Returns the lease of {@code zookeeperIdWorker} before the context's clients close. */
    @Bean
    ClosingLifecycle zookeeperIdWorkerLifecycle(@Qualifier(WORKER_BEAN) AbstractIdWorker worker) {
        return new ClosingLifecycle(worker);
    }

    private static Duration positive(Duration value, String property) {
        // ZooKeeper and Curator take whole milliseconds: 500us would become 0
        if (value == null || value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
            throw new IdWorkerConfigurationException(PREFIX + property, "must be a positive duration from 1 ms to "
                    + Integer.MAX_VALUE + " ms, such as 5s, was " + value);
        }
        return value;
    }
}
