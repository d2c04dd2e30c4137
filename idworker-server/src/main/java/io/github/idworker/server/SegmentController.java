package io.github.idworker.server;

import io.github.idworker.segment.SegmentIdGenerators;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.regex.Pattern;

/**
 * Segment mode over HTTP: {@code GET /ids/segment/{tag}?count=N} answers N dense numbers of the tag as a JSON
 * array, from this process's double-buffered range ({@code segmentIdGenerators}): unique across instances,
 * increasing per instance.
 *
 * <p>{@code count} follows the rules of {@code /ids/next} (1 to {@value IdController#MAX_COUNT}, default 1); a tag
 * is 1 to {@value #MAX_TAG_LENGTH} letters, digits, '.', '_' or '-'. Anything else is a 400 naming the parameter.
 * A tag the segment table does not know is a 404 when {@code idworker.segment.auto-create} is off (profile
 * {@code demo} switches it on); a refill that timed out or a store that is down is a 503 (see
 * {@link ApiExceptionHandler}). Signed ({@code idworker.server.families.segment.signed=true}): a grant
 * {@code segment:<tag>} or {@code segment:*}.
 */
@RestController
@RequestMapping("/ids")
@ConditionalOnBooleanProperty(name = IdWorkerServerApplication.SEGMENT_ENABLED, matchIfMissing = true)
public class SegmentController {

    static final int MAX_TAG_LENGTH = 64;
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_TAG_LENGTH + "}");

    private final SegmentIdGenerators segments;
    private final SignedCalls signed;

    public SegmentController(SegmentIdGenerators segments, SignedCalls signed) {
        this.segments = segments;
        this.signed = signed;
    }

    @Issuing
    @GetMapping("/segment/{tag}")
    public long[] segment(@PathVariable("tag") String tag, @RequestParam(name = "count", required = false) String count,
                          HttpServletRequest request) {
        String checked = checkTag(tag);
        int n = IdController.parseCount(count);
        signed.admit(request, "segment", checked, n);
        return segments.nextIds(checked, n);
    }

    static String checkTag(String tag) {
        if (!TAG.matcher(tag).matches()) {
            throw new InvalidParameterException("tag", "must be 1 to " + MAX_TAG_LENGTH
                    + " letters, digits, '.', '_' or '-', was " + RequestExcerpt.quote(tag));
        }
        return tag;
    }
}
