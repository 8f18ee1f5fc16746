/** Not an API: helpers of once-core itself. Other modules never import this package (ModuleBoundariesTest checks it). */
package io.github.once.internal;
