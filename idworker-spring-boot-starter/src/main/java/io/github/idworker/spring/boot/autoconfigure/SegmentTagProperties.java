package io.github.idworker.spring.boot.autoconfigure;

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
    private Integer step;

    /**
     * Description recorded with the tag for operators, at most 256 characters.
     */
    private String description;

    public long getStartAfter() {
        return this.startAfter;
    }

    public void setStartAfter(long startAfter) {
        this.startAfter = startAfter;
    }

    public Integer getStep() {
        return this.step;
    }

    public void setStep(Integer step) {
        this.step = step;
    }

    public String getDescription() {
        return this.description;
    }

    public void setDescription(String description) {
        this.description = description;
    }
}
