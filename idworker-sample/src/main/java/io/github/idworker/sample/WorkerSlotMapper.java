package io.github.idworker.sample;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

import java.util.List;

/**
 * The statements of {@link MyBatisSequenceManager} on table {@code idworker_worker_slot}, the same SQL as
 * idworker's {@code JdbcSequenceManager}. {@code ${now}} is the database's clock in epoch milliseconds, an SQL
 * expression taken from {@link io.github.idworker.jdbc.JdbcDialect#nowMillis()} (never user input); every value
 * is a bound parameter.
 */
@Mapper
public interface WorkerSlotMapper {

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

    @Select("""
            SELECT slot_id AS slotId, high_water AS highWater,
                   CASE WHEN owner_token IS NULL OR expires_at < ${now} THEN 1 ELSE 0 END AS claimable
            FROM idworker_worker_slot WHERE ns = #{ns}
            """)
    List<SlotRow> findSlots(@Param("now") String now, @Param("ns") String namespace);

    /** Claims an existing row that is free or expired and still has the high-water the borrower read. */
    @Update("""
            UPDATE idworker_worker_slot
            SET owner_token = #{owner}, expires_at = ${now} + #{ttlMillis}, high_water = #{highWater},
                host_name = #{host}, pid = #{pid}, started_at = #{startedAt}
            WHERE ns = #{ns} AND slot_id = #{slot} AND high_water = #{expectedHighWater}
              AND (owner_token IS NULL OR expires_at < ${now})
            """)
    int claim(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
              @Param("expectedHighWater") long expectedHighWater, @Param("owner") String owner,
              @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater, @Param("host") String host,
              @Param("pid") long pid, @Param("startedAt") long startedAt);

    /** Claims a slot id that has no row yet; a duplicate key means another borrower was first. */
    @Insert("""
            INSERT INTO idworker_worker_slot (ns, slot_id, owner_token, expires_at, high_water, host_name, pid, started_at)
            VALUES (#{ns}, #{slot}, #{owner}, ${now} + #{ttlMillis}, #{highWater}, #{host}, #{pid}, #{startedAt})
            """)
    int insert(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
               @Param("owner") String owner, @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater,
               @Param("host") String host, @Param("pid") long pid, @Param("startedAt") long startedAt);

    /** Extends the lease and raises the high-water, only for the owner. */
    @Update("""
            UPDATE idworker_worker_slot
            SET expires_at = ${now} + #{ttlMillis}, high_water = GREATEST(high_water, #{highWater})
            WHERE ns = #{ns} AND slot_id = #{slot} AND owner_token = #{owner}
            """)
    int renew(@Param("now") String now, @Param("ns") String namespace, @Param("slot") int slot,
              @Param("owner") String owner, @Param("ttlMillis") long ttlMillis, @Param("highWater") long highWater);

    /** Frees the slot and stores the last issued timestamp as its high-water, only for the owner. */
    @Update("""
            UPDATE idworker_worker_slot SET owner_token = NULL, expires_at = 0, high_water = #{highWater}
            WHERE ns = #{ns} AND slot_id = #{slot} AND owner_token = #{owner}
            """)
    int giveBack(@Param("ns") String namespace, @Param("slot") int slot, @Param("owner") String owner,
                 @Param("highWater") long highWater);
}
