package io.github.once.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the once command in this JVM, as the launcher would, and keeps what it printed. */
public record Cli(int exitCode, String out, String err) {

    public static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = OnceCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
}
