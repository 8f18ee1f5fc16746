/** Not an API: the implementation of once-tiered. It is not exported; nothing outside the module uses it. */
package io.github.once.tiered.internal;
