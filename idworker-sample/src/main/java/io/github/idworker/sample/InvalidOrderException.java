package io.github.idworker.sample;

/** A request whose field {@link #getField()} is missing or not allowed; answered with 400 naming the field. */
public class InvalidOrderException extends RuntimeException {

    private final String field;

    /**
     * @param field the JSON field, such as {@code amount}
     * @param problem what is wrong and what is allowed, read after the field's name
     */
    public InvalidOrderException(String field, String problem) {
        super(field + " " + problem);
        this.field = field;
    }

    public String getField() {
        return field;
    }
}
