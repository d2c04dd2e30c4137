package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import java.util.Arrays;
import java.util.List;

/**
 * The modes of {@code @EnableIdWorker} as the starter wires them: the configuration each imports, the names of the
 * lease manager and worker beans it registers and the worker's type, all as strings (the bean names are compile-time
 * constants), so naming a mode loads no class of an optional library.
 */
enum WorkerMode {

    DB("DBIdWorkerConfig", DBIdWorkerConfig.SEQUENCE_MANAGER_BEAN, DBIdWorkerConfig.WORKER_BEAN,
            "io.github.idworker.snowflake.DBIdWorker", "JDBC"),
    REDIS("RedisIdWorkerConfig", RedisIdWorkerConfig.SEQUENCE_MANAGER_BEAN, RedisIdWorkerConfig.WORKER_BEAN,
            "io.github.idworker.snowflake.RedisIdWorker", "Redis"),
    ZOOKEEPER("ZookeeperIdWorkerConfig", ZookeeperIdWorkerConfig.SEQUENCE_MANAGER_BEAN,
            ZookeeperIdWorkerConfig.WORKER_BEAN, "io.github.idworker.snowflake.zookeeper.ZookeeperIdWorker", "ZooKeeper");

    private final String configuration;
    private final String managerBean;
    private final String workerBean;
    private final String workerType;
    private final String centre;

    WorkerMode(String configuration, String managerBean, String workerBean, String workerType, String centre) {
        this.configuration = IdWorkerPropertiesCheckAutoConfiguration.PACKAGE + configuration;
        this.managerBean = managerBean;
        this.workerBean = workerBean;
        this.workerType = workerType;
        this.centre = centre;
    }

    /** The modes whose configuration {@code beanFactory} holds, that is whose {@code @EnableIdWorker} is present. */
    static List<WorkerMode> enabledIn(ConfigurableListableBeanFactory beanFactory) {
        // an imported configuration's bean is named by its class name
        return Arrays.stream(values()).filter(m -> beanFactory.containsBeanDefinition(m.configuration)).toList();
    }

    /** {@code @EnableIdWorker(mode = CenterMode.DB)}. */
    String annotation() {
        return "@EnableIdWorker(mode = CenterMode." + name() + ")";
    }

    /** The bean the worker leases its worker id from; one of the application's with this name replaces the default. */
    String managerBean() {
        return managerBean;
    }

    String workerBean() {
        return workerBean;
    }

    /** The worker's class name. */
    String workerType() {
        return workerType;
    }

    /** The worker's simple class name, e.g. {@code DBIdWorker}. */
    String workerSimpleName() {
        return workerType.substring(workerType.lastIndexOf('.') + 1);
    }

    /** The kind of the default centre, e.g. {@code JDBC}. */
    String centre() {
        return centre;
    }
}
