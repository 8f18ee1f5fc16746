package io.github.once.cli;

import picocli.CommandLine;

/** Prints one line for a failure the user can act on; the stack trace only with --verbose. */
final class FailureHandler implements CommandLine.IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        boolean verbose = parsed.subcommands().stream().anyMatch(p -> p.hasMatchedOption("--verbose"))
                || parsed.hasMatchedOption("--verbose");
        int code;
        String message;
        if (e instanceof CliException c) {
            code = c.exitCode();
            message = c.getMessage();
        } else if (e instanceof IllegalArgumentException) {
            code = ExitCodes.USAGE;
            message = e.getMessage();
        } else {
            code = ExitCodes.INTERNAL;
            message = "unexpected failure: " + e;
        }
        cl.getErr().println("once: " + message);
        if (verbose) {
            e.printStackTrace(cl.getErr());
        } else if (code == ExitCodes.INTERNAL) {
            cl.getErr().println("(run again with --verbose for the stack trace)");
        }
        cl.getErr().flush();
        return code;
    }
}
