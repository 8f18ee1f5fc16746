package io.github.once.cli.demo;

import io.lettuce.core.RedisClient;

/** The Once rows of the matrix: the adapter with each available store. */
final class OnceRows {
    private OnceRows() {
    }

    static void add(DemoSetup setup, RedisClient redis, DemoTargets targets) {
        // filled in with the adapter
    }
}
