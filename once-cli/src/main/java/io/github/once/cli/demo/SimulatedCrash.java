package io.github.once.cli.demo;

/** Ends the handler of a Once consumer the demo killed; its store handle and connection are already gone. */
final class SimulatedCrash extends RuntimeException {
    SimulatedCrash(String process) {
        super("consumer " + process + " died (simulated crash)", null, false, false);
    }
}
