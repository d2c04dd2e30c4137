package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * One tag registered at startup.
 * Bound to {@code idworker.segment.tags.<tag>.*}.
 */
public class SegmentTagProperties {

    /**
     * Number the tag starts after: its first number is one above it. Ignored when the tag already exists.
     */
    private long startAfter = 0;

    /**
     * Step recorded with the tag for operators; generators choose their own. Defaults to
     * "idworker.segment.min-step".
     */
    private @Nullable Integer step;

    /**
     * Description recorded with the tag for operators, at most 256 characters.
     */
    private @Nullable String description;

    public long getStartAfter() {
        return this.startAfter;
    }

    public void setStartAfter(long startAfter) {
        this.startAfter = startAfter;
    }

    public @Nullable Integer getStep() {
        return this.step;
    }

    public void setStep(@Nullable Integer step) {
        this.step = step;
    }

    public @Nullable String getDescription() {
        return this.description;
    }

    public void setDescription(@Nullable String description) {
        this.description = description;
    }
}
