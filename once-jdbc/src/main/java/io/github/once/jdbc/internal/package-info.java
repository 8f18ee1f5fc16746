/** Not an API: the implementation of once-jdbc. It is not exported; nothing outside the module uses it. */
package io.github.once.jdbc.internal;
