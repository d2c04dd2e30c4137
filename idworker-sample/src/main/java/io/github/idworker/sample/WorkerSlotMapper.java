package io.github.idworker.sample;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

import java.util.List;

/**
 * The statements of {@link MyBatisSequenceManager} on tables {@code idworker_worker_slot} (one row per slot) and
 * {@code idworker_worker_slot_ns} (one record per namespace: pinned layout, loss guard, slot ids ever created),
 * the same tables as idworker's {@code JdbcSequenceManager}. {@code ${now}} is the database's clock in epoch
 * milliseconds, an SQL expression taken from {@link io.github.idworker.jdbc.JdbcDialect#nowMillis()} (never user
 * input); every value is a bound parameter.
 *
 * <p>Every statement carries {@code @Options(timeout = }{@value #TIMEOUT_SECONDS}{@code )}: the bound belongs to
 * the statement, whatever {@code defaultStatementTimeout} the application's MyBatis configuration sets for its own
 * mappers, and in whichever session factory the mapper is registered.
 */
@Mapper
public interface WorkerSlotMapper {

    /** Longest one statement may run, lock waits included, in seconds (MyBatis counts whole seconds). */
    int TIMEOUT_SECONDS = 2;

    /** One slot row as a borrower sees it. */
    class SlotRow {
        private int slotId;
        private long highWater;
        private boolean claimable;

        public int getSlotId() {
            return slotId;
        }

        public void setSlotId(int slotId) {
            this.slotId = slotId;
        }

        public long getHighWater() {
            return highWater;
        }

        public void setHighWater(long highWater) {
            this.highWater = highWater;
        }

        public boolean isClaimable() {
            return claimable;
        }

        public void setClaimable(boolean claimable) {
            this.claimable = claimable;
        }
    }

    /**
     * The record of a namespace: the layout it is pinned to, its loss guard, how many slot ids it created and when
     * it was written (database clock, epoch ms).
     */
    class NamespaceRow {
        @SuppressWarnings("NullAway.Init") // MyBatis sets it from the row's layout column, which is never null
        private String layout;
        private long guardMs;
        private int slotsCreated;
        private long createdAt;

        public long getCreatedAt() {
            return createdAt;
        }

        public void setCreatedAt(long createdAt) {
            this.createdAt = createdAt;
        }

        public String getLayout() {
            return layout;
        }

        public void setLayout(String layout) {
            this.layout = layout;
        }

        public long getGuardMs() {
            return guardMs;
        }

        public void setGuardMs(long guardMs) {
            this.guardMs = guardMs;
        }

        public int getSlotsCreated() {
            return slotsCreated;
        }

        public void setSlotsCreated(int slotsCreated) {
            this.slotsCreated = slotsCreated;
        }
    }

