/** For store authors: the contract suite every store passes, published so that users can test their own stores. */
package io.github.once.testkit;
