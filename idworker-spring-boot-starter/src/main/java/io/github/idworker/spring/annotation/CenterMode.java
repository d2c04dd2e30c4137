package io.github.idworker.spring.annotation;

/**
 * The centre that leases worker ids to the snowflake worker {@link EnableIdWorker} registers.
 */
public enum CenterMode {

    /**
     * The application's {@code DataSource}: bean {@code dbSequenceManager} (a
     * {@link io.github.idworker.lease.jdbc.JdbcSequenceManager}) and worker bean {@code dbIdWorker}.
     */
    DB,

    /**
     * The application's Redis connection: bean {@code redisSequenceManager} (a
     * {@link io.github.idworker.lease.redis.RedisSequenceManager}) and worker bean {@code redisIdWorker}.
     */
    REDIS,

    /**
     * A ZooKeeper ensemble through Apache Curator (the application's {@code CuratorFramework} bean when it has
     * one, else a client built from {@code idworker.zookeeper.*}): bean {@code zookeeperSequenceManager} (a
     * {@code io.github.idworker.lease.zookeeper.ZookeeperSequenceManager}) and worker bean {@code zookeeperIdWorker}.
     * Needs {@code io.github.idworker:idworker-zookeeper} on the class path.
     */
    ZOOKEEPER
}
