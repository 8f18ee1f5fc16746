package io.github.once.jdbc;

import java.util.Objects;

/**
 * The answer to one {@link StateMachine#move} of a row: every case a value, so no caller guesses from an update
 * count.
 */
public sealed interface Transition {

    /** This call moved the row to {@code state}; {@code version} is the row's version after the move. */
    record Applied(String state, long version) implements Transition {
        public Applied {
            Objects.requireNonNull(state, "state");
        }
    }

    /**
     * The row was already in the target state (a repeat of a move that was applied before, or, for an in-flight
     * state whose deadline has not passed, work that runs elsewhere): nothing was changed.
     */
    record Duplicate(String state, long version) implements Transition {
        public Duplicate {
            Objects.requireNonNull(state, "state");
        }
    }

    /**
     * The row is in another state than the move allows from (someone else moved it), or at another version than
     * the caller expected: nothing was changed. {@code state} and {@code version} are what the row holds now.
     */
    record Conflict(String state, long version) implements Transition {
        public Conflict {
            Objects.requireNonNull(state, "state");
        }
    }

    /** No row has the id. */
    record Missing(Object id) implements Transition {
    }
}
