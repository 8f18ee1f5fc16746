/** The README's example consumer, compiled and run by {@code ReadmeExampleTest}. */
package com.example.orders;
