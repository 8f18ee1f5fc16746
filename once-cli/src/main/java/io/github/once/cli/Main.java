package io.github.once.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Entry point of the runnable jar and the {@code once} script. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // slf4j-simple reads its level once, when the first logger is made: decide before anything logs.
        if (Arrays.asList(args).contains("--verbose")) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        }
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = OnceCommand.commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }
}