    @Select("""
            SELECT layout, guard_ms AS guardMs, slots_created AS slotsCreated, created_at AS createdAt
            FROM idworker_worker_slot_ns WHERE ns = #{ns}
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    NamespaceRow findNamespace(@Param("ns") String namespace);

    @Select("SELECT COUNT(*) FROM idworker_worker_slot WHERE ns = #{ns}")
    @Options(timeout = TIMEOUT_SECONDS)
    int countSlots(@Param("ns") String namespace);

    /** Pins a new namespace; a duplicate key means another borrower pinned it first. */
    @Insert("""
            INSERT INTO idworker_worker_slot_ns (ns, layout, guard_ms, slots_created, created_at)
            VALUES (#{ns}, #{layout}, #{guardMs}, #{slotsCreated}, ${now})
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int insertNamespace(@Param("now") String now, @Param("ns") String namespace, @Param("layout") String layout,
                        @Param("guardMs") long guardMs, @Param("slotsCreated") int slotsCreated);

    /** Raises the namespace's loss guard to at least {@code guardMs}; never lowers it. */
    @Update("UPDATE idworker_worker_slot_ns SET guard_ms = GREATEST(guard_ms, #{guardMs}) WHERE ns = #{ns}")
    @Options(timeout = TIMEOUT_SECONDS)
    int raiseGuard(@Param("ns") String namespace, @Param("guardMs") long guardMs);

    /**
     * Takes slot id {@code expected} for a new row by moving the counter past it, only if no other borrower
     * moved it first and the record is still the one written at {@code createdAt}: a record deleted and written
     * again (the namespace lost and recreated) is newer, and a floor taken from the old one would be too low.
     */
    @Update("""
            UPDATE idworker_worker_slot_ns SET slots_created = slots_created + 1
            WHERE ns = #{ns} AND slots_created = #{expected} AND created_at = #{createdAt}
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int takeSlotId(@Param("ns") String namespace, @Param("expected") int expected,
                   @Param("createdAt") long createdAt);

    @Select("""
            SELECT slot_id AS slotId, high_water AS highWater,
                   CASE WHEN owner_token IS NULL OR expires_at < ${now} THEN 1 ELSE 0 END AS claimable
            FROM idworker_worker_slot WHERE ns = #{ns}
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    List<SlotRow> findSlots(@Param("now") String now, @Param("ns") String namespace);

    /**
     * Recreates the lost row of a slot id the namespace created before, free and with the high-water
     * {@code now + guardMs}: above anything its last holder may have issued. A duplicate key means it is back
     * already.
     */
    @Insert("""
            INSERT INTO idworker_worker_slot (ns, slot_id, owner_token, expires_at, high_water)
            VALUES (#{ns}, #{slot}, NULL, 0, ${now} + #{guardMs})
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int restore(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
                @Param("guardMs") long guardMs);

    /** Claims an existing row that is free or expired and still has the high-water the borrower read. */
    @Update("""
            UPDATE idworker_worker_slot
            SET owner_token = #{owner}, expires_at = ${now} + #{ttlMillis}, high_water = #{highWater},
                host_name = #{host}, pid = #{pid}, started_at = #{startedAt}
            WHERE ns = #{ns} AND slot_id = #{slot} AND high_water = #{expectedHighWater}
              AND (owner_token IS NULL OR expires_at < ${now})
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int claim(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
              @Param("expectedHighWater") long expectedHighWater, @Param("owner") String owner,
              @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater, @Param("host") String host,
              @Param("pid") long pid, @Param("startedAt") long startedAt);

    /** Inserts the row of a slot id taken with {@link #takeSlotId}. */
    @Insert("""
            INSERT INTO idworker_worker_slot (ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at)
            VALUES (#{ns}, #{slot}, #{owner}, ${now} + #{ttlMillis}, #{highWater}, #{host}, #{pid}, #{startedAt})
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int insert(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
               @Param("owner") String owner, @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater,
               @Param("host") String host, @Param("pid") long pid, @Param("startedAt") long startedAt);

    /** The database's clock, epoch milliseconds. */
    @Select("SELECT ${now}")
    @Options(timeout = TIMEOUT_SECONDS)
    long centreNow(@Param("now") String now);

    /**
     * Extends the lease and raises the high-water, only for the owner, and only to a high-water at most the
     * database clock + {@code guardMillis} (ttl + max-skew): a holder asking for more runs its clock ahead by more
     * than max-skew (DESIGN rule 13). A request at or below the stored high-water stores nothing new and passes.
     */
    @Update("""
            UPDATE idworker_worker_slot
            SET expires_at = ${now} + #{ttlMillis}, high_water = GREATEST(high_water, #{highWater})
            WHERE ns = #{ns} AND slot_id = #{slot} AND owner_token = #{owner}
              AND (#{highWater} <= high_water OR #{highWater} <= ${now} + #{guardMillis})
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int renew(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
              @Param("owner") String owner, @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater,
              @Param("guardMillis") long guardMillis);

    /** The database's clock if the slot is still owned by {@code owner}, else {@code null}. */
    @Select("SELECT ${now} FROM idworker_worker_slot WHERE ns = #{ns} AND slot_id = #{slot} AND owner_token = #{owner}")
    @Options(timeout = TIMEOUT_SECONDS)
    Long centreNowIfOwned(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
                          @Param("owner") String owner);

    /** Frees the slot and stores the last issued timestamp as its high-water, only for the owner. */
    @Update("""
            UPDATE idworker_worker_slot SET owner_token = NULL, expires_at = 0, high_water = #{highWater}
            WHERE ns = #{ns} AND slot_id = #{slot} AND owner_token = #{owner}
            """)
    @Options(timeout = TIMEOUT_SECONDS)
    int giveBack(@Param("ns") String namespace, @Param("slot") int slot, @Param("owner") String owner,
                 @Param("highWater") long highWater);
}
