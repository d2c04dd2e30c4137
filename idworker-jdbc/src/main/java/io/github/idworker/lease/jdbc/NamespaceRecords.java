package io.github.idworker.lease.jdbc;

import io.github.idworker.LayoutMismatchException;
import io.github.idworker.jdbc.JdbcRunner;
import io.github.idworker.lease.LeaseRequest;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The state of a namespace in the lease tables, as {@link JdbcSequenceManager} borrows from it: the namespace
 * record (pinned layout, loss guard, slots created) and the slot rows, read record first; the record created on
 * the first borrow; the layout and guard checked against it; and lost slot rows recreated free above anything
 * their last holders can have issued. It guarantees that a borrower claims nothing from a namespace whose layout
 * differs or whose rows are incomplete: each of these steps either throws or makes the caller read again.
 *
 * @param jdbc the runner of every statement
 * @param table the slot table
 * @param nsTable the namespace table
 */
record NamespaceRecords(JdbcRunner jdbc, String table, String nsTable) {

    /** The centre's logger: operators look for its warnings under the centre's name. */
    private static final Logger log = LoggerFactory.getLogger(JdbcSequenceManager.class);

    /** The namespace record as read; {@code createdMillis} by the database's clock when the record was written. */
    record Record(String layout, long guardMillis, int slotsCreated, long createdMillis) {
    }

    /**
     * A slot row as read; {@code claimable} by the database's clock; {@code neverClaimed} when no holder's start is
     * stored in it ({@code started_at} empty).
     */
    record Row(int slot, long highWater, boolean claimable, boolean neverClaimed) {

        /**
         * The floor a claim of this row gets: its stored high-water; at least {@code freshFloor}, the floor a fresh id
         * gets from the claimer ({@code created_at} + its guard), for a row never claimed whose high-water is a floor
         * written since the record was created ({@code >= createdMillis}): an id skipped below a preferred one, whose
         * floor came from the loss guard of the borrower that skipped it (which may have grown since), or a
         * repaired row. Rows adopted from before the record keep theirs. Raising a floor is always safe, and
         * costs at most the wait a fresh id has.
         */
        long floor(long createdMillis, long freshFloor) {
            return neverClaimed && highWater >= createdMillis ? Math.max(highWater, freshFloor) : highWater;
        }
    }

    /** The namespace record ({@code null} when missing) and the slot rows below the slot count. */
    record Snapshot(@Nullable Record record, List<Row> rows) {

        /** The slot ids below {@code slotsCreated} (and the slot count) that have no row: they were lost. */
        BitSet lost(Record record, int slotCount) {
            BitSet lost = new BitSet();
            lost.set(0, Math.min(record.slotsCreated(), slotCount));
            for (Row row : rows) {
                lost.clear(row.slot());
            }
            return lost;
        }
    }

