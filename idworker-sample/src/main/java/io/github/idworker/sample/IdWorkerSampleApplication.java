package io.github.idworker.sample;

import io.github.idworker.spring.annotation.CenterMode;
import io.github.idworker.spring.annotation.EnableIdPools;
import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import io.github.idworker.spring.annotation.EnableSerialNumbers;
import io.github.idworker.spring.annotation.SerialMode;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * A small ID service on idworker. {@code mvn -pl idworker-sample spring-boot:run} starts it with an embedded
 * Redis and an in-memory H2 on port 8080; then {@code curl 'localhost:8080/ids/next?count=3'},
 * {@code curl localhost:8080/ids/decode/<id>}, {@code curl 'localhost:8080/ids/segment/order?count=3'},
 * {@code curl 'localhost:8080/ids/sequence/ticket?count=3'} and {@code curl 'localhost:8080/serials/order?count=3'}
 * (rules {@code order} and {@code invoice} are configured in {@code application.yml}); signed calls of
 * {@code GET /pools/user/ids?count=3} by the application {@code demo}, whose secret the first start prints once
 * (see {@link PoolController} and the README's ID service section).
 *
 * <ul>
 *   <li>default profile: {@code @EnableIdWorker(mode = CenterMode.REDIS)}, the {@code redisIdWorker} leasing its
 *       worker id from Redis; {@code @EnableSegmentIdGenerators(redisSequences = true)}, segments in process and
 *       strictly ordered sequences in Redis, both from the segment table in H2; {@code @EnableSerialNumbers},
 *       strict serial numbers from one stock in Redis above high-waters in H2;</li>
 *   <li>profile {@code db}: {@code @EnableIdWorker(mode = CenterMode.DB)}, the {@code dbIdWorker} leasing from
 *       the database through {@link MyBatisSequenceManager}, this application's own {@code dbSequenceManager};
 *       {@code @EnableSegmentIdGenerators}, in-process segments only (no Redis, so {@code /ids/sequence} answers
 *       503); {@code @EnableSerialNumbers(mode = SerialMode.LOCAL)}, serial numbers in process over the
 *       database, unique and increasing per instance;</li>
 *   <li>profile {@code zookeeper}: {@code @EnableIdWorker(mode = CenterMode.ZOOKEEPER)}, the
 *       {@code zookeeperIdWorker} leasing from the ensemble of {@code idworker.zookeeper.connect-string}, or from a
 *       ZooKeeper server started in this JVM when none is given ({@link EmbeddedZookeeperInitializer}); segments,
 *       sequences, serials and pools as in the default profile, embedded Redis included;</li>
 *   <li>profile {@code external}: nothing embedded is started; {@code spring.data.redis.*} and
 *       {@code spring.datasource.*} point at real servers that every instance shares. {@code spring.datasource.url}
 *       is required ({@link ExternalDatabaseCheck}): there is no fallback to an in-memory database.</li>
 * </ul>
 */
@SpringBootApplication
public class IdWorkerSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(IdWorkerSampleApplication.class, args);
    }

    /**
     * The Redis centre, the Redis sequences, strict serial numbers and the ID pools (served to signed
     * applications by {@link PoolController}) unless profile {@code db} is active. The annotations sit here
     * rather than on the application class because a profile on the application class would switch off the
     * whole application.
     */
    @Configuration(proxyBeanMethods = false)
    @Profile("!db")
    @EnableSegmentIdGenerators(redisSequences = true)
    @EnableSerialNumbers
    @EnableIdPools
    static class RedisCentre {
    }

    /** The worker's lease from Redis, unless profile {@code db} or {@code zookeeper} picks another centre. */
    @Configuration(proxyBeanMethods = false)
    @Profile("!db & !zookeeper")
    @EnableIdWorker(mode = CenterMode.REDIS)
    static class RedisWorker {
    }

    /**
     * The worker's lease from ZooKeeper with profile {@code zookeeper}: the ensemble of
     * {@code idworker.zookeeper.connect-string}, or, when it is not set, a ZooKeeper server the
     * {@link EmbeddedZookeeperInitializer} starts in this JVM. Everything else stays as in the default profile.
     */
    @Configuration(proxyBeanMethods = false)
    @Profile("zookeeper & !db")
    @EnableIdWorker(mode = CenterMode.ZOOKEEPER)
    static class ZookeeperWorker {
    }

    /**
     * The database centre with profile {@code db}; see {@link MyBatisSequenceManagerConfig}. Segments in process
     * only: without Redis there are no strictly ordered sequences. Serial numbers in process too
     * ({@link SerialMode#LOCAL}), the mode meant for applications without Redis: {@code /serials} keeps working,
     * unique across instances, increasing per instance, rather than answering 503 as {@code /ids/sequence} does.
     */
    @Configuration(proxyBeanMethods = false)
    @Profile("db")
    @EnableIdWorker(mode = CenterMode.DB)
    @EnableSegmentIdGenerators
    @EnableSerialNumbers(mode = SerialMode.LOCAL)
    static class DbCentre {
    }
}
