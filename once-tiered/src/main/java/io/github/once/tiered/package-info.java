/**
 * The tiered store: a front store (such as Redis) answering duplicates of completed records over a store of record
 * (such as the JDBC store) that holds every claim. For users who want a database's durability with a cache's speed
 * on duplicates.
 */
package io.github.once.tiered;
