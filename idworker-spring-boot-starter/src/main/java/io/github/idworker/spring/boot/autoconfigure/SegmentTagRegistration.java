package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.segment.SegmentAllocator;
import io.github.idworker.segment.jdbc.JdbcSegmentAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Registers the tags listed under {@code idworker.segment.tags} with the segment allocator, once, before any
 * generator is handed out. Registration is idempotent: a tag that exists keeps its numbers, so restarts and
 * several nodes starting at once are safe. A tag or value the allocator refuses fails the startup naming the
 * property.
 */
final class SegmentTagRegistration {

    private static final Logger log = LoggerFactory.getLogger(SegmentTagRegistration.class);
    static final String TAGS_PROPERTY = "idworker.segment.tags";

    private final List<String> created = new ArrayList<>();
    private final List<String> registered;

    SegmentTagRegistration(SegmentAllocator allocator, SegmentProperties properties) {
        List<String> tags = new ArrayList<>();
        for (Map.Entry<String, SegmentTagProperties> entry : properties.getTags().entrySet()) {
            String tag = entry.getKey();
            SegmentTagProperties settings = (entry.getValue() != null) ? entry.getValue() : new SegmentTagProperties();
            int step = (settings.getStep() != null) ? settings.getStep() : properties.getMinStep();
            String property = TAGS_PROPERTY + "." + tag;
            if (settings.getStartAfter() < 0) {
                throw new IdWorkerConfigurationException(property + ".start-after",
                        "must be zero or more, was " + settings.getStartAfter());
            }
            if (step < 1) {
                throw new IdWorkerConfigurationException(property + ".step", "must be at least 1, was " + step);
            }
            boolean createdNow;
            try {
                createdNow = (allocator instanceof JdbcSegmentAllocator jdbc)
                        ? jdbc.register(tag, settings.getStartAfter(), step, settings.getDescription())
                        : allocator.register(tag, settings.getStartAfter(), step);
            } catch (IllegalArgumentException e) {
                throw new IdWorkerConfigurationException(property, String.valueOf(e.getMessage()), e);
            }
            if (createdNow) {
                this.created.add(tag);
            }
            tags.add(tag);
        }
        this.registered = Collections.unmodifiableList(tags);
        if (!tags.isEmpty()) {
            log.info("Segment tags {} registered in {} ({} created now)", tags, allocator, this.created.size());
        }
    }

    /** Every tag listed under {@code idworker.segment.tags}. */
    List<String> registered() {
        return this.registered;
    }

    /** The listed tags this startup created. */
    List<String> created() {
        return Collections.unmodifiableList(this.created);
    }
}
