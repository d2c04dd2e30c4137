package io.github.idworker.lease.zookeeper;

import org.jspecify.annotations.Nullable;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The data of a namespace's znode. Its creation time (the znode's {@code ctime}) starts the namespace's
 * generation: no slot of it is used at or below {@code ctime + firstGuardMillis}, because a namespace that is
 * found missing may have existed and been lost with holders still issuing.
 *
 * @param layout the identifier layout pinned at the first borrow
 * @param firstGuardMillis the loss guard ({@code idworker.lease.loss-guard}) of the borrower that created the namespace
 * @param guardMillis the largest loss guard any borrower asked for (a smaller one is refused); the floor of a lost slot record
 * @param slotsCreated slots {@code 0 .. slotsCreated-1} have had a record, so a missing one was lost
 * @param generation a random id given when the namespace is created; its marker znode {@code inc/ns-<generation>}
 *        lives as long as this incarnation of the namespace, and every fresh claim checks it, because the record's
 *        version restarts at 0 when the namespace is recreated; empty in records of older versions
 */
record NamespaceRecord(String layout, long firstGuardMillis, long guardMillis, int slotsCreated, String generation) {

    static NamespaceRecord first(String layout, long guardMillis, String generation) {
        return new NamespaceRecord(layout, guardMillis, guardMillis, 0, generation);
    }

    /** The record of {@code data}, or {@code null} when it is unreadable. */
    static @Nullable NamespaceRecord parse(byte[] data) {
        Map<String, String> f = ZnodeText.decode(data);
        Long firstGuard = ZnodeText.number(f, "guard0");
        Long guard = ZnodeText.number(f, "guard");
        Long created = ZnodeText.number(f, "slots");
        String layout = f.get("layout");
        if (firstGuard == null || guard == null || created == null || layout == null || layout.isEmpty()) {
            return null;
        }
        return new NamespaceRecord(layout, firstGuard, guard, (int) Math.min(created, Integer.MAX_VALUE),
                f.getOrDefault("gen", ""));
    }

    byte[] encode() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("format", "1");
        f.put("layout", layout);
        f.put("guard0", Long.toString(firstGuardMillis));
        f.put("guard", Long.toString(guardMillis));
        f.put("slots", Integer.toString(slotsCreated));
        if (!generation.isEmpty()) {
            f.put("gen", generation);
        }
        return ZnodeText.encode(f);
    }

    NamespaceRecord withGuard(long newGuardMillis) {
        return new NamespaceRecord(layout, firstGuardMillis, Math.max(guardMillis, newGuardMillis), slotsCreated, generation);
    }

    NamespaceRecord withSlotsCreated(int count) {
        return new NamespaceRecord(layout, firstGuardMillis, guardMillis, count, generation);
    }

    NamespaceRecord withGeneration(String newGeneration) {
        return new NamespaceRecord(layout, firstGuardMillis, guardMillis, slotsCreated, newGeneration);
    }
}
