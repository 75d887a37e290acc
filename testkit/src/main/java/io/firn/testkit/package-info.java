/** Firn testkit: the CDC table generator shared by tests and benchmarks. */
package io.firn.testkit;
