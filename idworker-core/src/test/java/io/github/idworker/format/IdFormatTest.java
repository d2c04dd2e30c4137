package io.github.idworker.format;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every form's round trip, width, order and refusals. */
class IdFormatTest {

    /** Fresh per run, printed in every failure that depends on it, so a failing value can be reproduced. */
    private static final long SEED = new Random().nextLong();

    static Stream<IdFormat> forms() {
        List<IdFormat> all = new ArrayList<>();
        for (String name : IdFormats.names()) {
            all.add(IdFormats.named(name));
            all.add(IdFormats.named(name).withPrefix("ord_"));
        }
        return all.stream();
    }

    static Stream<IdFormat> fixedForms() {
        return forms().filter(IdFormat::isFixedWidth);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forms")
    void parsesWhatItFormatsAtTheEdgesAndAtRandom(IdFormat form) {
        long radix = form.radix();
        List<Long> values = new ArrayList<>(List.of(0L, 1L, radix - 1, radix, radix + 1, radix * radix - 1,
                radix * radix, Integer.MAX_VALUE + 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        for (long power = radix; power > 0 && power <= Long.MAX_VALUE / radix; power *= radix) {
            values.add(power - 1);
            values.add(power);
        }
        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) {
            // every magnitude, not only the huge values that uniform longs nearly always are
            values.add((random.nextLong() & Long.MAX_VALUE) >>> random.nextInt(63));
        }
        for (long value : values) {
            String text = form.format(value);
            assertThat(form.parse(text)).as("%s of %d (seed %d)", form, value, SEED).isEqualTo(value);
            assertThat(text).startsWith(form.prefix()).hasSizeLessThanOrEqualTo(form.maxLength());
            if (form.isFixedWidth()) {
                assertThat(text).hasSize(form.maxLength());
            }
            assertThat(form.parse(new StringBuilder(text))).isEqualTo(value);
        }
    }

    @Test
    void writesTheDocumentedStrings() {
        long id = 250_593_765_314_527_232L;
        assertThat(IdFormats.decimal().format(id)).isEqualTo("250593765314527232");
        assertThat(IdFormats.decimalFixed().format(id)).isEqualTo("0250593765314527232");
        assertThat(IdFormats.base36().format(id)).isEqualTo("1wjg2qiozgu8");
        assertThat(IdFormats.base36Fixed().format(id)).isEqualTo("01wjg2qiozgu8");
        assertThat(IdFormats.base62().format(id)).isEqualTo("IVillXbwga");
        assertThat(IdFormats.base62Fixed().format(id)).isEqualTo("0IVillXbwga");
        assertThat(IdFormats.base62().withPrefix("ord_").format(id)).isEqualTo("ord_IVillXbwga");

        assertThat(IdFormats.base62().format(0)).isEqualTo("0");
        assertThat(IdFormats.base62().format(61)).isEqualTo("z");
        assertThat(IdFormats.base62().format(62)).isEqualTo("10");
        assertThat(IdFormats.base62Fixed().format(0)).isEqualTo("00000000000");
        assertThat(IdFormats.base62Fixed().format(Long.MAX_VALUE)).isEqualTo("AzL8n0Y58m7");
        assertThat(IdFormats.base36().format(35)).isEqualTo("z");
        assertThat(IdFormats.base36Fixed().format(Long.MAX_VALUE)).isEqualTo("1y2p0ij32e8e7");
        assertThat(IdFormats.decimalFixed().format(7)).isEqualTo("0000000000000000007");
        assertThat(IdFormats.decimalFixed().format(Long.MAX_VALUE)).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    @Test
    void decimalAndBase36WriteWhatTheJdkWrites() {
        Random random = new Random(SEED);
        for (int i = 0; i < 10_000; i++) {
            long value = (random.nextLong() & Long.MAX_VALUE) >>> random.nextInt(63);
            assertThat(IdFormats.decimal().format(value)).as("seed %d", SEED).isEqualTo(Long.toString(value));
            assertThat(IdFormats.base36().format(value)).as("seed %d", SEED).isEqualTo(Long.toString(value, 36));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixedForms")
    void fixedWidthStringsSortAsTheirNumbers(IdFormat form) {
        Random random = new Random(SEED);
        for (int i = 0; i < 100_000; i++) {
            long a = (random.nextLong() & Long.MAX_VALUE) >>> random.nextInt(63);
            // a third of the pairs are near-equal: they differ in the last digits only, where a bad alphabet shows
            long b = switch (i % 3) {
                case 0 -> (random.nextLong() & Long.MAX_VALUE) >>> random.nextInt(63);
                case 1 -> Math.max(0, Math.min(Long.MAX_VALUE - 100, a) + random.nextInt(201) - 100);
                default -> a ^ (1L << random.nextInt(63));
            };
            int byNumber = Integer.signum(Long.compare(a, b));
            int byString = Integer.signum(form.format(a).compareTo(form.format(b)));
            assertThat(byString).as("%s: %d vs %d (seed %d)", form, a, b, SEED).isEqualTo(byNumber);
        }
    }

    @Test
    void namesAreTheDocumentedOnesAndStringIsDecimal() {
        assertThat(IdFormats.names()).containsExactly("decimal", "string", "decimal-fixed", "base36", "base36-fixed",
                "base62", "base62-fixed");
        assertThat(IdFormats.named("string")).isSameAs(IdFormats.decimal());
        assertThat(IdFormats.named("base62-fixed")).isSameAs(IdFormats.base62Fixed()).hasToString("base62-fixed");
        assertThat(IdFormats.named("base36").name()).isEqualTo("base36");
        assertThat(IdFormats.named("base36").radix()).isEqualTo(36);
        assertThat(IdFormats.named("base62-fixed").width()).isEqualTo(11);
        assertThat(IdFormats.named("base36-fixed").width()).isEqualTo(13);
        assertThat(IdFormats.named("decimal-fixed").width()).isEqualTo(19);
        assertThat(IdFormats.base62().withPrefix("ord_")).isEqualTo(IdFormats.base62().withPrefix("ord_"))
                .isNotEqualTo(IdFormats.base62()).hasToString("base62 with prefix \"ord_\"");
        assertThat(IdFormats.base62().withPrefix("ord_").maxLength()).isEqualTo(15);
    }

    @Test
    void anUnknownNameIsRefusedWithTheNamesAllowed() {
        for (String bad : List.of("BASE62", "base64", "", "number", " base62")) {
            assertThatThrownBy(() -> IdFormats.named(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("name must be one of decimal, string, decimal-fixed, base36, base36-fixed, base62, "
                            + "base62-fixed, was \"" + bad + "\"");
        }
    }

    @Test
    void aNegativeIdIsRefusedInEveryForm() {
        forms().forEach(form -> {
            for (long bad : new long[] {-1, Long.MIN_VALUE}) {
                assertThatThrownBy(() -> form.format(bad)).as("%s", form)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("id must be non-negative (identifiers are never negative), was " + bad);
            }
        });
    }

    @Test
    void aPrefixMustBePrintableAsciiWithoutWhitespace() {
        assertThatThrownBy(() -> IdFormats.base62().withPrefix(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefix must be one or more printable ASCII characters without whitespace "
                        + "(such as \"ord_\"), was empty");
        assertThatThrownBy(() -> IdFormats.base62().withPrefix("ord "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefix must be printable ASCII characters without whitespace (such as \"ord_\"); "
                        + "U+0020 at index 3 of \"ord \" is not");
        assertThatThrownBy(() -> IdFormats.base62().withPrefix("ordé"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+00E9 at index 3");
        assertThatThrownBy(() -> IdFormats.base62().withPrefix("o\td"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+0009 at index 1 of \"o\\u0009d\"");
        assertThat(IdFormats.base36().withPrefix("!~").format(35)).isEqualTo("!~z");
    }

    @Test
    void parseRefusesTheWrongPrefixNamingIt() {
        IdFormat form = IdFormats.base62().withPrefix("ord_");
        assertThatThrownBy(() -> form.parse("usr_1A"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"usr_1A\" (base62 with prefix \"ord_\") does not start with the prefix \"ord_\"");
        assertThatThrownBy(() -> form.parse("ord"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not start with the prefix");
        assertThatThrownBy(() -> form.parse("1A")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not start with the prefix");
        assertThatThrownBy(() -> form.parse("ord_"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"ord_\" (base62 with prefix \"ord_\") has no digits after the prefix");
        assertThatThrownBy(() -> IdFormats.base62().parse(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("identifier \"\" (base62) is empty");
    }

    @Test
    void parseRefusesACharacterOutsideTheAlphabetWithItsIndex() {
        assertThatThrownBy(() -> IdFormats.base62().withPrefix("ord_").parse("ord_12!x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"ord_12!x\" (base62 with prefix \"ord_\") has '!' at index 6, outside the "
                        + "base62 digits 0-9, A-Z, a-z");
        assertThatThrownBy(() -> IdFormats.base36().parse("1wJg"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"1wJg\" (base36) has 'J' at index 2, outside the base36 digits 0-9, a-z");
        for (String bad : List.of("-1", "+1", " 1", "1 ", "1e3", "0x1", "１２", "1_000", "1.0")) {
            assertThatThrownBy(() -> IdFormats.decimal().parse(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the decimal digits 0-9");
        }
        assertThatThrownBy(() -> IdFormats.decimal().parse("1\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"1\\u000a\" (decimal) has U+000A at index 1, outside the decimal digits 0-9");
    }

    @Test
    void parseRefusesTooLongAndWrongWidthAndLeadingZeros() {
        assertThatThrownBy(() -> IdFormats.base62().parse("1".repeat(12)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"111111111111\" (base62) is too long: 12 digits, at most 11 in base62");
        assertThatThrownBy(() -> IdFormats.decimal().withPrefix("n").parse("n" + "1".repeat(20)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is too long: 20 digits after the prefix, at most 19 in decimal");
        assertThatThrownBy(() -> IdFormats.base62Fixed().parse("1A"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"1A\" (base62-fixed) has 2 digits; the base62-fixed form has exactly 11");
        assertThatThrownBy(() -> IdFormats.base36Fixed().parse("0" + "1y2p0ij32e8e7"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 14 digits; the base36-fixed form has exactly 13");
        assertThatThrownBy(() -> IdFormats.base36().parse("007"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"007\" (base36) has a leading zero; the base36 form writes none (the "
                        + "base36-fixed form pads with zeros)");
        assertThat(IdFormats.base36Fixed().parse("0000000000007")).isEqualTo(7);
        assertThat(IdFormats.base36().parse("0")).isZero();
    }

    @Test
    void parseRefusesValuesBeyondLongMaxValueWithoutWrapping() {
        assertThatThrownBy(() -> IdFormats.base62().parse("AzL8n0Y58m8"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("identifier \"AzL8n0Y58m8\" (base62) is beyond the largest identifier, Long.MAX_VALUE "
                        + "(AzL8n0Y58m7 in base62)");
        for (IdFormat form : forms().toList()) {
            String max = form.format(Long.MAX_VALUE);
            String digits = max.substring(form.prefix().length());
            String top = form.prefix() + String.valueOf(lastDigit(form)).repeat(form.width());
            String[] beyond = {top, form.prefix() + bump(digits, form)};
            for (String bad : beyond) {
                assertThatThrownBy(() -> form.parse(bad)).as("%s %s", form, bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("is beyond the largest identifier, Long.MAX_VALUE");
            }
        }
        assertThatThrownBy(() -> IdFormats.decimal().parse("9223372036854775808"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("beyond the largest identifier");
    }

    @Test
    void aLongHostileTextIsCutInTheMessage() {
        String hostile = "z".repeat(5_000);
        assertThatThrownBy(() -> IdFormats.base62().parse(hostile))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + "z".repeat(40) + "…\"")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("z".repeat(41)));
    }

    private static char lastDigit(IdFormat form) {
        return form.radix() == 10 ? '9' : 'z';
    }

    /** {@code digits} with its last digit raised by one: Long.MAX_VALUE + 1 (its last digit is never the top). */
    private static String bump(String digits, IdFormat form) {
        char last = digits.charAt(digits.length() - 1);
        assertThat(last).isNotEqualTo(lastDigit(form));
        char next = last == '9' ? (form.radix() == 62 ? 'A' : 'a') : last == 'Z' ? 'a' : (char) (last + 1);
        return digits.substring(0, digits.length() - 1) + next;
    }
}
