package io.github.idworker.segment;

import io.github.idworker.IdGenerator;

/**
 * A generator that gets its numbers from a store and can tell whether it ever did, so that a lookup such as
 * {@link SegmentIdGenerators} drops a generator whose only outcome so far is a failure (a tag asked for while
 * the store was down) instead of keeping it, its meters and its health entry, forever.
 */
public interface StoreBackedGenerator extends IdGenerator {

    /** Whether any call of this generator ever got numbers from the store; reads memory only. */
    boolean everLoaded();
}
