package io.github.once.cli.ops;

/**
 * @param dryRun   whether records were only counted
 * @param count    records deleted, or with a dry run, records a purge would delete
 * @param note     what happened, for this store
 */
record PurgeReport(boolean dryRun, long count, String note) {
}