    /**
     * Reads the namespace record, then the slot rows. The record first: a slot id counted in it has its row
     * committed with it, so the later read sees the row unless it was really lost.
     */
    Snapshot read(LeaseRequest r) {
        String recordSql = "SELECT layout, guard_ms, slots_created, created_at FROM " + nsTable + " WHERE ns = ?";
        String rowsSql = "SELECT slot_id, high_water, CASE WHEN owner_token IS NULL OR expires_at < "
                + jdbc.dialect().nowMillis() + " THEN 1 ELSE 0 END, CASE WHEN started_at IS NULL THEN 1 ELSE 0 END"
                + " FROM " + table + " WHERE ns = ?";
        return jdbc.run("read worker ids", s -> {
            Record record = null;
            try (PreparedStatement ps = s.prepare(recordSql)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        record = new Record(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getLong(4));
                    }
                }
            }
            List<Row> rows = new ArrayList<>();
            try (PreparedStatement ps = s.prepare(rowsSql)) {
                ps.setString(1, r.namespace());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int slot = rs.getInt(1);
                        if (slot >= 0 && slot < r.slotCount()) {
                            rows.add(new Row(slot, rs.getLong(2), rs.getInt(3) == 1, rs.getInt(4) == 1));
                        }
                    }
                }
            }
            return new Snapshot(record, rows);
        });
    }

    /**
     * Inserts the namespace record with the request's layout and guard: {@code slots_created = 0} when the
     * namespace has no slot rows, else the slot count (every slot id without a row then counts as lost). A
     * duplicate key means a concurrent creator won; either way the caller reads again.
     */
    void create(LeaseRequest r, boolean rowsSurvive) {
        int slotsCreated = rowsSurvive ? r.slotCount() : 0;
        String sql = "INSERT INTO " + nsTable + " (ns, layout, guard_ms, slots_created, created_at) VALUES (?, ?, ?, ?, "
                + jdbc.dialect().nowMillis() + ")";
        String what = "create the record of namespace '" + r.namespace() + "'";
        boolean created = jdbc.insertUnlessPresent(what, sql, ps -> {
            ps.setString(1, r.namespace());
            ps.setString(2, r.layout());
            ps.setLong(3, r.lossGuardMillis());
            ps.setInt(4, slotsCreated);
        });
        if (created && rowsSurvive) {
            log.warn("Namespace '{}' had worker-id rows in table {} but no record in {} (deleted, or written by an "
                    + "idworker without namespace records): pinned layout [{}] and treating every worker id without a "
                    + "row as lost", r.namespace(), table, nsTable, r.layout());
        }
    }

    /**
     * Checks the request against the record: a layout other than the pinned one throws
     * {@link LayoutMismatchException}, a guard below the stored one is refused, and a larger one is stored.
     *
     * @return the effective loss guard: the larger of the stored and the requested one
     */
    long checkLayoutAndGuard(Record record, LeaseRequest r) {
        if (!record.layout().equals(r.layout())) {
            throw new LayoutMismatchException(r.namespace(), record.layout(), r.layout());
        }
        r.refuseIfBelow(record.guardMillis());
        if (r.lossGuardMillis() > record.guardMillis()) {
            raiseGuard(r);
        }
        return Math.max(record.guardMillis(), r.lossGuardMillis());
    }

    private void raiseGuard(LeaseRequest r) {
        String sql = "UPDATE " + nsTable + " SET guard_ms = GREATEST(guard_ms, ?) WHERE ns = ?";
        jdbc.run("raise the loss guard of namespace '" + r.namespace() + "'", s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setLong(1, r.lossGuardMillis());
                ps.setString(2, r.namespace());
                return ps.executeUpdate();
            }
        });
    }

    /** Recreates lost rows free, with a floor above anything their last holders can have issued. */
    void repair(String ns, BitSet lost, long guardMillis) {
        long floor = centreNowMillis() + guardMillis;
        String sql = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water) VALUES (?, ?, NULL, 0, ?)";
        BitSet repaired = new BitSet();
        for (int slot = lost.nextSetBit(0); slot >= 0; slot = lost.nextSetBit(slot + 1)) {
            int id = slot;
            if (jdbc.insertUnlessPresent("recreate lost worker id " + id + " of namespace '" + ns + "'", sql, ps -> {
                ps.setString(1, ns);
                ps.setInt(2, id);
                ps.setLong(3, floor);
            })) {
                repaired.set(id);
            }
        }
        if (!repaired.isEmpty()) {
            log.warn("Worker ids {} of namespace '{}' had no row in table {} though they were used before (deleted, or "
                    + "lost with the database): recreated them free with high-water {} (centre clock + {} ms of ttl "
                    + "and max-skew), above anything their last holders can have issued", repaired, ns, table, floor,
                    guardMillis);
        }
    }

    /** The database's clock in milliseconds. */
    long centreNowMillis() {
        String sql = "SELECT " + jdbc.dialect().nowMillis();
        return jdbc.run("read the database clock", s -> {
            try (PreparedStatement ps = s.prepare(sql); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
