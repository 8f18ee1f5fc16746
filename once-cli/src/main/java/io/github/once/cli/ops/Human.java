package io.github.once.cli.ops;

import java.time.Duration;

/** Durations and counts as people read them. */
public final class Human {
    private Human() {
    }

    /** {@code 1 dead letter}, {@code 2 dead letters}: the noun singular for one. */
    public static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
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
