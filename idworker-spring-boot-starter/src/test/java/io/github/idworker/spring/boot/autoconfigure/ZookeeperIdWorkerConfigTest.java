package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.SnowflakeLayout;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;
import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdWorker;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @EnableIdWorker(mode = CenterMode.ZOOKEEPER)} over a real ZooKeeper server in this JVM (Curator's
 * TestingServer), each test under a base path of its own, deleted afterwards. A short ttl keeps the first
 * borrow of each fresh namespace, which waits the loss guard by design, short.
 *
 * <p>The operation timeout bounds idworker's own client's first connect too, made while the context starts. It is
 * 900 ms, not less: a new client's connect on a 2-core machine under a full build took longer than 200 ms and failed
 * the startup. It must stay below the heartbeat interval, at most half the ttl: hence a ttl of 2 s with a heartbeat of
 * 1 s, and a loss guard of ttl + max-skew. The server's and the client code's cold start, which took longer than
 * 900 ms in a fresh JVM under load, is paid once before the tests ({@link #warmUp()}).
 */
class ZookeeperIdWorkerConfigTest {

    private final String basePath = EmbeddedZookeeper.basePath();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("idworker.lease.ttl=2s", "idworker.lease.heartbeat-interval=1s",
                    "idworker.lease.max-skew=50ms", "idworker.lease.loss-guard=2050ms",
                    "idworker.zookeeper.operation-timeout=900ms", "idworker.zookeeper.base-path=" + basePath);

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class ZookeeperApp {
    }

    private ApplicationContextRunner zookeeper(String namespace) {
        return runner.withUserConfiguration(ZookeeperApp.class).withPropertyValues(
                "idworker.zookeeper.connect-string=" + EmbeddedZookeeper.connectString(),
                "idworker.namespace=" + namespace);
    }

    /**
     * One borrow and return against the embedded server with a generous timeout: the first one in a fresh JVM (the
     * server just started, the ZooKeeper client code not yet loaded) took longer than the contexts' operation timeout
     * on a loaded 2-core machine. A manager alone waits no loss guard; its base path is deleted again.
     */
    @BeforeAll
    static void warmUp() throws Exception {
        String path = EmbeddedZookeeper.basePath();
        try (CuratorFramework client = client()) {
            ZookeeperSequenceManager manager = new ZookeeperSequenceManager(client, path, Duration.ofSeconds(30));
            LeaseRequest request = new LeaseRequest(TestNames.namespace(), 4, UUID.randomUUID().toString(),
                    Duration.ofSeconds(2), System.currentTimeMillis(), Duration.ofMillis(50), "test-host", 1,
                    SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 41, 2, 12).pinned());
            manager.giveBack(manager.borrow(request), System.currentTimeMillis());
            client.delete().deletingChildrenIfNeeded().forPath(path);
        }
    }

    @AfterEach
    void deleteBasePath() throws Exception {
        try (CuratorFramework client = client()) {
            if (client.checkExists().forPath(basePath) != null) {
                client.delete().deletingChildrenIfNeeded().forPath(basePath);
            }
        }
    }

    private static CuratorFramework client() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(EmbeddedZookeeper.connectString(), 10_000, 5_000,
                new RetryNTimes(3, 100));
        client.start();
        assertThat(client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Test
    void defaultsRegisterAZookeeperManagerAndAStartedZookeeperIdWorker() {
        String namespace = TestNames.namespace();
        zookeeper(namespace).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(ZookeeperIdWorker.class);
            assertThat(context.getBean("zookeeperIdWorker")).isInstanceOf(ZookeeperIdWorker.class);
            ZookeeperSequenceManager manager = context.getBean("zookeeperSequenceManager", ZookeeperSequenceManager.class);
            assertThat(manager.basePath()).isEqualTo(basePath);
            assertThat(manager.operationTimeout()).isEqualTo(Duration.ofMillis(900));
            assertThat(context).doesNotHaveBean("dbIdWorker").doesNotHaveBean("redisIdWorker");
            // idworker's own client is no CuratorFramework bean: it cannot clash with the application's
            assertThat(context).doesNotHaveBean(CuratorFramework.class);

            ZookeeperIdWorker worker = context.getBean(ZookeeperIdWorker.class);
            assertThat(worker.namespace()).isEqualTo(namespace);
            long[] ids = worker.nextIds(5000);
            assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(5000);
            assertThat(ids).isSorted();
            assertThat(worker.decode(ids[4999]).workerId()).isEqualTo(worker.currentLease().workerId());

            long before = worker.currentLease().highWaterMillis();
            Thread.sleep(20);
            worker.renew();
            assertThat(worker.currentLease().highWaterMillis()).isGreaterThan(before);
            try (CuratorFramework client = client()) {
                String record = new String(client.getData().forPath(
                        manager.slotPath(namespace, worker.currentLease().workerId())), StandardCharsets.UTF_8);
                assertThat(record).contains("owner=" + worker.currentLease().owner());
            }
        });
    }

    @Test
    void closingTheContextReturnsTheLeaseAndClosesIdworkersOwnClient() throws Exception {
        String namespace = TestNames.namespace();
        ApplicationContextRunner oneSlot = zookeeper(namespace).withPropertyValues("idworker.snowflake.worker-bits=1");
        long[] last = new long[2];
        CuratorFramework[] own = new CuratorFramework[1];
        oneSlot.run(context -> {
            assertThat(context).hasNotFailed();
            AbstractIdWorker worker = context.getBean(ZookeeperIdWorker.class);
            own[0] = context.getBean(ZookeeperSequenceManager.class).client();
            last[0] = worker.nextIds(10)[9];
            last[1] = worker.decode(last[0]).timestamp().toEpochMilli();
            context.close();
            assertThat(worker.currentLease()).isNull();
        });
        assertThat(own[0].getState().name()).isEqualTo("STOPPED");
        try (CuratorFramework client = client()) {
            ZookeeperSequenceManager paths = new ZookeeperSequenceManager(client, basePath, Duration.ofSeconds(5));
            String record = new String(client.getData().forPath(paths.slotPath(namespace, 0)), StandardCharsets.UTF_8);
            assertThat(record).contains("owner=\n").contains("hw=" + last[1] + "\n");
            assertThat(client.checkExists().forPath(paths.livePath(namespace, 0))).isNull();
        }
        oneSlot.run(context -> {
            assertThat(context).hasNotFailed();
            ZookeeperIdWorker second = context.getBean(ZookeeperIdWorker.class);
            assertThat(second.currentLease().workerId()).isZero();
            assertThat(second.nextId()).isGreaterThan(last[0]);
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class AppWithItsOwnClient {

        @Bean(destroyMethod = "close")
        CuratorFramework applicationCurator() throws InterruptedException {
            return client();
        }
    }

    @Test
    void theApplicationsCuratorFrameworkIsReusedAndLeftOpen() {
        CuratorFramework[] used = new CuratorFramework[1];
        // no connect string: the application's client is all it needs
        runner.withUserConfiguration(AppWithItsOwnClient.class)
                .withPropertyValues("idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    used[0] = context.getBean(CuratorFramework.class);
                    assertThat(context.getBean(ZookeeperSequenceManager.class).client()).isSameAs(used[0]);
                    assertThat(context.getBean(ZookeeperIdWorker.class).nextId()).isPositive();
                    context.getBean(ZookeeperIdWorker.class).close();
                    assertThat(used[0].getState().name()).as("idworker never closes the application's client")
                            .isEqualTo("STARTED");
                });
    }

    private static final String DIGEST = "idworker-starter-test:acl-secret";

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class AppWithCreatorOnlyAcls {

        @Bean(destroyMethod = "close")
        CuratorFramework authenticatedCurator() throws InterruptedException {
            CuratorFramework client = CuratorFrameworkFactory.builder()
                    .connectString(EmbeddedZookeeper.connectString())
                    .retryPolicy(new RetryNTimes(3, 100))
                    .authorization("digest", DIGEST.getBytes(StandardCharsets.UTF_8))
                    .build();
            client.start();
            assertThat(client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            return client;
        }

        @Bean
        ACLProvider creatorOnly() {
            return ZookeeperSequenceManager.sameAclEverywhere(ZooDefs.Ids.CREATOR_ALL_ACL);
        }
    }

    @Test
    void theApplicationsAclProviderGivesTheAclsOfTheZnodes() {
        String namespace = TestNames.namespace();
        runner.withUserConfiguration(AppWithCreatorOnlyAcls.class)
                .withPropertyValues("idworker.namespace=" + namespace)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ZookeeperIdWorker worker = context.getBean(ZookeeperIdWorker.class);
                    assertThat(worker.nextId()).isPositive();
                    ZookeeperSequenceManager manager = context.getBean(ZookeeperSequenceManager.class);
                    String slot = manager.slotPath(namespace, worker.currentLease().workerId());
                    CuratorFramework authenticated = context.getBean(CuratorFramework.class);
                    try {
                        List<ACL> acls = authenticated.getACL().forPath(slot);
                        assertThat(acls).hasSize(1);
                        assertThat(acls.get(0).getId().getScheme()).isEqualTo("digest");
                        assertThat(acls.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
                        try (CuratorFramework anonymous = client()) {
                            assertThatThrownBy(() -> anonymous.getData().forPath(slot))
                                    .isInstanceOf(KeeperException.NoAuthException.class);
                        }
                    } finally {
                        // only the creator may delete what it created; the shared clean-up is anonymous
                        worker.close();
                        authenticated.delete().deletingChildrenIfNeeded().forPath(basePath);
                    }
                });
    }

    /** A real ZooKeeper centre that records what the worker asks of it. */
    static class RecordingZookeeperSequenceManager extends ZookeeperSequenceManager {

        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingZookeeperSequenceManager(CuratorFramework client, String basePath) {
            super(client, basePath, Duration.ofSeconds(2));
        }

        @Override
        public WorkerLease borrow(LeaseRequest request) {
            calls.add("borrow");
            return super.borrow(request);
        }

        @Override
        public void giveBack(WorkerLease lease, long lastIssuedMillis) {
            calls.add("giveBack");
            super.giveBack(lease, lastIssuedMillis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class CustomManagerApp {

        @Bean(destroyMethod = "close")
        static CuratorFramework applicationCurator() throws InterruptedException {
            return client();
        }

        @Bean
        static RecordingZookeeperSequenceManager zookeeperSequenceManager(CuratorFramework client,
                                                                           org.springframework.core.env.Environment env) {
            return new RecordingZookeeperSequenceManager(client, env.getProperty("idworker.zookeeper.base-path") + "-custom");
        }
    }

    @Test
    void aUserBeanNamedZookeeperSequenceManagerReplacesTheDefault() {
        RecordingZookeeperSequenceManager[] used = new RecordingZookeeperSequenceManager[1];
        runner.withUserConfiguration(CustomManagerApp.class)
                .withPropertyValues("idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(ZookeeperSequenceManager.class);
                    used[0] = context.getBean(RecordingZookeeperSequenceManager.class);
                    assertThat(context.getBean("zookeeperSequenceManager")).isSameAs(used[0]);
                    assertThat(context.getBean(ZookeeperIdWorker.class).nextId()).isPositive();
                    assertThat(used[0].basePath()).isEqualTo(basePath + "-custom");
                });
        assertThat(used[0].calls).containsExactly("borrow", "giveBack");
        try (CuratorFramework client = client()) {
            client.delete().deletingChildrenIfNeeded().forPath(basePath + "-custom");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void withoutAConnectStringOrAClientStartupFailsNamingTheProperty() {
        runner.withUserConfiguration(ZookeeperApp.class)
                .withPropertyValues("idworker.namespace=" + TestNames.namespace())
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.zookeeper.connect-string");
                    assertThat(cause.getMessage()).contains("CuratorFramework").contains("zookeeperSequenceManager");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("idworker.zookeeper.connect-string");
                });
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "idworker.zookeeper.base-path|idworker          |idworker.zookeeper.base-path     |absolute znode path",
            "idworker.zookeeper.base-path|/idworker/        |idworker.zookeeper.base-path     |absolute znode path",
            "idworker.zookeeper.base-path|/                 |idworker.zookeeper.base-path     |root",
            "idworker.zookeeper.operation-timeout|5s        |idworker.zookeeper.operation-timeout|shorter than idworker.lease.heartbeat-interval",
            "idworker.zookeeper.operation-timeout|0s        |idworker.zookeeper.operation-timeout|positive duration",
            "idworker.zookeeper.session-timeout|-1s         |idworker.zookeeper.session-timeout|positive duration",
            "idworker.zookeeper.connection-timeout|0ms      |idworker.zookeeper.connection-timeout|positive duration",
            "idworker.zookeeper.session-timeout|500us       |idworker.zookeeper.session-timeout|positive duration",
            "idworker.zookeeper.retry.max-retries|-1        |idworker.zookeeper.retry.max-retries|0 to 29",
            "idworker.zookeeper.retry.base-sleep|0ms        |idworker.zookeeper.retry.base-sleep|positive duration"})
    void badSettingsFailTheStartupNamingThePropertyAndWhatIsAllowed(String property, String value, String named,
                                                                  String allowed) {
        zookeeper(TestNames.namespace()).withPropertyValues(property + "=" + value.strip()).run(context -> {
            assertThat(context).hasFailed();
            IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                    IdWorkerConfigurationException.class);
            assertThat(cause.getProperty()).isEqualTo(named.strip());
            assertThat(cause.getMessage()).contains(allowed.strip());
        });
    }

    /**
     * A named generator renews through the same manager, so its heartbeat must outlast one ZooKeeper operation as the
     * default worker's must: a generator whose own heartbeat (900 ms, the operation timeout's) leaves no time to give
     * up a hung renewal fails the startup naming the generator's key, while the default worker (1 s) alone passes.
     */
    @Test
    void aNamedGeneratorsHeartbeatNotLongerThanTheOperationTimeoutFailsTheStartupNamingItsKey() {
        zookeeper(TestNames.namespace()).withPropertyValues("idworker.generators.orders.namespace="
                        + TestNames.namespace(), "idworker.generators.orders.lease.heartbeat-interval=900ms")
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getProperty()).isEqualTo("idworker.zookeeper.operation-timeout");
                    assertThat(cause.getMessage())
                            .contains("shorter than idworker.generators.orders.lease.heartbeat-interval (PT0.9S")
                            .contains("a third of idworker.generators.orders.lease.ttl");
                });
    }

    @Test
    void zookeeperModeWithoutCuratorOnTheClassPathFailsNamingTheDependency() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.apache.curator"))
                .withUserConfiguration(ZookeeperApp.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IdWorkerConfigurationException cause = StartupFailures.cause(context.getStartupFailure(),
                            IdWorkerConfigurationException.class);
                    assertThat(cause.getMessage()).contains("io.github.idworker:idworker-zookeeper")
                            .contains("CenterMode.ZOOKEEPER");
                    assertThat(StartupFailures.analysis(context.getStartupFailure()).getAction())
                            .contains("CenterMode");
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class DbApp {
    }

    @Test
    void theOtherModesNeedNeitherCuratorNorTheZookeeperModule() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("org.apache.curator", "org.apache.zookeeper",
                        "io.github.idworker.lease.zookeeper", "io.github.idworker.snowflake.zookeeper"))
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(DbApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.namespace=" + TestNames.namespace(), "idworker.zookeeper.connect-string=ignored:2181")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DBIdWorker.class).nextId()).isPositive();
                    assertThat(context).doesNotHaveBean("zookeeperIdWorker");
                });
    }
}
