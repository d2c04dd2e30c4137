package io.github.idworker.server;

import io.github.idworker.segment.redis.RedisSequenceGenerators;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Strictly ordered sequences over HTTP: {@code GET /ids/sequence/{tag}?count=N} answers N numbers of the tag as a
 * JSON array, from the tag's range in Redis ({@code redisSequenceGenerators}), refilled from the segment table:
 * unique and strictly increasing across all instances in the order requests reach Redis.
 *
 * <p>Parameters as for {@link SegmentController}. Signed ({@code idworker.server.families.sequence.signed=true}):
 * a grant {@code sequence:<tag>} or {@code sequence:*}.
 */
@RestController
@RequestMapping("/ids")
@ConditionalOnBooleanProperty(name = IdWorkerServerApplication.SEQUENCE_ENABLED, matchIfMissing = true)
public class SequenceController {

    private final RedisSequenceGenerators sequences;
    private final SignedCalls signed;

    public SequenceController(RedisSequenceGenerators sequences, SignedCalls signed) {
        this.sequences = sequences;
        this.signed = signed;
    }

    @Issuing
    @GetMapping("/sequence/{tag}")
    public long[] sequence(@PathVariable("tag") String tag, @RequestParam(name = "count", required = false) String count,
                           HttpServletRequest request) {
        String checked = SegmentController.checkTag(tag);
        int n = IdController.parseCount(count);
        signed.admit(request, "sequence", checked, n);
        return sequences.nextIds(checked, n);
    }
}
