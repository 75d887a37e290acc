/** End-to-end benchmarks. */
package io.firn.bench;
