package io.github.once.chaos;

/**
 * Ends a worker or publisher process when the harness that started it ends, however it ends (even by SIGKILL,
 * when no shutdown hook of the harness runs), so a broken run leaves no consumer behind.
 */
final class ParentWatch {

    private ParentWatch() {
    }

    static void exitWithParent() {
        ProcessHandle.current().parent().ifPresent(parent ->
                parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
    }
}
