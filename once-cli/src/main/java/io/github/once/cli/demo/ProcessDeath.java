package io.github.once.cli.demo;

/**
 * Ends the handler thread of a consumer the demo "killed". An {@link Error}, so that no {@code catch (Exception)}
 * in a consumer style runs clean-up code a dead process could not run.
 */
final class ProcessDeath extends Error {
    ProcessDeath(String process) {
        super("consumer " + process + " died (simulated crash)", null, false, false);
    }
}
