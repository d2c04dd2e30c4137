package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.lease.jdbc.JdbcSequenceManager;
import io.github.idworker.pool.jdbc.JdbcPoolStore;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import io.github.idworker.serial.jdbc.JdbcSerialStore;
import io.github.idworker.service.jdbc.JdbcAppStore;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import javax.sql.DataSource;
import java.util.function.Consumer;

/**
 * The DDL files idworker-core ships, one per store, and the store's own check that the tables a file created
 * are the ones it uses. A file is run the way {@code spring.sql.init} runs a script (Spring's
 * {@link ResourceDatabasePopulator}), as it is: nothing is substituted.
 */
enum ShippedSchemas {

    LEASE("lease/jdbc", ds -> new JdbcSequenceManager(ds).verifySchema()),
    SEGMENT("segment/jdbc", ds -> new JdbcSegmentAllocator(ds).verifySchema()),
    SERIAL("serial/jdbc", ds -> new JdbcSerialStore(ds).verifySchema()),
    POOL("pool/jdbc", ds -> new JdbcPoolStore(ds).verifySchema()),
    APP("service/jdbc", ds -> new JdbcAppStore(ds).verifySchema());

    private final String folder;
    private final Consumer<DataSource> verify;

    ShippedSchemas(String folder, Consumer<DataSource> verify) {
        this.folder = folder;
        this.verify = verify;
    }

    /** The class-path location of the file for {@code database} (h2, mysql or postgresql). */
    String location(String database) {
        return "io/github/idworker/" + folder + "/schema-" + database + ".sql";
    }

    /** Runs the file twice, as a restart with {@code spring.sql.init.mode=always} would, then checks the tables. */
    void runTwiceAndVerify(DataSource dataSource, String database) {
        ResourceDatabasePopulator populator = new ResourceDatabasePopulator(new ClassPathResource(location(database)));
        populator.setContinueOnError(false);
        populator.execute(dataSource);
        populator.execute(dataSource);
        verify.accept(dataSource);
    }
}
