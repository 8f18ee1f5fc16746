/** docs/getting-started.md's example consumer and sender, compiled and run by {@code ReadmeExampleTest}. */
package com.example.orders;
