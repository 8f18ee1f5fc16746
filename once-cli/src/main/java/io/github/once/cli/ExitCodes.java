package io.github.once.cli;

/** What the {@code once} command's exit status means. */
public final class ExitCodes {
    private ExitCodes() {
    }

    /** Done, and the demo's Once rows showed no duplicate and no lost effect. */
    public static final int OK = 0;
    /** The demo ran, and a Once row showed a duplicate or a lost effect. */
    public static final int ONCE_FAILED = 1;
    /** Bad arguments (picocli's own code for usage errors). */
    public static final int USAGE = 2;
    /** A broker or store could not be reached, or refused the credentials. */
    public static final int UNREACHABLE = 3;
    /** The store was reached but holds no Once records table (or the wrong one). */
    public static final int MISSING_SCHEMA = 4;
    /** Anything unexpected; run with --verbose for the stack trace. */
    public static final int INTERNAL = 70;
}
