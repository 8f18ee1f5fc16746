package io.github.once.chaos;

/** Sleeps that give up quietly when the run is interrupted (the harness is shutting down). */
final class Pause {
    private Pause() {
    }

    static void millis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
