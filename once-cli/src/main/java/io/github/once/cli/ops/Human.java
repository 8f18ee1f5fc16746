package io.github.once.cli.ops;

import java.time.Duration;

/** Durations as people read them. */
final class Human {
    private Human() {
    }

    static String duration(Duration d) {
        long s = d.toSeconds();
        if (s < 1) {
            return d.toMillis() + " ms";
        }
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return s / 60 + " min";
        }
        if (s < 172_800) {
            return s / 3600 + " h";
        }
        return s / 86_400 + " d";
    }
}
