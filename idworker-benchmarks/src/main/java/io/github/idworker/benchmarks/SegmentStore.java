package io.github.idworker.benchmarks;

import io.github.idworker.segment.SegmentAllocator;

/**
 * Where the segment benchmarks take their ranges from, a JMH {@code @Param} ({@code -p allocator=MEMORY,H2}).
 * Every generator measured in one trial, ours and the peers', takes its ranges from the same kind of store
 * under a fresh tag of its own, so a range costs all of them the same.
 */
public enum SegmentStore {

    /** {@link InMemorySegmentAllocator}: a range is one atomic add, so what is measured is the generator alone. */
    MEMORY {
        @Override
        SegmentAllocator allocator() {
            return new InMemorySegmentAllocator();
        }

        @Override
        void deleteTag(String tag) {
            // dies with the allocator
        }
    },

    /** {@code JdbcSegmentAllocator} over in-memory H2 ({@link SegmentTables}): a range is one real transaction. */
    H2 {
        @Override
        SegmentAllocator allocator() {
            return SegmentTables.allocator();
        }

        @Override
        void deleteTag(String tag) {
            SegmentTables.deleteTag(tag);
        }
    };

    /** A new allocator over this store; with H2 the table is created if needed. */
    abstract SegmentAllocator allocator();

    /** Forgets a tag created by {@link SegmentTables#newTag} over this store at the end of a trial. */
    abstract void deleteTag(String tag);
}
