/** Not an API: the meters behind {@link io.github.once.micrometer.OnceMeters}. It is not exported. */
package io.github.once.micrometer.internal;
