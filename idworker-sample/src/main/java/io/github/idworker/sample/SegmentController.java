package io.github.idworker.sample;

import io.github.idworker.segment.SegmentIdGenerators;
import io.github.idworker.segment.redis.RedisSequenceGenerators;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.regex.Pattern;

/**
 * Segment mode over HTTP: dense, increasing numbers per business tag, as a JSON array.
 *
 * <ul>
 *   <li>{@code GET /ids/segment/{tag}?count=N}: from this process's double-buffered range
 *       ({@code segmentIdGenerators}); unique across instances, increasing per instance.</li>
 *   <li>{@code GET /ids/sequence/{tag}?count=N}: from the tag's range in Redis ({@code redisSequenceGenerators});
 *       unique and strictly increasing across all instances in the order requests reach Redis. Profile
 *       {@code db} runs without Redis, so there it answers 503 saying so.</li>
 * </ul>
 *
 * {@code count} follows the rules of {@code /ids/next} (1 to {@value IdController#MAX_COUNT}, default 1); a tag is
 * 1 to {@value #MAX_TAG_LENGTH} letters, digits, '.', '_' or '-'. Anything else is a 400 naming the parameter. A
 * tag the segment table does not know is a 404 when {@code idworker.segment.auto-create} is off (the sample
 * switches it on, so {@code /ids/segment/order} just works); a refill that timed out or a store that is down is
 * a 503 (see {@link ApiExceptionHandler}).
 */
@RestController
@RequestMapping("/ids")
public class SegmentController {

    static final int MAX_TAG_LENGTH = 64;
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_TAG_LENGTH + "}");

    private final SegmentIdGenerators segments;
    private final ObjectProvider<RedisSequenceGenerators> sequences;

    public SegmentController(SegmentIdGenerators segments, ObjectProvider<RedisSequenceGenerators> sequences) {
        this.segments = segments;
        this.sequences = sequences;
    }

    @Issuing
    @GetMapping("/segment/{tag}")
    public long[] segment(@PathVariable("tag") String tag, @RequestParam(name = "count", required = false) String count) {
        return segments.nextIds(checkTag(tag), IdController.parseCount(count));
    }

    @Issuing
    @GetMapping("/sequence/{tag}")
    public long[] sequence(@PathVariable("tag") String tag, @RequestParam(name = "count", required = false) String count) {
        String checked = checkTag(tag);
        int n = IdController.parseCount(count);
        RedisSequenceGenerators redis = sequences.getIfAvailable();
        if (redis == null) {
            throw new RedisSequencesUnavailableException("/ids/sequence needs Redis, and this instance runs without "
                    + "it (profile 'db'). Use /ids/segment/" + checked + ", or start the sample without profile 'db' "
                    + "(embedded Redis) or with profile 'external' and your own Redis.");
        }
        return redis.nextIds(checked, n);
    }

    private static String checkTag(String tag) {
        if (!TAG.matcher(tag).matches()) {
            throw new InvalidParameterException("tag", "must be 1 to " + MAX_TAG_LENGTH
                    + " letters, digits, '.', '_' or '-', was " + RequestExcerpt.quote(tag));
        }
        return tag;
    }
}
