package io.github.idworker.benchmarks;

import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import org.h2.jdbcx.JdbcDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The segment table the segment benchmarks allocate from: {@code idworker_segment} in an in-memory H2 database,
 * through a real {@link JdbcSegmentAllocator}, so a refill is the same transaction as in production minus the
 * network hop. Every benchmark uses a tag of its own and deletes its row when the trial ends.
 */
final class SegmentTables {

    /** One database per benchmark JVM. */
    static final String URL = "jdbc:h2:mem:segment-bench;DB_CLOSE_DELAY=-1";

    private static final JdbcDataSource DATA_SOURCE = dataSource();

    private SegmentTables() {
    }

    private static JdbcDataSource dataSource() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(URL);
        return dataSource;
    }

    /** An allocator over the table, created if needed, that refuses unknown tags. */
    static JdbcSegmentAllocator allocator() {
        JdbcSegmentAllocator allocator = new JdbcSegmentAllocator(DATA_SOURCE, JdbcSegmentAllocator.DEFAULT_TABLE, false);
        allocator.createSchemaIfMissing();
        return allocator;
    }

    /** Registers a fresh random tag, numbering from 1. */
    static String newTag(JdbcSegmentAllocator allocator, String prefix) {
        String tag = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        allocator.register(tag, 0, 1000, "benchmark, deleted at the end of the trial");
        return tag;
    }

    /** Registers a fresh random tag, numbering from 1, with any allocator (without the row's description). */
    static String newTag(SegmentAllocator allocator, String prefix) {
        String tag = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
        allocator.register(tag, 0, 1000);
        return tag;
    }

    /** Deletes the tag's row. */
    static void deleteTag(String tag) {
        try (Connection c = DATA_SOURCE.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM " + JdbcSegmentAllocator.DEFAULT_TABLE
                     + " WHERE biz_tag = ?")) {
            ps.setString(1, tag);
            ps.executeUpdate();
        } catch (SQLException e) {
            System.out.println("WARNING: could not delete segment tag " + tag + ": " + e);
        }
    }
}
