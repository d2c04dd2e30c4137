package io.github.idworker.server;

/** A request parameter is outside what an endpoint accepts; answered with HTTP 400. */
public class InvalidParameterException extends RuntimeException {

    private final String parameter;

    public InvalidParameterException(String parameter, String message) {
        super(parameter + " " + message);
        this.parameter = parameter;
    }

    public String getParameter() {
        return parameter;
    }
}
