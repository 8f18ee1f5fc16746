package io.github.once.cli;

/** A failure the user can act on: printed as one line, with the exit status it carries. */
public final class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }

    public static CliException usage(String message) {
        return new CliException(ExitCodes.USAGE, message);
    }

    public static CliException unreachable(String message, Throwable cause) {
        return new CliException(ExitCodes.UNREACHABLE, message, cause);
    }

    public static CliException missingSchema(String message) {
        return new CliException(ExitCodes.MISSING_SCHEMA, message);
    }
}
