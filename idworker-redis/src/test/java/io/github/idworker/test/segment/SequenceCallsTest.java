package io.github.idworker.test.segment;

import io.github.idworker.test.segment.SequenceCalls.Call;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checks of the ordering tests catch what they claim to catch. */
class SequenceCallsTest {

    @Test
    void overlappingCallsMayBeServedInEitherOrder() {
        List<Call> calls = List.of(new Call(0, 0, 10, 5, 5), new Call(1, 5, 15, 3, 4), new Call(2, 20, 30, 6, 6));
        assertThatCode(() -> SequenceCalls.assertUnique(calls)).doesNotThrowAnyException();
        assertThatCode(() -> SequenceCalls.assertFirstComeFirstServed(calls)).doesNotThrowAnyException();
    }

    @Test
    void aLaterCallWithASmallerNumberIsCaught() {
        List<Call> calls = List.of(new Call(0, 0, 10, 5, 9), new Call(1, 2, 3, 1, 1), new Call(2, 11, 12, 8, 8));
        assertThatThrownBy(() -> SequenceCalls.assertFirstComeFirstServed(calls))
                .isInstanceOf(AssertionError.class).hasMessageContaining("first come");
    }

    @Test
    void aNumberIssuedTwiceIsCaught() {
        List<Call> calls = List.of(new Call(0, 0, 1, 1, 5), new Call(1, 2, 3, 5, 7));
        assertThatThrownBy(() -> SequenceCalls.assertUnique(calls)).isInstanceOf(AssertionError.class);
    }
}
