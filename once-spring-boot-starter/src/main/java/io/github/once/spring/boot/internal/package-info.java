/** Not an API: the starter's store builders, health indicators and meter binding. It is not exported. */
package io.github.once.spring.boot.internal;
