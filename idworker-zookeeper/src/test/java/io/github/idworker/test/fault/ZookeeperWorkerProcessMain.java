package io.github.idworker.test.fault;

import io.github.idworker.lease.zookeeper.ZookeeperSequenceManager;
import io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

import java.time.Duration;
import java.util.Map;

/**
 * A worker process of the fault tests over the ZooKeeper centre: the same process as {@link WorkerProcessMain}
 * (same output lines, same commands), leasing from {@code url=<connect string>} under {@code base=<path>} with
 * a session of {@code sessionMs} and lease calls bounded by {@code operationMs}.
 */
public final class ZookeeperWorkerProcessMain {

    private ZookeeperWorkerProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = WorkerProcessMain.arguments(args);
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(a.get("url"))
                .sessionTimeoutMs(Integer.parseInt(a.getOrDefault("sessionMs", "3000")))
                .connectionTimeoutMs(2_000)
                .retryPolicy(new RetryNTimes(3, 100))
                .build();
        client.start();
        ZookeeperSequenceManager manager = new ZookeeperSequenceManager(client, a.getOrDefault("base", "/idworker"),
                Duration.ofMillis(Long.parseLong(a.getOrDefault("operationMs", "500"))));
        WorkerProcessMain.run(a, manager, client, ZookeeperIdWorker::new);
    }
}
