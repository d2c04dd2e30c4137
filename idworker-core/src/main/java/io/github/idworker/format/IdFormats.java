package io.github.idworker.format;

import java.util.List;
import java.util.Objects;

/**
 * The string forms of identifiers ({@link IdFormat}), by factory method or by name for configuration and HTTP
 * parameters. Each name is a radix and a width:
 *
 * <table>
 *   <caption>Names</caption>
 *   <tr><th>name</th><th>digits</th><th>{@code 250593765314527232} is written</th></tr>
 *   <tr><td>{@code decimal} (also {@code string})</td><td>0-9, minimal width</td>
 *       <td>{@code 250593765314527232}</td></tr>
 *   <tr><td>{@code decimal-fixed}</td><td>0-9, 19 digits</td><td>{@code 0250593765314527232}</td></tr>
 *   <tr><td>{@code base36}</td><td>0-9 a-z, minimal width</td><td>{@code 1wjg2qiozgu8}</td></tr>
 *   <tr><td>{@code base36-fixed}</td><td>0-9 a-z, 13 digits</td><td>{@code 01wjg2qiozgu8}</td></tr>
 *   <tr><td>{@code base62}</td><td>0-9 A-Z a-z, minimal width</td><td>{@code IVillXbwga}</td></tr>
 *   <tr><td>{@code base62-fixed}</td><td>0-9 A-Z a-z, 11 digits</td><td>{@code 0IVillXbwga}</td></tr>
 * </table>
 *
 * A fixed width is that of {@link Long#MAX_VALUE} in the radix, so every identifier fits it and fixed-width strings
 * sort as their numbers do. Any form takes a prefix with {@link IdFormat#withPrefix}. Names are matched exactly
 * (lower case); {@code string} is the name the ID service's {@code ?as=string} has always had for decimal digits.
 * Guarantees: the same name always gives an equal form, and an unknown one is refused with the list of names.
 */
public final class IdFormats {

    /** Decimal digits, as {@link Long#toString(long)} writes a non-negative value. */
    public static final String DECIMAL = "decimal";
    /** {@link #DECIMAL}, by the name the ID service's {@code ?as=string} gave it. */
    public static final String STRING = "string";
    /** Decimal digits, 19 of them. */
    public static final String DECIMAL_FIXED = "decimal-fixed";
    /** Radix 36, minimal width. */
    public static final String BASE36 = "base36";
    /** Radix 36, 13 digits. */
    public static final String BASE36_FIXED = "base36-fixed";
    /** Radix 62, minimal width. */
    public static final String BASE62 = "base62";
    /** Radix 62, 11 digits. */
    public static final String BASE62_FIXED = "base62-fixed";

    private static final IdFormat DECIMAL_FORM = new IdFormat(Alphabet.DECIMAL, false, "");
    private static final IdFormat DECIMAL_FIXED_FORM = new IdFormat(Alphabet.DECIMAL, true, "");
    private static final IdFormat BASE36_FORM = new IdFormat(Alphabet.BASE36, false, "");
    private static final IdFormat BASE36_FIXED_FORM = new IdFormat(Alphabet.BASE36, true, "");
    private static final IdFormat BASE62_FORM = new IdFormat(Alphabet.BASE62, false, "");
    private static final IdFormat BASE62_FIXED_FORM = new IdFormat(Alphabet.BASE62, true, "");

    private static final List<String> NAMES =
            List.of(DECIMAL, STRING, DECIMAL_FIXED, BASE36, BASE36_FIXED, BASE62, BASE62_FIXED);

    private IdFormats() {
    }

    /** Decimal digits at minimal width: {@code 250593765314527232}. */
    public static IdFormat decimal() {
        return DECIMAL_FORM;
    }

    /** Decimal digits, left-padded with {@code 0} to 19: {@code 0250593765314527232}. */
    public static IdFormat decimalFixed() {
        return DECIMAL_FIXED_FORM;
    }

    /** Radix 36 ({@code 0-9a-z}) at minimal width: {@code 1wjg2qiozgu8}. */
    public static IdFormat base36() {
        return BASE36_FORM;
    }

    /** Radix 36 ({@code 0-9a-z}), left-padded with {@code 0} to 13: {@code 01wjg2qiozgu8}. */
    public static IdFormat base36Fixed() {
        return BASE36_FIXED_FORM;
    }

    /** Radix 62 ({@code 0-9A-Za-z}) at minimal width: {@code IVillXbwga}. */
    public static IdFormat base62() {
        return BASE62_FORM;
    }

    /** Radix 62 ({@code 0-9A-Za-z}), left-padded with {@code 0} to 11: {@code 0IVillXbwga}. */
    public static IdFormat base62Fixed() {
        return BASE62_FIXED_FORM;
    }

    /**
     * The form of that name, without a prefix.
     *
     * @throws IllegalArgumentException naming {@code name} and the names allowed ({@link #names()})
     */
    public static IdFormat named(String name) {
        Objects.requireNonNull(name, "name");
        return switch (name) {
            case DECIMAL, STRING -> DECIMAL_FORM;
            case DECIMAL_FIXED -> DECIMAL_FIXED_FORM;
            case BASE36 -> BASE36_FORM;
            case BASE36_FIXED -> BASE36_FIXED_FORM;
            case BASE62 -> BASE62_FORM;
            case BASE62_FIXED -> BASE62_FIXED_FORM;
            default -> throw new IllegalArgumentException("name must be one of " + String.join(", ", NAMES)
                    + ", was " + IdFormat.quote(name));
        };
    }

    /** Every name {@link #named} accepts, {@code string} included, in a fixed order. */
    public static List<String> names() {
        return NAMES;
    }
}
