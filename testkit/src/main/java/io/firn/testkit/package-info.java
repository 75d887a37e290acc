/**
 * Firn testkit: the CDC table generator shared by tests and benchmarks, row comparisons, and
 * S3Proxy with a request counter for the object-storage tests.
 */
package io.firn.testkit;
