package io.github.idworker.lease.jdbc;

import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.WorkerIdTakenException;
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
import java.util.function.ToLongFunction;

/**
 * Claims one slot of a namespace whose record and rows are whole, for {@link JdbcSequenceManager#borrow}. It
 * guarantees that a claim succeeds for one borrower only, each with one transaction judged by the database's clock,
 * and that the first high-water of a claimed slot lies above its floor (below), a floor taken from the namespace
 * record as it stands inside the claim's transaction. Steps, in this order:
 * <ol>
 *   <li>Claimable rows whose floor is below the borrower's clock, lowest slot first. A row's floor is its stored
 *       high-water; for a row never claimed whose high-water was written as a floor since the record exists (an id
 *       skipped below a preferred one), at least the fresh floor with the claimer's loss guard, as a fresh id
 *       would get ({@link Row#floor}).</li>
 *   <li>A fresh slot id, while the namespace has created fewer than the slot count.</li>
 *   <li>The other claimable rows, by ascending floor.</li>
 * </ol>
 * A lost race moves on to the next candidate; none left at all is {@link WorkerIdExhaustedException}.
 *
 * <p>Every floor comes from the record the round read ({@code created_at} + guard), and the namespace may have been
 * lost whole (record and rows deleted) and recreated by another borrower since: its new record is newer, so a floor
 * from the old one may lie below what a holder of the lost generation still issues. So each claim's transaction
 * first checks, under the record's row lock, that the record still has the {@code created_at} read (the identity
 * of a record: a recreated one gets the clock of its insert): a fresh claim's count {@code UPDATE} matches it in
 * its {@code WHERE}, a row claim locks the record ({@code SELECT … FOR UPDATE}, record before slot row as every
 * claim) and compares it. Another {@code created_at} claims nothing and the round reads again.
 *
 * <p>A borrow of a preferred slot ({@link LeaseRequest#hasPreferredSlot()}) has one candidate only:
 * <ol>
 *   <li>A slot id below {@code slots_created}: its row, claimed by the same conditional {@code UPDATE} as above if
 *       it is claimable; a row held by a live lease is {@link WorkerIdTakenException} (with who holds it).</li>
 *   <li>A slot id {@code p} at or above {@code slots_created}: one transaction raises the count from the value read
 *       to {@code p + 1} ({@code UPDATE … WHERE slots_created = ? AND created_at = ?}: one raiser wins, on the
 *       record read), inserts the ids between free with the fresh floor (as if never used: a fresh claim would give
 *       them that floor too, and they are never taken for lost), and inserts row {@code p} claimed. Whoever claims
 *       such a row later gets at least the fresh floor of its own loss guard, which may have grown since
 *       ({@link Row#floor}). Rows found already at those ids (an older idworker's, or written by hand) are counted
 *       instead, as for a fresh claim, and the round starts again.</li>
 *   <li>A lost race starts the round again; the next round finds the slot held.</li>
 * </ol>
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
        if (request.hasPreferredSlot()) {
            return claimPreferred(request, s, record, guardMillis);
        }
        long fresh = freshFloor(record, guardMillis);
        ToLongFunction<Row> floors = row -> row.floor(record.createdMillis(), fresh);
        List<Row> past = new ArrayList<>();
        List<Row> future = new ArrayList<>();
        for (Row row : s.rows()) {
            if (row.claimable()) {
                (floors.applyAsLong(row) < request.workerNowMillis() ? past : future).add(row);
            }
        }
        boolean freshLeft = record.slotsCreated() < request.slotCount();
        if (past.isEmpty() && future.isEmpty() && !freshLeft) {
            throw new WorkerIdExhaustedException(request.namespace(), request.slotCount());
        }
        past.sort(Comparator.comparingInt(Row::slot));
        future.sort(Comparator.comparingLong(floors).thenComparingInt(Row::slot));
        WorkerLease lease = claimFirst(request, record, past, floors);
        if (lease == null && freshLeft) {
            lease = claimFresh(request, record, fresh);
        }
        if (lease == null) {
            lease = claimFirst(request, record, future, floors);
        }
        return lease;
    }

    /** The preferred slot or nothing: {@code null} to read again. */
    private @Nullable WorkerLease claimPreferred(LeaseRequest r, Snapshot s, Record record, long guardMillis) {
        int slot = r.preferredSlot();
        int created = record.slotsCreated();
        if (slot < created) {
            for (Row row : s.rows()) {
                if (row.slot() == slot) {
                    if (!row.claimable()) {
                        throw new WorkerIdTakenException(r.namespace(), slot, holderOf(r.namespace(), slot));
                    }
                    return claimRow(r, record, row, row.floor(record.createdMillis(), freshFloor(record, guardMillis)));
                }
            }
            // counted but without a row: the borrow repairs lost rows before it claims, so a delete came between
            return null;
        }
        int beyond = -1;
        for (Row row : s.rows()) {
            if (row.slot() >= created && row.slot() <= slot) {
                beyond = Math.max(beyond, row.slot());
            }
        }
        if (beyond >= 0) {
            // rows above the count (an older idworker's, or by hand): count them; ids between without a row are
            // then lost ones, which the next round repairs
            countExistingRows(r.namespace(), created, beyond + 1);
            return null;
        }
        return claimFreshAt(r, record, freshFloor(record, guardMillis));
    }

    /**
     * One transaction: raise the count from the value {@code record} holds to the preferred id + 1, insert the ids
     * between free with {@code floor}, and the preferred id claimed. The count {@code UPDATE} matches only the record
     * as read ({@code created_at} too), so {@code floor} is that of the record as it stands in the transaction.
     */
    private @Nullable WorkerLease claimFreshAt(LeaseRequest r, Record record, long floor) {
        int slot = r.preferredSlot();
        int created = record.slotsCreated();
        long highWater = r.firstHighWater(floor);
        String count = "UPDATE " + nsTable + " SET slots_created = ? WHERE ns = ? AND slots_created = ?"
                + " AND created_at = ?";
        String insertFree = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water) "
                + "VALUES (?, ?, NULL, 0, ?)";
        boolean claimed = jdbc.inTransaction("claim worker id " + slot, s -> {
            try (PreparedStatement ps = s.prepare(count)) {
                ps.setInt(1, slot + 1);
                ps.setString(2, r.namespace());
                ps.setInt(3, created);
                ps.setLong(4, record.createdMillis());
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            try {
                if (slot > created) {
                    try (PreparedStatement ps = s.prepare(insertFree)) {
                        for (int id = created; id < slot; id++) {
                            ps.setString(1, r.namespace());
                            ps.setInt(2, id);
                            ps.setLong(3, floor);
                            ps.addBatch();
                        }
                        ps.executeBatch();
                    }
                }
                insertClaimed(s, r, slot, highWater);
                return true;
            } catch (SQLException e) {
                if (!JdbcRunner.isDuplicateKey(e) && !(e.getNextException() != null
                        && JdbcRunner.isDuplicateKey(e.getNextException()))) {
                    throw e;
                }
                // a row written meanwhile beside the count: the next round reads and counts it
                s.rollback();
                return false;
            }
        });
        return claimed ? WorkerLease.of(r, slot, floor, highWater, "") : null;
    }

    /** Inserts the row of {@code slot} claimed for {@code r}, with {@code highWater} as its first high-water. */
    private void insertClaimed(JdbcRunner.Session s, LeaseRequest r, int slot, long highWater) throws SQLException {
        String insert = "INSERT INTO " + table + " (ns, slot_id, owner_token, expires_at, high_water, host_name, pid,"
                + " started_at) VALUES (?, ?, ?, " + jdbc.dialect().nowMillis() + " + ?, ?, ?, ?, ?)";
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
        }
    }

    /** Who holds slot {@code slot}, for the message of {@link WorkerIdTakenException}; {@code null} if unknown. */
    private @Nullable String holderOf(String ns, int slot) {
        String sql = "SELECT host_name, pid FROM " + table + " WHERE ns = ? AND slot_id = ?";
        @SuppressWarnings("NullAway") // the work returns null for "no row"; SqlWork's T may be nullable,
        // which NullAway checks only in JSpecify mode
        @Nullable String holder = jdbc.run("read the holder of worker id " + slot, s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setString(1, ns);
                ps.setInt(2, slot);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? "host " + rs.getString(1) + " pid " + rs.getLong(2) : null;
                }
            }
        });
        return holder;
    }

    private @Nullable WorkerLease claimFirst(LeaseRequest r, Record record, List<Row> rows,
                                            ToLongFunction<Row> floors) {
        for (Row row : rows) {
            WorkerLease lease = claimRow(r, record, row, floors.applyAsLong(row));
            if (lease != null) {
                return lease;
            }
        }
        return null;
    }

    /**
     * One transaction: lock the namespace record and check it is still {@code record} (its {@code created_at}), then
     * one conditional {@code UPDATE}: one row updated means it is ours, still as read, and {@code floor} (its
     * {@link Row#floor}: the high-water it matched, or more, which depends on {@code created_at}) is the lease's
     * floor. The first high-water is stored in the same statement. A record deleted and written again since the
     * round read it (the namespace lost and recreated) makes the claim {@code null}: the round reads again.
     */
    private @Nullable WorkerLease claimRow(LeaseRequest r, Record record, Row row, long floor) {
        long highWater = r.firstHighWater(floor);
        String now = jdbc.dialect().nowMillis();
        String sql = "UPDATE " + table + " SET owner_token = ?, expires_at = " + now + " + ?, high_water = ?,"
                + " host_name = ?, pid = ?, started_at = ? WHERE ns = ? AND slot_id = ? AND high_water = ?"
                + " AND (owner_token IS NULL OR expires_at < " + now + ")";
        int updated = jdbc.inTransaction("claim worker id " + row.slot(), s -> {
            if (!lockRecordAsRead(s, r.namespace(), record)) {
                return 0;
            }
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
        return updated == 1 ? WorkerLease.of(r, row.slot(), floor, highWater, "") : null;
    }

    /**
     * Locks the namespace record for the rest of the transaction ({@code FOR UPDATE}: the order every claim takes,
     * record before slot rows) and tells whether it is still the one the round read: its {@code created_at}, a
     * {@code BIGINT} of the database clock read as the round read it, is the record's identity, since a record
     * deleted and written again gets the clock of its new insert.
     */
    private boolean lockRecordAsRead(JdbcRunner.Session s, String ns, Record record) throws SQLException {
        String sql = "SELECT created_at FROM " + nsTable + " WHERE ns = ? FOR UPDATE";
        try (PreparedStatement ps = s.prepare(sql)) {
            ps.setString(1, ns);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == record.createdMillis();
            }
        }
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
     * and insert the row of the new id, so no reader ever sees the count without the row. The count {@code UPDATE}
     * matches only {@code record} as the round read it ({@code created_at}): {@code floor} came from it, and a record
     * deleted and written again meanwhile (the namespace lost whole and recreated) is newer, so the claim returns
     * {@code null} and the round reads again. A duplicate key means a row exists at that id already (an older
     * idworker's, or one written by hand): roll back and count the id as created, so the next claim moves past it.
     */
    private @Nullable WorkerLease claimFresh(LeaseRequest r, Record record, long floor) {
        long highWater = r.firstHighWater(floor);
        String count = "UPDATE " + nsTable + " SET slots_created = slots_created + 1 WHERE ns = ? AND slots_created < ?"
                + " AND created_at = ?";
        String readCount = "SELECT slots_created FROM " + nsTable + " WHERE ns = ?";
        Fresh fresh = jdbc.inTransaction("claim a new worker id", s -> {
            try (PreparedStatement ps = s.prepare(count)) {
                ps.setString(1, r.namespace());
                ps.setInt(2, r.slotCount());
                ps.setLong(3, record.createdMillis());
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
            try {
                insertClaimed(s, r, slot, highWater);
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
        countExistingRows(ns, slot, slot + 1);
    }

    /** Raises the count of namespace {@code ns} from {@code from} to {@code to}, unless another borrower moved it. */
    private void countExistingRows(String ns, int from, int to) {
        String sql = "UPDATE " + nsTable + " SET slots_created = ? WHERE ns = ? AND slots_created = ?";
        jdbc.run("count worker ids up to " + (to - 1) + " of namespace '" + ns + "'", s -> {
            try (PreparedStatement ps = s.prepare(sql)) {
                ps.setInt(1, to);
                ps.setString(2, ns);
                ps.setInt(3, from);
                return ps.executeUpdate();
            }
        });
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
