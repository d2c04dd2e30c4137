package io.github.idworker.lease.jdbc;

import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import io.github.idworker.lease.jdbc.NamespaceRecords.Record;
import io.github.idworker.lease.jdbc.NamespaceRecords.Row;
import io.github.idworker.lease.jdbc.NamespaceRecords.Snapshot;

import org.jspecify.annotations.Nullable;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Claims one slot of a namespace whose record and rows are whole, for {@link JdbcSequenceManager#borrow}. It
 * guarantees that a claim succeeds for one borrower only, each with one conditional statement or one transaction
 * judged by the database's clock, and that the first high-water of a claimed slot lies above the floor it
 * matched. Steps, in this order:
 * <ol>
 *   <li>Claimable rows whose high-water is below the borrower's clock, lowest slot first.</li>
 *   <li>A fresh slot id, while the namespace has created fewer than the slot count.</li>
 *   <li>The other claimable rows, by ascending high-water.</li>
 * </ol>
 * A lost race moves on to the next candidate; none left at all is {@link WorkerIdExhaustedException}.
 *
 * @param jdbc the runner of every statement
 * @param table the slot table
 * @param nsTable the namespace table
 */
record SlotClaims(JdbcRunner jdbc, String table, String nsTable) {

    /**
     * Claims a slot from {@code s}, whose record is {@code record}.
     *
     * @param guardMillis the effective loss guard of the namespace
     * @return the lease, or {@code null} when every claim lost a race (read again and retry)
     * @throws WorkerIdExhaustedException when no row is claimable and no fresh id is left
     */
    @Nullable WorkerLease claim(LeaseRequest request, Snapshot s, Record record, long guardMillis) {
        List<Row> past = new ArrayList<>();
        List<Row> future = new ArrayList<>();
        for (Row row : s.rows()) {
            if (row.claimable()) {
                (row.highWater() < request.workerNowMillis() ? past : future).add(row);
            }
        }
        boolean freshLeft = record.slotsCreated() < request.slotCount();
        if (past.isEmpty() && future.isEmpty() && !freshLeft) {
            throw new WorkerIdExhaustedException(request.namespace(), request.slotCount());
        }
        past.sort(Comparator.comparingInt(Row::slot));
        future.sort(Comparator.comparingLong(Row::highWater).thenComparingInt(Row::slot));
        WorkerLease lease = claimFirst(request, past);
        if (lease == null && freshLeft) {
            lease = claimFresh(request, freshFloor(record, guardMillis));
        }
        if (lease == null) {
            lease = claimFirst(request, future);
        }
        return lease;
    }

    private @Nullable WorkerLease claimFirst(LeaseRequest r, List<Row> rows) {
        for (Row row : rows) {
            WorkerLease lease = claimRow(r, row);
            if (lease != null) {
                return lease;
            }
        }
        return null;
    }

    /**
     * One conditional {@code UPDATE}: one row updated means it is ours, and the high-water it matched is the
     * floor. The first high-water is stored in the same statement.
     */
    private @Nullable WorkerLease claimRow(LeaseRequest r, Row row) {
        long highWater = r.firstHighWater(row.highWater());
        String now = jdbc.dialect().nowMillis();
        String sql = "UPDATE " + table + " SET owner_token = ?, expires_at = " + now + " + ?, high_water = ?,"
                + " host_name = ?, pid = ?, started_at = ? WHERE ns = ? AND slot_id = ? AND high_water = ?"
                + " AND (owner_token IS NULL OR expires_at < " + now + ")";
        int updated = jdbc.run("claim worker id " + row.slot(), s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setString(1, r.owner());
                ps.setLong(2, r.ttl().toMillis());
                ps.setLong(3, highWater);
                ps.setString(4, truncate(r.host(), 255));
                ps.setLong(5, r.pid());
                ps.setLong(6, r.workerNowMillis());
                ps.setString(7, r.namespace());
                ps.setInt(8, row.slot());
                ps.setLong(9, row.highWater());
                return ps.executeUpdate();
            }
        });
        return updated == 1 ? WorkerLease.of(r, row.slot(), row.highWater(), highWater, "") : null;
    }

    /** What the transaction claiming a fresh slot id found. */
    private record Fresh(int slot, boolean claimed) {
        static final Fresh NONE_LEFT = new Fresh(-1, false);
    }

    /**
     * The floor of a fresh slot id: the record may have been written after the namespace was lost whole while a
     * worker held a slot, so a fresh id starts above anything such a holder can have stored: its renewals stored
     * at most its clock + ttl, within max-skew of the database clock before this record was written. (The same
     * bound, by the centre's clock in whole milliseconds, as every loss floor of every centre.)
     */
    private static long freshFloor(Record record, long guardMillis) {
        return record.createdMillis() + guardMillis;
    }

    /**
     * One transaction: count the id in the record (its row lock queues concurrent claimers), read the count back,
     * and insert the row of the new id, so no reader ever sees the count without the row. A duplicate key means a
     * row exists at that id already (an older idworker's, or one written by hand): roll back and count the id as
     * created, so the next claim moves past it.
     */
    private @Nullable WorkerLease claimFresh(LeaseRequest r, long floor) {
        long highWater = r.firstHighWater(floor);
        String count = "UPDATE " + nsTable + " SET slots_created = slots_created + 1 WHERE ns = ? AND slots_created < ?";
        String readCount = "SELECT slots_created FROM " + nsTable + " WHERE ns = ?";
        String insert = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water, host_name, pid,"
                + " started_at) VALUES (?, ?, ?, " + jdbc.dialect().nowMillis() + " + ?, ?, ?, ?, ?)";
        Fresh fresh = jdbc.inTransaction("claim a new worker id", s -> {
            try (PreparedStatement ps = s.prepare(count)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, r.slotCount());
                if (ps.executeUpdate() != 1) {
                    return Fresh.NONE_LEFT;
                }
            }
            int slot;
            try (PreparedStatement ps = s.prepare(readCount)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    slot = rs.getInt(1) - 1;
                }
            }
            try (PreparedStatement ps = s.prepare(insert)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, slot);
                ps.setString(3, r.owner());
                ps.setLong(4, r.ttl().toMillis());
                ps.setLong(5, highWater);
                ps.setString(6, truncate(r.host(), 255));
                ps.setLong(7, r.pid());
                ps.setLong(8, r.workerNowMillis());
                ps.executeUpdate();
                return new Fresh(slot, true);
            } catch (SQLException e) {
                if (!JdbcRunner.isDuplicateKey(e)) {
                    throw e;
                }
                s.rollback();
                return new Fresh(slot, false);
            }
        });
        if (fresh.claimed()) {
            return WorkerLease.of(r, fresh.slot(), floor, highWater, "");
        }
        if (fresh.slot() >= 0) {
            countExistingRow(r.namespace(), fresh.slot());
        }
        return null;
    }

    /** Counts slot id {@code slot}, whose row exists already, as created, so fresh claims move past it. */
    private void countExistingRow(String ns, int slot) {
        String sql = "UPDATE " + nsTable + " SET slots_created = ? WHERE ns = ? AND slots_created = ?";
        jdbc.run("count worker id " + slot + " of namespace '" + ns + "'", s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setInt(1, slot + 1);
                ps.setString(2, ns);
                ps.setInt(3, slot);
                return ps.executeUpdate();
            }
        });
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
