package io.github.idworker.lease.zookeeper;

import io.github.idworker.lease.LeaseRequest;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The data of one slot's persistent znode. The lease ends at the znode's modification time (the ZooKeeper
 * leader's clock when it committed the write) plus {@code ttlMillis}, so every write that claims or renews a
 * slot also restarts its lease, judged by the centre's clock and not the worker's.
 *
 * @param highWater the largest timestamp any holder may have issued with this slot, in milliseconds
 * @param ttlMillis the lease length of the last claim or renewal; {@code 0} while free
 * @param owner the holder's owner token; empty while free
 * @param session the ZooKeeper session (hex) whose ephemeral node marks the holder alive; empty while free
 * @param host who held the slot last, for humans
 * @param pid that holder's process id, for humans
 * @param started when that holder claimed it (its clock), for humans
 * @param repaired whether the record was recreated after it had been lost: its high-water is a loss guard of
 *        the centre's clock written in the same round, so the first claim stores it without the extra millisecond
 * @param incarnation a random id given when the znode is created (or repaired); its marker znode
 *        {@code inc/<slot>-<incarnation>} exists exactly as long as this incarnation, and every write checks it,
 *        because the znode's version restarts at 0 when it is recreated; empty in records of older versions
 * @param floor the lease floor of the claim that wrote the record (the effective high-water it replaced, above
 *        which the claimer issues), written in the same transaction as its owner so that a borrow which lost the
 *        answer to its own committed claim can take the lease up again with its floor; {@link #NO_FLOOR} once a
 *        renewal or return rewrote the record, and in records not written by a claim or by older versions
 */
record SlotRecord(long highWater, long ttlMillis, String owner, String session, String host, long pid,
                  String started, boolean repaired, String incarnation, long floor) {

    /** {@link #floor} of a record not written by a claim. */
    static final long NO_FLOOR = -1;

    /** A free record standing in for a lost one, with the loss guard as its high-water. */
    static SlotRecord lost(long floorMillis, String incarnation) {
        return new SlotRecord(floorMillis, 0, "", "", "", 0, "", true, incarnation, NO_FLOOR);
    }

    /** A free record of an id never held, with {@code floorMillis} (the generation floor) as its high-water. */
    static SlotRecord neverHeld(long floorMillis, String incarnation) {
        return new SlotRecord(floorMillis, 0, "", "", "", 0, "", false, incarnation, NO_FLOOR);
    }

    /** The record of {@code r}'s claim in {@code session}: lease floor {@code floor}, first high-water {@code highWater}. */
    static SlotRecord claimed(LeaseRequest r, long floor, long highWater, String session, String incarnation) {
        return new SlotRecord(highWater, r.ttl().toMillis(), r.owner(), session, r.host(), r.pid(),
                Instant.ofEpochMilli(r.workerNowMillis()).toString(), false, incarnation, floor);
    }

    /** The record of {@code data}, or {@code null} when it is unreadable (no numeric high-water). */
    static @Nullable SlotRecord parse(byte[] data) {
        Map<String, String> f = ZnodeText.decode(data);
        Long highWater = ZnodeText.number(f, "hw");
        Long ttl = ZnodeText.number(f, "ttl");
        if (highWater == null || ttl == null) {
            return null;
        }
        Long pid = ZnodeText.number(f, "pid");
        Long floor = ZnodeText.number(f, "floor");
        return new SlotRecord(highWater, ttl, f.getOrDefault("owner", ""), f.getOrDefault("session", ""),
                f.getOrDefault("host", ""), pid == null ? 0 : pid, f.getOrDefault("started", ""),
                "true".equals(f.get("repaired")), f.getOrDefault("inc", ""), floor == null ? NO_FLOOR : floor);
    }

    byte[] encode() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("hw", Long.toString(highWater));
        f.put("ttl", Long.toString(ttlMillis));
        f.put("owner", owner);
        f.put("session", session);
        f.put("host", host);
        f.put("pid", Long.toString(pid));
        f.put("started", started);
        if (repaired) {
            f.put("repaired", "true");
        }
        if (!incarnation.isEmpty()) {
            f.put("inc", incarnation);
        }
        if (floor != NO_FLOOR) {
            f.put("floor", Long.toString(floor));
        }
        return ZnodeText.encode(f);
    }

    boolean free() {
        return owner.isEmpty();
    }

    /** Whether the lease ended before {@code centreNowMillis}, given the znode's modification time. */
    boolean expired(long modifiedMillis, long centreNowMillis) {
        return modifiedMillis + ttlMillis < centreNowMillis;
    }

    SlotRecord withHighWater(long newHighWater, long newTtlMillis) {
        return new SlotRecord(newHighWater, newTtlMillis, owner, session, host, pid, started, false, incarnation,
                NO_FLOOR);
    }

    /** Freed by its holder: no owner, no lease, the last issued timestamp as high-water; who held it stays. */
    SlotRecord returned(long lastIssuedMillis) {
        return new SlotRecord(lastIssuedMillis, 0, "", "", host, pid, started, false, incarnation, NO_FLOOR);
    }
}
